/**
 * The spec reporter of `node --test` (the default on a terminal in node 20 and 22, and everywhere from
 * node 23): `✔ name (1.2ms)` / `✖ name` lines nested by indentation, `▶ suite` openers, a summary of
 * `ℹ tests 7`, `ℹ pass 2`, ... lines, and (in the node 20.20 and 22.23 of the corpus) a `✖ failing
 * tests:` section that repeats each failure with its error and a `test at file:line:col` location.
 *
 * The counts come from the `ℹ` lines (node's own totals). The failing tests' full names come from the
 * tree in the body (the section only has the bare title), their details from the section when it
 * exists (node 22 prints errors only there) and from the body otherwise (node 20 prints them in both).
 */
import type { TestCounts, TestFailure } from "../../types.js";
import { boundMessage, firstProjectFrame, indentOf, locationFile, normalizeName, normalizePath } from "../util.js";
import { counts, failure, type TestInput } from "./common.js";

const INFO_RE = /^ℹ (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)\s*$/;
const DURATION_RE = / \([\d.]+m?s\)(?: # .*)?$/;
const SYMBOLS = new Set(["✔", "✖", "﹣", "▶", "⚠"]);

interface Entry {
  header: string;
  name: string;
  details: string[];
  location?: string;
  /** Text printed since the previous test line (a crashed file's stderr). */
  before: string[];
}

export function parseNodeSpec(input: TestInput): TestCounts | null {
  const { lines, cwd } = input;
  const info: Record<string, number> = {};
  let sectionAt = -1;
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i]!.trim();
    if (t.charCodeAt(0) === 0x2139 /* ℹ */) {
      const m = INFO_RE.exec(t);
      if (m) info[m[1]!] = Number(m[2]);
    } else if (t === "✖ failing tests:") {
      sectionAt = i;
    }
  }
  if (info.tests === undefined || info.pass === undefined || info.fail === undefined) return null;

  const bodyEnd = sectionAt >= 0 ? sectionAt : lines.length;
  const bodyFailures = readBody(lines, bodyEnd);
  const sectionFailures = sectionAt >= 0 ? readSection(lines, sectionAt + 1) : new Map<string, Entry>();

  const failures: TestFailure[] = [];
  const entries = bodyFailures.length > 0 ? bodyFailures : [...sectionFailures.values()];
  for (const e of entries) {
    const detail = sectionFailures.get(e.header);
    const details = detail && detail.details.length > 0 ? detail.details : e.details;
    const location = detail?.location ?? e.location;
    let message = boundMessage(details.join("\n"));
    if (message === "'test failed'" || message === "test failed") {
      // A file that crashed before its tests ran: node only says "test failed"; its stderr came first.
      message = e.before.find((l) => /^[\w.]*(Error|Exception)\b[^:]*: /.test(l.trim()))?.trim() ?? message;
    }
    let loc: { file?: string; line?: number } | undefined = firstProjectFrame(details.join("\n"), cwd);
    if (!loc && location) {
      const m = /^(.*):(\d+):(\d+)$/.exec(location);
      if (m) loc = { file: normalizePath(m[1]!, cwd), line: Number(m[2]) };
    }
    const f = failure(normalizeName(e.name, cwd), message, loc);
    // Where the test was declared, the file failing first gives node to run (runners/node.ts).
    const testFile = location === undefined ? undefined : locationFile(location, cwd);
    if (testFile) f.testFile = testFile;
    failures.push(f);
  }
  return counts(
    "node-spec",
    {
      passed: info.pass,
      failed: info.fail + (info.cancelled ?? 0),
      skipped: (info.skipped ?? 0) + (info.todo ?? 0),
      total: info.tests,
    },
    failures,
  );
}

function parseLine(line: string): { indent: number; symbol: string; title: string; header: string } | null {
  const indent = indentOf(line);
  const symbol = line.charAt(indent);
  if (!SYMBOLS.has(symbol) || line.charAt(indent + 1) !== " ") return null;
  const header = line.slice(indent).trimEnd();
  const rest = header.slice(2);
  const d = DURATION_RE.exec(rest);
  return { indent, symbol, title: d ? rest.slice(0, d.index) : rest, header };
}

/** Details of a test line: the lines indented deeper than it (blank lines included). */
function readDetails(lines: string[], from: number, end: number, indent: number): { details: string[]; next: number } {
  const details: string[] = [];
  let j = from;
  for (; j < end; j++) {
    const l = lines[j]!;
    if (l.trim() !== "" && indentOf(l) <= indent) break;
    details.push(l);
  }
  return { details, next: j };
}

function readBody(lines: string[], end: number): Entry[] {
  const suites: { indent: number; title: string }[] = [];
  const out: Entry[] = [];
  let before: string[] = [];
  for (let i = 0; i < end; i++) {
    const p = parseLine(lines[i]!);
    if (!p) {
      before.push(lines[i]!);
      continue;
    }
    while (suites.length > 0 && suites[suites.length - 1]!.indent > p.indent) suites.pop();
    const top = suites[suites.length - 1];
    if (p.symbol === "▶" && !(top && top.indent === p.indent && top.title === p.title)) {
      suites.push({ indent: p.indent, title: p.title });
      before = [];
      continue;
    }
    if (top && top.indent === p.indent && top.title === p.title) {
      // The closing line of a suite; a suite fails when a child failed, which is counted already.
      suites.pop();
      before = [];
      continue;
    }
    const { details, next } = readDetails(lines, i + 1, end, p.indent);
    if (p.symbol === "✖") {
      const path = suites.filter((s) => s.indent < p.indent).map((s) => s.title);
      out.push({ header: p.header, name: [...path, p.title].join(" > "), details, before });
    }
    before = [];
    i = next - 1;
  }
  return out;
}

function readSection(lines: string[], from: number): Map<string, Entry> {
  const out = new Map<string, Entry>();
  let location: string | undefined;
  for (let i = from; i < lines.length; i++) {
    const line = lines[i]!;
    const at = /^\s*test at (.+:\d+:\d+)\s*$/.exec(line);
    if (at) {
      location = at[1];
      continue;
    }
    const p = parseLine(line);
    if (p?.symbol !== "✖") continue;
    const { details, next } = readDetails(lines, i + 1, lines.length, p.indent);
    if (!out.has(p.header)) out.set(p.header, { header: p.header, name: p.title, details, location, before: [] });
    location = undefined;
    i = next - 1;
  }
  return out;
}
