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
import { boundMessage, firstProjectFrame, indentOf, isProjectPath, normalizeName, normalizePath, parseJsFrame } from "../util.js";
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
  /** Announced by `# Subtest:` (node, node-tap): a test or suite. Points without are assertions. */
  subtest: boolean;
  /** vitest: a `{` block still open, whose children follow. */
  block: boolean;
  /** tape: the `# name` comment the point follows (tape's points are assertions of that test). */
  group?: string;
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
  const subtestAt = new Set<number>();
  let anySubtest = false;
  // tape: `# name` at the margin opens a test whose assertions follow; a test with none crashed.
  let group: string | undefined;
  const groups: { name: string; points: number; at: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const indent = indentOf(line);
    const t = line.slice(indent);
    if (t.startsWith("#")) {
      const m = /^#\s*(tests|suites|pass|fail|cancelled|skipped|todo)\s+(\d+)\s*$/.exec(t);
      if (m && indent === 0) summary[m[1]!] = Number(m[2]);
      else if (t.startsWith("# Subtest:")) {
        subtestAt.add(indent);
        anySubtest = true;
      } else {
        comments.push(t.replace(/^#\s?/, ""));
        if (indent === 0 && !/^#\s*(time=|\{|ok$|tests\b)/.test(t)) {
          group = t.replace(/^#\s?/, "").trim();
          groups.push({ name: group, points: 0, at: i });
        }
      }
      continue;
    }
    if (t === "}") {
      // vitest's TAP: the suite line came first and its tests follow inside `{ ... }`.
      let k = open.length - 1;
      while (k >= 0 && !(open[k]!.indent === indent && open[k]!.block)) k--;
      if (k >= 0) {
        const parent = open[k]!;
        parent.children = open.splice(k + 1);
        parent.block = false;
      }
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
    // vitest's TAP opens a suite with `{`; node-tap appends `# time=...`.
    const opensBlock = /\{\s*$/.test(name);
    name = name.replace(/\s*\{\s*$/, "").replace(/\s+#\s*time=\S*\s*$/, "");
    name = normalizeName(name.trim().replace(/\\#/g, "#"), cwd);
    const point: Point = { ok: m[1] === "ok", directive, name, indent, yaml: {}, comments, children: [], subtest: subtestAt.has(indent), block: opensBlock };
    subtestAt.delete(indent);
    if (indent === 0 && group !== undefined) {
      point.group = group;
      groups[groups.length - 1]!.points++;
    }
    comments = [];
    // A YAML diagnostic block follows the point, indented two more columns.
    const next = lines[i + 1];
    if (next !== undefined && next.trim() === "---") {
      const end = readYaml(lines, i + 2, indentOf(next), point.yaml);
      i = end;
    } else if (!point.ok && !opensBlock) {
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
    if (!opensBlock) while (open.length > 0 && open[open.length - 1]!.indent > indent && !open[open.length - 1]!.block) point.children.push(open.pop()!);
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
    // node-tap: a subtest whose children are all assertions is one test; its failing assertion says why.
    if (p.subtest && p.children.length > 0 && p.children.every((c) => !c.subtest)) {
      if (p.directive !== null) {
        skipped++;
        cases.push({ name: full, status: "skipped" });
      } else if (p.ok) {
        passed++;
        cases.push({ name: full, status: "passed" });
      } else {
        failed++;
        const bad = p.children.find((c) => !c.ok && c.directive === null);
        failures.push(bad ? toFailure({ ...bad, yaml: { ...bad.yaml, assertion: bad.name } }, full, cwd) : toFailure(p, full, cwd));
        cases.push({ name: full, status: "failed" });
        return true;
      }
      return false;
    }
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
  if (!anySubtest && groups.length > 0 && roots.length > 0 && roots.every((p) => p.group !== undefined)) {
    return tapeGroups(lines, roots, groups, cwd);
  }
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
 * tape prints one point per assertion under a `# test name` comment and no line for a skipped test, so
 * tests are counted by comment: a test passes when all its assertions do. A test with no assertion
 * after its comment and no plan after it crashed the run (its error follows the comment).
 */
function tapeGroups(lines: string[], roots: Point[], groups: { name: string; points: number; at: number }[], cwd?: string): TestCounts {
  let passed = 0;
  let failed = 0;
  const failures: TestFailure[] = [];
  const cases: TestCase[] = [];
  const finished = lines.some((l, k) => k > groups[groups.length - 1]!.at && /^1\.\.\d+/.test(l));
  const byGroup = new Map<string, Point[]>();
  for (const p of roots) {
    const list = byGroup.get(p.group!);
    if (list) list.push(p);
    else byGroup.set(p.group!, [p]);
  }
  for (const g of groups) {
    const mine = byGroup.get(g.name) ?? [];
    const bad = mine.find((p) => !p.ok && p.directive === null);
    if (bad) {
      failed++;
      failures.push(toFailure({ ...bad, yaml: { ...bad.yaml, assertion: bad.name } }, g.name, cwd));
      cases.push({ name: g.name, status: "failed" });
    } else if (mine.length > 0) {
      passed++;
      cases.push({ name: g.name, status: "passed" });
    }
    else if (!finished && g === groups[groups.length - 1]) {
      // The process died inside this test: its error (and the stack) follow the comment.
      const after = lines.slice(g.at + 1, g.at + 60).join("\n");
      const err = /^\s*([\w$.]*(?:Error|Exception)\b[^\n]*)$/m.exec(after)?.[1];
      failed++;
      failures.push(failure(g.name, boundMessage(err ?? "the test run stopped here (crashed)"), firstProjectFrame(after, cwd)));
    }
  }
  // Tests after a crash never ran and tape printed nothing for skipped ones: the total is unknown.
  return counts("tap", { passed, failed, skipped: finished ? 0 : null, total: finished ? passed + failed : null }, failures, finished ? undefined : "the run stopped early; tests after the crash were not counted", finished ? cases : undefined);
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
  } else if (y["error.message"]) {
    // vitest: a nested error map.
    message = y["error.name"] ? `${y["error.name"]}: ${y["error.message"]}` : y["error.message"];
  } else if (y.message || detailsOf(y)) {
    // ava: the message (often empty) and a details map whose key says what happened.
    const details = detailsOf(y);
    message = y.message && details?.startsWith(y.message) ? details : [y.message, details].filter(Boolean).join("\n");
  } else if (y.assertion !== undefined) {
    // node-tap and tape: the failing assertion's own name, then what it compared.
    const cmp = y.diff ?? (y.expected !== undefined || y.actual !== undefined ? `expected: ${y.expected ?? ""}\nactual: ${y.actual ?? ""}` : undefined);
    message = [y.type && !y.assertion.startsWith(y.type) ? `${y.type}: ${y.assertion}` : y.assertion, cmp].filter(Boolean).join("\n");
  } else if (y.stack) {
    message = y.stack;
  }
  let loc: { file?: string; line?: number } | undefined = atOf(y, cwd) ?? firstProjectFrame(y.stack, cwd);
  if (!loc && y.location) {
    const m = /^(.*):(\d+):(\d+)$/.exec(y.location);
    if (m) loc = { file: normalizePath(m[1]!, cwd), line: Number(m[2]) };
  }
  return failure(name, boundMessage(message), loc);
}

/** ava's `details` map: `'Difference (- actual, + expected):': |- ...` becomes its key and text. */
function detailsOf(y: Record<string, string>): string | undefined {
  for (const [k, v] of Object.entries(y)) if (k.startsWith("details.")) return `${k.slice(8)}\n${v}`;
  return undefined;
}

/** The assertion's place: `at: fn (file:1:2)` (ava, tape, vitest) or node-tap's `at.fileName`/`at.lineNumber`. */
function atOf(y: Record<string, string>, cwd?: string): { file: string; line?: number } | undefined {
  if (y["at.fileName"] !== undefined) {
    const file = normalizePath(y["at.fileName"], cwd);
    const line = Number(y["at.lineNumber"]);
    return isProjectPath(file, cwd) ? { file, ...(Number.isFinite(line) ? { line } : {}) } : undefined;
  }
  if (y.at === undefined) return undefined;
  const at = y.at.trim();
  const frame = parseJsFrame(at.startsWith("at ") || at.includes("(") ? at : `at ${at}`);
  const m = frame ?? (/^(\S+):(\d+)(?::\d+)?$/.exec(at) ? { file: at.replace(/:\d+(?::\d+)?$/, ""), line: Number(/:(\d+)(?::\d+)?$/.exec(at)![1]) } : null);
  if (!m) return undefined;
  const file = normalizePath(m.file, cwd);
  return isProjectPath(file, cwd) ? { file, ...(m.line !== undefined ? { line: m.line } : {}) } : undefined;
}

/**
 * Reads a TAP YAML diagnostic block into flat string values; nested maps become dotted keys
 * (`at.fileName`, `error.message`), block scalars are joined (`|` keeps lines, `>` folds them).
 * Only what a failure report needs is read, never anchors or aliases, so hostile YAML costs one pass.
 * Returns the index of the closing `...` line.
 */
function readYaml(lines: string[], from: number, baseIndent: number, into: Record<string, string>): number {
  const parents: { indent: number; key: string }[] = [];
  let i = from;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const ind = indentOf(line);
    const t = line.slice(ind);
    if (t === "..." && ind <= baseIndent) return i;
    if (t === "" || ind < baseIndent) continue;
    const m = YAML_KEY_RE.exec(t);
    if (!m) continue;
    while (parents.length > 0 && parents[parents.length - 1]!.indent >= ind) parents.pop();
    const own = unquote(m[1]!);
    const key = parents.length > 0 ? `${parents.map((p) => p.key).join(".")}.${own}` : own;
    const raw = (m[2] ?? "").trim();
    if (/^[|>][-+]?$/.test(raw)) {
      const block: string[] = [];
      while (i + 1 < lines.length) {
        const nl = lines[i + 1]!;
        if (nl.trim() !== "" && indentOf(nl) <= ind) break;
        if (nl.trim() === "..." && indentOf(nl) <= baseIndent) break;
        block.push(nl.trim());
        i++;
      }
      into[key] = block.join(raw.startsWith(">") ? " " : "\n").trim();
    } else if (raw === "") {
      parents.push({ indent: ind, key: own });
    } else {
      into[key] = unquote(raw);
    }
  }
  return i;
}

// `key:` or `'quoted key':` (ava quotes keys that hold a colon), then the value.
const YAML_KEY_RE = /^('(?:[^']|'')*'|"(?:[^"\\]|\\.)*"|[A-Za-z_][\w.-]*):(?:\s+(.*)|$)/;

function unquote(v: string): string {
  if (v.startsWith('"') && !(v.length >= 2 && v.endsWith('"'))) return v.slice(1);
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
