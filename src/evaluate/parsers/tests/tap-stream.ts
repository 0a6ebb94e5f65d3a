/**
 * Reads a TAP stream into a tree of test points. tap-parser (node-tap's own parser) reads the protocol:
 * points and their directives, plans, comments, bail-outs and subtests (`# Subtest:` with 4-space
 * indentation, and TAP 14's `{ ... }` blocks that Vitest writes).
 *
 * It is never given a YAML block (see tap-diagnostics.ts for why): a passing point's block is left out,
 * and a failing point's is replaced by a one-line block, `trm_block: <n>`, which tap-parser hands back
 * on the point and which names the real block for tap-diagnostics.ts to read. Indentation is capped
 * (MAX_INDENT): tap-parser opens a child parser per 4 columns of an indented TAP-looking line,
 * recursively, so a line indented by a megabyte overflowed the stack.
 *
 * What tap-parser does not keep is taken from its events here: the `# Subtest:` comment that announces a
 * leaf test (node, node-tap), the comments before a point (node prints a crashed file's stderr there),
 * the plain lines after a failing point (mocha's message and stack; top level only, as a child parser
 * forwards such lines before its point is emitted), node's summary comments, and tape's `# test name`
 * comments and plan.
 */
import { Parser, type Result } from "tap-parser";
import { indentOf } from "../util.js";
import { MAX_FAILURES } from "./common.js";
import { readYaml } from "./tap-diagnostics.js";

export interface TapPoint {
  ok: boolean;
  directive: "skip" | "todo" | null;
  /** As printed, without the directive, `# time=` and a block's `{`. */
  name: string;
  /** A failing point's YAML diagnostics, flattened: nested maps become dotted keys (`at.fileName`). */
  diag: Record<string, string>;
  /** Comment lines (`# ...`) printed since the previous point, without the `#`. */
  comments: string[];
  children: TapPoint[];
  /** Announced by `# Subtest:` (node, node-tap): a test or suite. Points without are assertions. */
  subtest: boolean;
  /** Plain indented lines after a failing top-level point without YAML (mocha's message and stack). */
  body?: string[];
  /** tape: the `# name` comment the point follows (tape's points are assertions of that test). */
  group?: TapGroup;
}

/** tape: a `# test name` comment at the margin, opening a test whose assertions follow. */
export interface TapGroup {
  name: string;
  /** A plan (`1..N`) came after this comment: the run finished. */
  planAfter: boolean;
}

export interface TapStream {
  /** Top-level points (and the points of a child that never got its closing point). */
  roots: TapPoint[];
  /** node's totals: `# tests 7`, `# pass 2`, `# cancelled 1`, ... */
  summary: Record<string, number>;
  /** A `# Subtest:` comment or an indented subtest anywhere: not tape. */
  anySubtest: boolean;
  groups: TapGroup[];
  /** tape: the lines printed after the last group's comment, bounded (a crash's error and stack). */
  afterLastGroup: string[];
}

/** 16 levels of subtests, more than any real nesting (YAML blocks, the deepest lines, are not fed at all). */
const MAX_INDENT = 64;
/**
 * Failing points whose YAML is read: the failure list is cut at MAX_FAILURES (twice as many leaves room
 * for names listed twice).
 */
const MAX_FAILURE_DIAGS = 2 * MAX_FAILURES;
const MAX_GROUP_LINES = 60;
const MARK = "trm_block";
const SUMMARY_RE = /^#\s*(tests|suites|pass|fail|cancelled|skipped|todo)\s+(\d+)\s*$/;
// Comments at the margin that are not a test's name: node-tap's time and totals, tape's own summary.
const NOT_A_GROUP_RE = /^#\s*(time=|\{|ok$|tests\b)/;
// tap-parser's own remark at the end of a stream whose count differs from its plan.
const SYNTHETIC_RE = /^# test count\(\d+\) != plan\(/;
const POINT_RE = /^(not )?ok\b/;
// A line left of the point that tap-parser reads as TAP ends a YAML block; other text does not (Vitest).
const TAP_LINE_RE = /^(?:(?:not )?ok\b|\d+\.\.\d+|TAP version|Bail out!|#|[{}]$)/i;

// Shared by the points that have none (most): a 5 MB log has 100,000 points.
const NONE: never[] = Object.freeze([]) as unknown as never[];
const NO_DIAG: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);

export function readTap(lines: string[]): TapStream {
  const stream: TapStream = { roots: [], summary: {}, anySubtest: false, groups: [], afterLastGroup: [] };
  const blocks: Block[] = [];
  const root = new Parser();
  // One list for the whole stream, as printed: comments belong to the next point at any depth.
  let comments: string[] = NONE;
  // The failing top-level point whose plain lines are still arriving.
  let bodyOf: TapPoint | null = null;
  let group: TapGroup | undefined;
  const addComment = (t: string) => {
    if (comments === NONE) comments = [];
    comments.push(t.replace(/^#\s?/, ""));
  };
  const keepAfterGroup = (line: string) => {
    if (group && stream.afterLastGroup.length < MAX_GROUP_LINES) stream.afterLastGroup.push(line);
  };

  const listen = (p: Parser, into: TapPoint[], isRoot: boolean): void => {
    // Points that close a child, with the child's points and whether it was announced by `# Subtest:`.
    const closing = new Map<Result, { children: TapPoint[]; subtest: boolean }>();
    let announced = false;
    // A child's first comment is its own `# Subtest:` line, which the parent already announced.
    let ownName = !isRoot;
    p.on("comment", (raw: string) => {
      bodyOf = null;
      if (ownName) {
        ownName = false;
        return;
      }
      const line = raw.replace(/\n$/, "");
      const t = line.trimStart();
      if (SYNTHETIC_RE.test(t)) return;
      if (t.startsWith("# Subtest:")) {
        announced = true;
        stream.anySubtest = true;
        return;
      }
      if (isRoot && line.startsWith("#")) {
        const m = SUMMARY_RE.exec(line);
        if (m) {
          stream.summary[m[1]!] = Number(m[2]);
          return;
        }
        if (!NOT_A_GROUP_RE.test(line)) {
          group = { name: line.replace(/^#\s?/, "").trim(), planAfter: false };
          stream.groups.push(group);
          if (stream.afterLastGroup.length > 0) stream.afterLastGroup = [];
          addComment(line);
          return;
        }
      }
      if (isRoot) keepAfterGroup(line);
      addComment(t);
    });
    p.on("child", (child: Parser) => {
      bodyOf = null;
      stream.anySubtest = true;
      const children: TapPoint[] = [];
      listen(child, children, false);
      child.on("complete", () => {
        // A buffered child (`ok 1 - suite {`) or one without a `# Subtest:` line announces nothing.
        if (child.closingTestPoint) closing.set(child.closingTestPoint, { children, subtest: !child.buffered && child.name !== "" });
        // A child cut short (the process died) has no closing point: its points stand on their own.
        else for (const c of children) into.push(c);
      });
    });
    p.on("assert", (res: Result) => {
      const closes = closing.get(res);
      if (closes) closing.delete(res);
      const point: TapPoint = {
        ok: res.ok,
        directive: res.skip ? "skip" : res.todo ? "todo" : null,
        name: res.name,
        diag: diagOf(lines, blocks, res),
        comments,
        children: closes?.children ?? NONE,
        subtest: closes ? closes.subtest : announced,
      };
      comments = NONE;
      announced = false;
      bodyOf = isRoot && !point.ok && !closes && res.diag === null ? point : null;
      if (isRoot && group) point.group = group;
      into.push(point);
    });
  };
  listen(root, stream.roots, true);
  root.on("plan", () => {
    bodyOf = null;
    if (group) group.planAfter = true;
  });
  root.on("extra", (raw: string) => {
    const line = raw.replace(/\n$/, "");
    keepAfterGroup(line);
    // mocha: the message and stack, indented under the point; a line at the margin ends them.
    if (bodyOf && (line.trim() === "" || indentOf(line) > 0)) (bodyOf.body ??= []).push(line);
    else bodyOf = null;
  });
  feed(root, lines, blocks);
  return stream;
}

/** A failing point's YAML block in the output: lines (from, end) hold its text, keys at `indent` or more. */
interface Block {
  from: number;
  end: number;
  indent: number;
}

/** The YAML block a failing point's marker names, read from the output. */
function diagOf(lines: string[], blocks: Block[], res: Result): Record<string, string> {
  const k = (res.diag as Record<string, unknown> | null)?.[MARK];
  const b = typeof k === "number" ? blocks[k] : undefined;
  return b ? readYaml(lines, b.from + 1, b.end, b.indent) : NO_DIAG;
}

/**
 * Writes the lines to the parser without their YAML: a failing point's block becomes a marker block
 * that names it in `blocks`, a passing point's block is left out, and so is any other `---` line (one
 * that would open a block tap-parser parses: after a point's junk lines, or in a block that never ends).
 */
function feed(parser: Parser, lines: string[], blocks: Block[]): void {
  let failureDiags = 0;
  // Lines looked at while finding blocks' ends: linear in the output even when no block ends.
  let budget = 4 * lines.length + 10_000;
  /** The `...` that ends a block opened at `indent`, or -1 when a TAP line left of the point comes first. */
  const yamlEnd = (from: number, indent: string, pointIndent: number): number => {
    for (let j = from; j < lines.length && budget-- > 0; j++) {
      const l = capIndent(lines[j]!);
      if (l === `${indent}...`) return j;
      const ind = indentOf(l);
      if (ind <= pointIndent && TAP_LINE_RE.test(l.slice(ind))) return -1;
    }
    return -1;
  };
  // A TAP line is indented at most one level (4 columns) deeper than the TAP line before it, as a
  // subtest's lines are: tap-parser opens a child parser per level of a deeper line, and output that
  // alternated unindented and 60-column lines took 8.8 s to read (fresh-eyes attack; 0.37 s before).
  let tapIndent = 0;
  for (let i = 0; i < lines.length; i++) {
    let line = capIndent(lines[i]!);
    let ind = indentOf(line);
    const t = line.slice(ind);
    if (ind > 0 && t === "---") continue;
    if (TAP_LINE_RE.test(t)) {
      if (ind > tapIndent + 4) {
        line = `${" ".repeat(tapIndent + 4)}${t}`;
        ind = tapIndent + 4;
      }
      tapIndent = ind;
    }
    parser.write(`${line}\n`);
    if (!POINT_RE.test(t) || i + 1 >= lines.length) continue;
    const next = capIndent(lines[i + 1]!);
    const yi = indentOf(next);
    if (yi === 0 || next.slice(yi) !== "---") continue;
    const indent = next.slice(0, yi);
    const end = yamlEnd(i + 2, indent, ind);
    if (end < 0) continue;
    if (t.startsWith("not") && ++failureDiags <= MAX_FAILURE_DIAGS) {
      parser.write(`${indent}---\n${indent}${MARK}: ${blocks.length}\n${indent}...\n`);
      blocks.push({ from: i + 1, end, indent: indentOf(lines[i + 1]!) });
    }
    i = end;
  }
  parser.end();
}

function capIndent(line: string): string {
  if (line.length <= MAX_INDENT || line.charCodeAt(MAX_INDENT) !== 32) return line;
  const ind = indentOf(line);
  return ind > MAX_INDENT ? line.slice(ind - MAX_INDENT) : line;
}
