/**
 * pytest's terminal output: the summary line (`=== 3 failed, 5 passed, 1 skipped in 0.12s ===`, or
 * without the rule under `-q`), the FAILURES / ERRORS sections (`___ test_name ___` blocks whose
 * `E   ` lines are the assertion and whose `path.py:12: AssertionError` line is the location) and the
 * short test summary (`FAILED tests/test_a.py::test_x - assert 7 == 6`) that gives the node ids.
 *
 * Errors (a fixture that raised, a module that failed to import during collection) count as failed
 * tests; xfailed counts as skipped and xpassed as passed, as pytest's exit status treats them. A failed
 * subtest (pytest 9) is counted as pytest counts it, in "failed", and named by its test and what pytest
 * shows of it; the counts then say they are in units (TestCounts.units) and how many tests ran.
 */
import type { TestCase, TestCounts, TestFailure } from "../../types.js";
import { boundMessage, normalizePath } from "../util.js";
import { counts, failure, TAIL_LINES, type TestInput } from "./common.js";
import { idBeforeMessage, NODE_ID, reconciled, shortSummaryStatuses, verboseStatuses } from "./pytest-names.js";

const OUTCOME_WORDS =
  "failed|passed|skipped|deselected|xfailed|xpassed|errors?|warnings?|rerun|no tests ran|subtests (?:passed|failed|skipped|xfailed|xpassed)";
// One `N word` item; the summary is a comma-separated list of them followed by ` in 1.23s`.
const SUMMARY_RE = new RegExp(`^(?:=+ )?((?:\\d+ (?:${OUTCOME_WORDS})|no tests ran)(?:, \\d+ (?:${OUTCOME_WORDS}))*) in [\\d.]+s(?: \\([\\d:.]+\\))?(?: =+)?$`);

interface Section {
  /** Empty for `--tb=line` output, which has no per-test headers. */
  title: string;
  kind: "failure" | "error";
  lines: string[];
}

export function parsePytest(input: TestInput): TestCounts | null {
  const { lines, cwd } = input;
  let summaryAt = -1;
  let tallies: Record<string, number> = {};
  // pytest prints one summary; anything the tests run can print another (code under test that prints
  // "3 passed in 0.01s" at exit scored 1.000 over pytest's own "1 failed, 2 passed"). Of several, the
  // one with the most failures counts.
  let summaries = 0;
  for (let i = lines.length - 1; i >= 0 && i >= lines.length - TAIL_LINES; i--) {
    const t = lines[i]!.trim();
    if (!t.includes(" in ") || !/s(?: \([\d:.]+\))?(?: =+)?$/.test(t)) continue;
    const m = SUMMARY_RE.exec(t);
    if (!m) continue;
    summaries++;
    const these: Record<string, number> = {};
    for (const item of m[1]!.split(", ")) {
      const im = /^(\d+) (.+)$/.exec(item);
      if (im) {
        const word = im[2]!.replace(/s$/, "");
        these[word] = (these[word] ?? 0) + Number(im[1]);
      }
    }
    const bad = (x: Record<string, number>) => (x.failed ?? 0) + (x.error ?? 0);
    if (summaryAt < 0 || bad(these) > bad(tallies)) {
      summaryAt = i;
      tallies = these;
    }
  }
  if (summaryAt < 0) return null;
  const passed = (tallies.passed ?? 0) + (tallies.xpassed ?? 0);
  // pytest 9's subtests (its `subtests` fixture, unittest's subTest): each failed subtest is a
  // `SUBFAILED[msg] (i=3) node::id - message` line of its own and counted in "failed", beside its test
  // (which fails with "contains 1 failed subtest", or, for unittest's subTest, passes). The counts are
  // pytest's; the tests are the failed ones less the subtests (identity tracks tests: a fixed subtest is
  // no longer reported at all).
  const nodeIds = readShortSummary(lines, summaryAt);
  const subfailed = nodeIds.filter((n) => n.kind === "subfailure").length;
  const failed = (tallies.failed ?? 0) + (tallies.error ?? 0);
  const skipped = (tallies.skipped ?? 0) + (tallies.xfailed ?? 0);
  // The pytest-subtests plugin (before pytest 9) counts them apart: "1 failed, 2 subtests failed".
  const units = subfailed > 0 && tallies["subtests failed"] === undefined && subfailed <= failed;

  const sections = readSections(lines, summaryAt);
  const index = indexNodeIds(nodeIds);
  const failures: TestFailure[] = [];
  const usedIds = new Set<NodeId>();
  // --tb=line sections have no title: they follow the order of the summary, per kind.
  const inOrder = {
    failure: nodeIds.filter((n) => n.kind === "failure"),
    error: nodeIds.filter((n) => n.kind === "error"),
    subfailure: nodeIds.filter((n) => n.kind === "subfailure"),
  };
  const nextInOrder = { failure: 0, error: 0, subfailure: 0 };
  // A test's "contains 1 failed subtest" section is placed where its first failed subtest failed.
  const subLoc = new Map<string, { file: string; line: number }>();
  for (const s of sections) {
    const { name, kind } = sectionName(s);
    let id: NodeId | undefined;
    if (s.title === "") {
      const list = inOrder[kind];
      while (nextInOrder[kind] < list.length && usedIds.has(list[nextInOrder[kind]]!)) nextInOrder[kind]++;
      id = list[nextInOrder[kind]];
      if (!id) continue;
    } else {
      id = takeNodeId(index, name, kind, usedIds);
    }
    if (id) usedIds.add(id);
    const d = sectionDetails(s.lines, cwd);
    if (kind === "subfailure" && d.loc) {
      const base = (id?.id ?? name).replace(/ [[(].*$/, "");
      if (!subLoc.has(base)) subLoc.set(base, d.loc);
    }
    failures.push(ofTest(failure(id?.id ?? name, d.message ?? id?.message, d.loc ?? (id ? subLoc.get(id.id) : undefined) ?? fileOfNodeId(id?.id, cwd)), id));
  }
  // Failures listed only in the short summary (`--tb=no`, or sections cut by a capped output).
  for (const n of nodeIds) {
    if (usedIds.has(n)) continue;
    failures.push(ofTest(failure(n.id, n.message, fileOfNodeId(n.id, cwd)), n));
  }
  const tally = units ? { passed, failed, skipped, units: "subtests" as const, testsRan: passed + failed - subfailed } : { passed, failed, skipped };
  // The test of each failed subtest: `node::id [msg] (i=3)` is a failed unit of `node::id`.
  const subs = units ? nodeIds.filter((n) => n.kind === "subfailure").map((n) => n.id.slice(0, n.id.indexOf(" "))) : [];
  // Of several summaries one was printed by something else, which may have printed names too: none are used.
  const named =
    summaries > 1
      ? undefined
      : (reconciled(verboseStatuses(lines, summaryAt), passed, skipped, failed, subs) ??
        reconciled(shortSummaryStatuses(lines, summaryAt), passed, skipped, failed, subs));
  const r = counts("pytest", tally, failures, undefined, summaries > 1 ? undefined : withCollectionErrors(named, nodeIds, passed + skipped, failed));
  if (summaries > 1) r.note = `the output holds ${summaries} summary lines (something besides pytest printed one); the one with the most failures counts`;
  return r;
}

/**
 * A test module that failed to import (`ERROR tests/test_x.py`, its collection error) is no test: its tests are
 * unknown until it loads, then they take its place (TestCase.load, test-identity.ts). Added to the named tests; or,
 * when collection was interrupted and nothing else ran, they are the names (each counted unit is one of them).
 */
function withCollectionErrors(named: TestCase[] | undefined, nodeIds: NodeId[], passedOrSkipped: number, failed: number): TestCase[] | undefined {
  const errors = nodeIds.filter((n) => n.kind === "error" && !n.id.includes("::")).map((n) => n.id);
  const files = [...new Set(errors)];
  const loads = files.map((name): TestCase => ({ name, status: "failed", load: "collect" }));
  if (loads.length === 0) return named;
  // A file can error twice (collected as a test module and, under --doctest-modules, as a module of doctests).
  if (!named) return passedOrSkipped === 0 && failed === errors.length ? loads : undefined;
  const kept = named.filter((c) => !files.includes(c.name));
  const failedUnits = kept.reduce((sum, c) => sum + (c.units?.failed ?? (c.status === "failed" ? 1 : 0)), 0) + loads.length;
  return failedUnits <= failed ? [...kept, ...loads] : named;
}

/** A subtest's failure names its test (its node id). */
function ofTest(f: TestFailure, id: NodeId | undefined): TestFailure {
  return id?.kind === "subfailure" ? { ...f, test: id.id.slice(0, id.id.indexOf(" ")) } : f;
}

function fileOfNodeId(id: string | undefined, cwd?: string): { file: string } | undefined {
  if (!id) return undefined;
  const file = id.split("::")[0]!;
  return /\.\w+$/.test(file) ? { file: normalizePath(file, cwd) } : undefined;
}

function readSections(lines: string[], end: number): Section[] {
  const out: Section[] = [];
  let kind: Section["kind"] | null = null;
  let current: Section | null = null;
  for (let i = 0; i < end; i++) {
    const line = lines[i]!;
    if (line.startsWith("=")) {
      const h = /^=+ (FAILURES|ERRORS|short test summary info|warnings summary|PASSES|.*) =+$/.exec(line);
      if (h) {
        kind = h[1] === "FAILURES" ? "failure" : h[1] === "ERRORS" ? "error" : null;
        current = null;
        continue;
      }
    }
    if (kind === null) continue;
    const s = /^_{3,} (.+?) _{3,}$/.exec(line);
    if (s) {
      current = { title: s[1]!, kind, lines: [] };
      out.push(current);
      continue;
    }
    if (current === null) {
      // --tb=line: each failure is its `E` lines closed by one `path.py:12: message` line.
      if (!(line.startsWith("E ") || /^\S+\.py:\d+: /.test(line))) continue;
      current = { title: "", kind, lines: [] };
      out.push(current);
    }
    current.lines.push(line);
    if (current.title === "" && /^\S+\.py:\d+: /.test(line)) current = null;
  }
  return out;
}

function sectionName(s: Section): { name: string; kind: NodeId["kind"] } {
  // A subtest's section: `TestData.test_valid [boolean]`, `test_doubles [double] (i=3)`, `test_one (i=2)`.
  if (s.kind === "failure" && /^\S+ [[(]/.test(s.title)) return { name: s.title, kind: "subfailure" };
  const setup = /^ERROR at (?:setup|teardown) of (.+)$/.exec(s.title);
  if (setup) return { name: setup[1]!, kind: "error" };
  const collecting = /^ERROR collecting (.+)$/.exec(s.title);
  if (collecting) return { name: collecting[1]!, kind: "error" };
  return { name: s.title, kind: s.kind };
}

interface NodeId {
  /** A subtest's is its test's node id, a space and what pytest shows of it: `x.py::test_a [msg] (i=3)`. */
  id: string;
  kind: "failure" | "error" | "subfailure";
  message?: string;
}

function readShortSummary(lines: string[], end: number): NodeId[] {
  const out: NodeId[] = [];
  for (let i = 0; i < end; i++) {
    const line = lines[i]!;
    if (line.startsWith("SUBFAILED")) {
      const sub = subfailedLine(line);
      if (sub) out.push(sub);
      continue;
    }
    if (!(line.startsWith("FAILED ") || line.startsWith("ERROR "))) continue;
    const kind = line.startsWith("FAILED ") ? "failure" : "error";
    const rest = line.slice(kind === "failure" ? 7 : 6);
    const id = idBeforeMessage(rest);
    const dash = rest.indexOf(" - ", id.length);
    // `ERROR tests/x.py` also starts pytest's own error lines ("ERROR: file not found"); require a path. A
    // text file's doctest (`--doctest-glob`) is `README.txt::README.txt`.
    if (!NODE_ID.test(id) && !/^[^\s:]+\.py$/.test(id)) continue;
    const message = dash >= 0 ? rest.slice(dash + 3).trim() : undefined;
    out.push(message ? { id, kind, message } : { id, kind });
  }
  return out;
}

/** `SUBFAILED[msg] (i=3) tests/x.py::test_a - message`: what shows the subtest comes before the node id. */
function subfailedLine(line: string): NodeId | undefined {
  const dash = line.indexOf(" - ");
  const head = dash >= 0 ? line.slice("SUBFAILED".length, dash) : line.slice("SUBFAILED".length);
  // The node id is the path with `.py::` (a parametrized id may hold spaces, a path does not).
  const py = head.indexOf(".py::");
  const space = py < 0 ? -1 : head.lastIndexOf(" ", py);
  const node = head.slice(space + 1).trim();
  const what = head.slice(0, Math.max(0, space)).trim();
  if (space < 0 || what === "" || !/^[^\s:]+\.py::\S/.test(node)) return undefined;
  const message = dash >= 0 ? line.slice(dash + 3).trim() : "";
  return { id: `${node} ${what}`, kind: "subfailure", ...(message ? { message } : {}) };
}

/**
 * Section titles name tests differently from node ids: `TestGroup.test_message` is
 * `tests/x.py::TestGroup::test_message`, `ERROR collecting tests/x.py` is `tests/x.py`. Index the node
 * ids under every title they can have, so that matching stays linear in the number of failures.
 */
function indexNodeIds(ids: NodeId[]): Map<string, NodeId[]> {
  const index = new Map<string, NodeId[]>();
  const add = (key: string, n: NodeId): void => {
    const list = index.get(key);
    if (list) list.push(n);
    else index.set(key, [n]);
  };
  for (const n of ids) {
    const parts = n.id.split("::");
    add(`${n.kind}\u0000${n.id}`, n);
    if (parts.length > 1) add(`${n.kind}\u0000${parts.slice(1).join(".")}`, n);
    // A doctest's section is `[doctest] pkg.mod.func` for `pkg/mod.py::pkg.mod.func` (`[doctest] README.txt`).
    if (parts.length === 2) add(`${n.kind}\u0000[doctest] ${parts[1]}`, n);
  }
  return index;
}

function takeNodeId(index: Map<string, NodeId[]>, name: string, kind: string, used: Set<NodeId>): NodeId | undefined {
  const list = index.get(`${kind}\u0000${name}`);
  if (!list) return undefined;
  while (list.length > 0 && used.has(list[0]!)) list.shift();
  return list.shift();
}

/**
 * The message is the `E   ` lines (pytest's explanation of the assertion); the location is the last
 * `path.py:12: ExceptionType` line, which is where the exception was raised (pytest prints the frames
 * outermost first). Tracebacks in `--tb=short` style have `path.py:12: in func` lines instead.
 */
function sectionDetails(lines: string[], cwd?: string): { message?: string; loc?: { file: string; line: number } } {
  const eLines: string[] = [];
  let loc: { file: string; line: number } | undefined;
  let anyLoc: { file: string; line: number } | undefined;
  for (const line of lines) {
    if (line.startsWith("E ")) {
      eLines.push(line.slice(1).trim());
      continue;
    }
    const m = /^(\S+\.py):(\d+):(?: (.*))?$/.exec(line);
    if (m) {
      const at = { file: normalizePath(m[1]!, cwd), line: Number(m[2]) };
      const what = m[3] ?? "";
      if (what !== "" && !what.startsWith("in ")) loc = at;
      // Collection errors and --tb=short: the innermost `in <func>` frame inside the project.
      if (!at.file.startsWith("/") || cwd === undefined) anyLoc = at;
    }
  }
  // A doctest's: what it expected and what it got, placed at its example (`README.txt:3: DocTestFailure`).
  const expected = eLines.length === 0 ? lines.indexOf("Expected:") : -1;
  if (expected >= 0) {
    const end = lines.findIndex((l, i) => i > expected && l === "");
    eLines.push(...lines.slice(expected, end < 0 ? undefined : end).map((l) => l.trim()));
    const at = lines.map((l) => /^(\S+):(\d+): (?:DocTestFailure|UnexpectedException)$/.exec(l)).findLast((x) => x !== null);
    if (at) loc = { file: normalizePath(at[1]!, cwd), line: Number(at[2]) };
  }
  if (eLines.length === 0) {
    // --tb=line prints `/abs/path.py:15: assert 7 == 6` only.
    const last = lines.findLast((l) => /^\S+\.py:\d+: /.test(l));
    const m = last ? /^(\S+\.py):\d+: (.*)$/.exec(last) : null;
    if (m) eLines.push(m[2]!);
  }
  return { message: boundMessage(eLines.join("\n")), loc: loc ?? anyLoc };
}

/**
 * pytest's session header (platform, cache, root, plugins, benchmark settings, collection): noise in
 * an excerpt whose room belongs to the failure summary at the end.
 */
export function withoutPytestHeader(out: string): string {
  return out
    .split("\n")
    .filter(
      (l) =>
        !/^(platform \S+ -- Python|cachedir: |rootdir: |configfile: |testpaths: |plugins: |benchmark: |hypothesis profile |Using --randomly-seed|collecting \.\.\.|collected \d+ items?|=+ test session starts =+$)/.test(
          l.trim(),
        ),
    )
    .join("\n");
}
