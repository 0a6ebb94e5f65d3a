/**
 * TAP, as written by `node --test --test-reporter=tap` (node 20's default when not on a terminal),
 * `mocha --reporter tap`, tape, and other TAP producers.
 *
 * Node nests subtests by indentation and prints a parent's own `ok` line after its children; a parent
 * is a suite, not a test, so only leaves are counted. When node's own summary comments are present
 * (`# tests`, `# pass`, `# fail`, `# cancelled`, `# skipped`, `# todo`) they are used as the counts,
 * because they also cover cancelled tests that have no line of their own.
 */
import type { TestCase, TestCounts, TestFailure } from "../../types.js";
import { boundMessage, firstProjectFrame, indentOf, normalizeName, normalizePath } from "../util.js";
import { counts, failure, type TestInput } from "./common.js";

interface Point {
  ok: boolean;
  directive: "skip" | "todo" | null;
  name: string;
  indent: number;
  yaml: Record<string, string>;
  /** Comment lines (`# ...`) printed since the previous point: node prints a crashed file's stderr there. */
  comments: string[];
  children: Point[];
}

const POINT_RE = /^(not ok|ok)\b(?:\s+(\d+))?(?:\s*-)?\s*(.*)$/;
const DIRECTIVE_RE = /\s#\s*(skip|todo)\b/i;

export function parseTap(input: TestInput): TestCounts | null {
  const { lines, cwd } = input;
  // A TAP stream has a plan (`1..N`) or a version line; without one, `ok` at the start of a line is
  // too common (go test prints `ok  \tpkg`) to claim the output.
  let hasPlan = false;
  let hasPoint = false;
  for (const line of lines) {
    const t = line.trimStart();
    if (!hasPlan && (/^1\.\.\d+/.test(t) || t.startsWith("TAP version"))) hasPlan = true;
    if (!hasPoint && (t.startsWith("ok") || t.startsWith("not ok"))) hasPoint = /^(not )?ok\b/.test(t);
    if (hasPlan && hasPoint) break;
  }
  if (!hasPlan || !hasPoint) return null;

  // Points not yet adopted by a parent; at the end, the roots of the tree.
  const open: Point[] = [];
  const summary: Record<string, number> = {};
  let comments: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const indent = indentOf(line);
    const t = line.slice(indent);
    if (t.startsWith("#")) {
      const m = /^#\s*(tests|suites|pass|fail|cancelled|skipped|todo)\s+(\d+)\s*$/.exec(t);
      if (m && indent === 0) summary[m[1]!] = Number(m[2]);
      else if (!t.startsWith("# Subtest:")) comments.push(t.replace(/^#\s?/, ""));
      continue;
    }
    if (!(t.startsWith("ok") || t.startsWith("not ok"))) continue;
    const m = POINT_RE.exec(t);
    if (!m) continue;
    let name = m[3] ?? "";
    let directive: Point["directive"] = null;
    const d = DIRECTIVE_RE.exec(name);
    if (d) {
      directive = d[1]!.toLowerCase() === "skip" ? "skip" : "todo";
      name = name.slice(0, d.index);
    }
    name = normalizeName(name.trim().replace(/\\#/g, "#"), cwd);
    const point: Point = { ok: m[1] === "ok", directive, name, indent, yaml: {}, comments, children: [] };
    comments = [];
    // A YAML diagnostic block follows the point, indented two more columns.
    const next = lines[i + 1];
    if (next !== undefined && next.trim() === "---") {
      const end = readYaml(lines, i + 2, indentOf(next), point.yaml);
      i = end;
    } else if (!point.ok) {
      // mocha's TAP prints the message and stack as plain indented lines.
      const body: string[] = [];
      let j = i + 1;
      while (j < lines.length && (lines[j]!.trim() === "" || indentOf(lines[j]!) > indent) && !/^\s*(not )?ok\b/.test(lines[j]!)) body.push(lines[j++]!);
      if (body.length > 0) {
        point.yaml.stack = dropRepeatedMessage(body).join("\n");
        i = j - 1;
      }
    }
    // Points printed deeper than this one since the last point at its depth are its children.
    while (open.length > 0 && open[open.length - 1]!.indent > indent) point.children.push(open.pop()!);
    // Popped last-first; unshift instead would be quadratic for a suite with many tests.
    point.children.reverse();
    open.push(point);
  }
  const roots = open;

  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures: TestFailure[] = [];
  const cases: TestCase[] = [];
  const visit = (p: Point, prefix: string): boolean => {
    const full = prefix ? `${prefix} > ${p.name}` : p.name;
    if (p.children.length > 0) {
      let childFailed = false;
      for (const c of p.children) childFailed = visit(c, full) || childFailed;
      // A suite that fails on its own (a hook threw) is a failure even when every test passed.
      if (!p.ok && p.directive === null && !childFailed) {
        failed++;
        failures.push(toFailure(p, full, cwd));
        return true;
      }
      return childFailed;
    }
    if (p.directive !== null) {
      skipped++;
      cases.push({ name: full, status: "skipped" });
      return false;
    }
    if (p.ok) {
      passed++;
      cases.push({ name: full, status: "passed" });
      return false;
    }
    failed++;
    failures.push(toFailure(p, full, cwd));
    cases.push({ name: full, status: "failed" });
    return true;
  };
  for (const p of roots) visit(p, "");

  if (summary.tests !== undefined && summary.pass !== undefined && (summary.cancelled !== undefined || summary.skipped !== undefined)) {
    // node's own totals: `pass` excludes todo tests, `fail` excludes cancelled ones.
    return counts(
      "tap",
      {
        passed: summary.pass,
        failed: (summary.fail ?? 0) + (summary.cancelled ?? 0),
        skipped: (summary.skipped ?? 0) + (summary.todo ?? 0),
        total: summary.tests,
      },
      failures,
      undefined,
      cases,
    );
  }
  return counts("tap", { passed, failed, skipped }, failures, undefined, cases);
}

/**
 * mocha prints the message, then the stack, whose first line repeats the message after the error
 * type ("TypeError: <message>"); keep the typed version only.
 */
function dropRepeatedMessage(body: string[]): string[] {
  const first = body.find((l) => l.trim() !== "")?.trim();
  if (!first) return body;
  for (let k = 1; k < body.length && k < 40; k++) {
    const m = /^\s*[\w$.]*(?:Error|Exception)\b[^:]*: (.*)$/.exec(body[k]!);
    if (m && m[1]!.trim() === first) return body.slice(k);
  }
  return body;
}

function toFailure(p: Point, name: string, cwd?: string): TestFailure {
  const y = p.yaml;
  let message: string | undefined;
  const error = y.error;
  if (error !== undefined && error !== "test failed" && error !== "") {
    message = y.name && !error.startsWith(y.name) ? `${y.name}: ${error}` : error;
  } else if (error === "test failed") {
    // A test file that crashed: node reports only "test failed"; the cause is in the comments above.
    message = p.comments.find((c) => /^\s*[\w.]*(Error|Exception)\b[^:]*: /.test(c))?.trim() ?? error;
  } else if (y.stack) {
    message = y.stack;
  }
  const frame = firstProjectFrame(y.stack, cwd);
  let loc: { file?: string; line?: number } | undefined = frame;
  if (!loc && y.location) {
    const m = /^(.*):(\d+):(\d+)$/.exec(y.location);
    if (m) loc = { file: normalizePath(m[1]!, cwd), line: Number(m[2]) };
  }
  return failure(name, boundMessage(message), loc);
}

/**
 * Reads node's YAML diagnostic block into flat string values (only what a failure report needs: error,
 * name, location, stack). Returns the index of the closing `...` line.
 */
function readYaml(lines: string[], from: number, baseIndent: number, into: Record<string, string>): number {
  let i = from;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const ind = indentOf(line);
    const t = line.slice(ind);
    if (t === "..." && ind <= baseIndent) return i;
    if (ind !== baseIndent) continue;
    const m = /^([A-Za-z_][\w-]*):\s?(.*)$/.exec(t);
    if (!m) continue;
    const key = m[1]!;
    const raw = m[2]!;
    if (raw === "|-" || raw === "|" || raw === ">-" || raw === ">" || raw === "|+") {
      const block: string[] = [];
      while (i + 1 < lines.length) {
        const nl = lines[i + 1]!;
        if (nl.trim() !== "" && indentOf(nl) <= baseIndent) break;
        block.push(nl.trim());
        i++;
      }
      into[key] = block.join("\n").trim();
    } else {
      into[key] = unquote(raw.trim());
    }
  }
  return i;
}

function unquote(v: string): string {
  if (v.length >= 2 && v.startsWith("'") && v.endsWith("'")) return v.slice(1, -1).replace(/''/g, "'");
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) {
    try {
      return JSON.parse(v) as string;
    } catch {
      return v.slice(1, -1);
    }
  }
  return v;
}
