/**
 * Python's unittest runner (`python -m unittest`, `-v`): `Ran 9 tests in 0.001s`, then `OK`,
 * `OK (skipped=1)` or `FAILED (failures=1, errors=2, skipped=1, expected failures=1)`, preceded by one
 * `FAIL: test_x (module.Class.test_x)` / `ERROR: ...` block per problem with its traceback.
 *
 * Errors (including a module that failed to import, which unittest reports as an ERROR of a synthetic
 * `_FailedTest`) and unexpected successes count as failures, as `wasSuccessful()` does; expected
 * failures count as skipped.
 *
 * A failed `subTest` is a block of its own (`FAIL: test_x (m.C.test_x) [msg] (i=3)`) counted in
 * `failures=`/`errors=`, while `Ran` counts tests: the counts here are tests (a test with 15 failed
 * subtests is one failed test of the 13 that ran), and each subtest's failure names its test.
 */
import type { TestCase, TestCounts, TestFailure } from "../../types.js";
import { innermostProjectFrame, readTraceback } from "../python-traceback.js";
import { boundMessage, splitLines } from "../util.js";
import { counts, failure, type TestInput } from "./common.js";

const RAN_RE = /^Ran (\d+) tests? in [\d.]+s\s*$/;

export function parseUnittest(input: TestInput): TestCounts | null {
  const { lines, cwd } = input;
  let ranAt = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i]!.startsWith("Ran ") && RAN_RE.test(lines[i]!)) {
      ranAt = i;
      break;
    }
  }
  if (ranAt < 0) return null;
  const ran = Number(RAN_RE.exec(lines[ranAt]!)![1]);
  const stat: Record<string, number> = {};
  for (let i = ranAt + 1; i < lines.length && i <= ranAt + 4; i++) {
    const m = /^(OK|FAILED|NO TESTS RAN)(?: \((.*)\))?\s*$/.exec(lines[i]!.trim());
    if (!m) continue;
    for (const item of (m[2] ?? "").split(",")) {
      const kv = /^\s*([a-z ]+)=(\d+)\s*$/.exec(item);
      if (kv) stat[kv[1]!.trim()] = Number(kv[2]);
    }
    break;
  }
  const reported = (stat.failures ?? 0) + (stat.errors ?? 0) + (stat["unexpected successes"] ?? 0);
  const skipped = (stat.skipped ?? 0) + (stat["expected failures"] ?? 0);

  const failures: TestFailure[] = [];
  // Per failing test, its blocks and whether any is a subtest's.
  const blocks = new Map<string, { n: number; sub: boolean }>();
  const inner = innerRuns(lines, ranAt);
  for (let i = 0; i < ranAt; i++) {
    if (!/^={20,}$/.test(lines[i]!) || inner[i]) continue;
    const head = /^(FAIL|ERROR|UNEXPECTED SUCCESS): (.+)$/.exec(lines[i + 1] ?? "");
    if (!head) continue;
    let j = i + 2;
    if (/^-{20,}$/.test(lines[j] ?? "")) j++;
    const start = j;
    while (j < ranAt && !/^={20,}$/.test(lines[j]!) && !/^-{20,}$/.test(lines[j]!)) j++;
    const t = title(head[2]!);
    const b = blocks.get(t.test) ?? { n: 0, sub: false };
    blocks.set(t.test, { n: b.n + 1, sub: b.sub || t.sub !== undefined });
    const f = blockFailure(t.sub === undefined ? t.test : `${t.test} ${t.sub}`, lines.slice(start, j), cwd);
    failures.push(t.sub === undefined ? f : { ...f, test: t.test });
    i = j - 1;
  }
  // unittest counts each failed subtest (and the test's own failure beside them) in its summary: a test
  // whose blocks include a subtest's is one failed test however many blocks it has.
  let extra = 0;
  for (const b of blocks.values()) if (b.sub) extra += b.n - 1;
  const failedTests = reported - extra;
  // unittest prints a FAIL/ERROR block per failing test before its summary; a summary that counts fewer
  // failures was not printed by unittest alone (the code under test printed "Ran 3 tests ... OK" at exit
  // and scored 1.000), so the blocks count.
  const named = blocks.size;
  if (named > failedTests) {
    const r = counts("unittest", { passed: Math.max(0, ran - named - skipped), failed: named, skipped, total: ran }, failures);
    const of = extra > 0 ? ` (${reported} failures, ${extra} of them more subtests of a test already counted)` : "";
    r.note = `the output names ${named} failing test${named === 1 ? "" : "s"} but its last summary counts ${failedTests}${of}: the named ones count`;
    return r;
  }
  const passed = Math.max(0, ran - failedTests - skipped);
  // The names count when they add up to the summary and every test with a FAIL or ERROR block is one of their
  // failed ones: an outcome line a test printed itself (`ok` after its dots, a `FAIL` under another) swaps none.
  const agree = (cs: TestCase[] | undefined) => {
    const n = (st: TestCase["status"]) => cs?.filter((c) => c.status === st).length ?? -1;
    const failedNames = new Set(cs?.filter((c) => c.status === "failed").map((c) => c.name));
    return !!cs && n("failed") === failedTests && cs.length === ran && n("passed") === passed && [...blocks.keys()].every((b) => failedNames.has(b));
  };
  let cases = verboseCases(lines, ranAt);
  // unittest writes its lines to stderr; a print of the code under test (stdout, unbuffered) can land
  // between a test's name and its outcome as the streams arrive. stderr alone has them whole.
  if (!agree(cases) && input.stderr) {
    const err = splitLines(input.stderr);
    const at = err.findLastIndex((l) => RAN_RE.test(l) && Number(RAN_RE.exec(l)![1]) === ran);
    if (at >= 0) cases = verboseCases(err, at);
  }
  // The names are used only when they are every test and agree with the counts (output interleaved with
  // the outcome lines would otherwise make tests look missing). Python 3.12.1 leaves tests skipped by a
  // decorator out of `Ran` (3.11 and 3.13 count them), while -v and `skipped=` still show them: such a run
  // is tracked by counts, since an `ok` line more than `Ran` may as well be printed by the code under test
  // (unittest does not capture output), and would pass for a test.
  if (agree(cases)) return counts("unittest", { passed, failed: failedTests, skipped, total: ran }, failures, undefined, cases);
  return counts("unittest", { passed, failed: failedTests, skipped, total: ran }, failures);
}

/**
 * The lines a test printed while it ran a suite of its own (a test of a unittest helper runs `TextTestRunner()`,
 * which writes to stderr too): between the test's `-v` line left open (`test_gives_up (…) ... F`) and its
 * outcome on a line of its own, holding that run's `Ran 1 test` summary. Its FAIL blocks are that run's, not
 * this one's (h24: an all-passing run was read as 1 failed, and its right fix held).
 */
function innerRuns(lines: string[], end: number): boolean[] {
  const inside = new Array<boolean>(end).fill(false);
  let open = -1;
  for (let i = 0; i < end; i++) {
    const line = lines[i]!;
    if (open >= 0 && OUTCOME_RE.test(line.trimEnd())) {
      if (lines.slice(open + 1, i).some((l) => RAN_RE.test(l))) inside.fill(true, open + 1, i);
      open = -1;
    } else if (line.includes(" ...") && !line.startsWith(" ")) {
      // With a docstring the dots follow its first line, under the test's own (h29), as in verboseCases.
      const prev = i > 0 && DESCRIPTION_RE.test(lines[i - 1]!) ? `${lines[i - 1]}${line.slice(line.indexOf(" ..."))}` : undefined;
      const m = VERBOSE_RE.exec(line) ?? (prev !== undefined ? VERBOSE_RE.exec(prev) : null);
      if (m ? m[5] === undefined : STARTED_RE.test(line) || (prev !== undefined && STARTED_RE.test(prev))) open = i;
    }
  }
  return inside;
}

// `test_x (pkg.C.test_x) ... ok`; a subtest's line is indented and adds what shows it (`  test_x
// (pkg.C.test_x) [msg] (i=3) ... FAIL`); a test whose subtests print starts with no outcome (`... `).
const VERBOSE_RE = /^( {2})?(\S+) \(([^()\s]+)\)( [[(].*?)?(?:\n.*)? \.\.\.(?: (ok|FAIL|ERROR|skipped\b.*|expected failure|unexpected success))?\s*$/;
const DESCRIPTION_RE = /^(?: {2})?\S+ \([^()\s]+\)(?: [[(].*)?$/;
// A test's own line (or its docstring's) with what the test itself wrote after the dots (a warning logged to
// stderr): its outcome follows on a line of its own.
const STARTED_RE = /^(\S+) \(([^()\s]+)\)(?: [[(].*?)? \.\.\. \S/;
const OUTCOME_RE = /^(ok|FAIL|ERROR|skipped\b.*|expected failure|unexpected success)$/;
// The outcome written straight after what the test wrote without a newline (`... dividing 100%ok`).
const GLUED_RE = /(ok|FAIL|ERROR|expected failure|unexpected success)$/;

const statusOf = (outcome: string): TestCase["status"] =>
  outcome === "ok" ? "passed" : outcome === "FAIL" || outcome === "ERROR" || outcome === "unexpected success" ? "failed" : "skipped";

/**
 * `-v` prints one `test_x (pkg.Class.test_x) ... ok` line per test (a docstring's first line may sit
 * between the name and the dots). From 3.11 a subtest that fails or is skipped prints a line of its own
 * under its test, which then prints its own outcome only if it has one (a failure of its own); the
 * test's status is its worst (failed, then skipped). What a test writes to stderr while it runs (a logged
 * warning) lands after its dots, and its outcome on the next line of its own. Undefined when a test started
 * has no outcome (3.10 prints nothing for a subtest).
 */
function verboseCases(lines: string[], end: number): TestCase[] | undefined {
  const status = new Map<string, TestCase["status"] | undefined>();
  // The test started last whose outcome has not been printed yet, and the outcome glued to the last line it
  // wrote without a newline, which holds unless its outcome follows on a line of its own.
  let pending: string | undefined;
  let glued: TestCase["status"] | undefined;
  // Modules that failed to import (`unittest.loader._FailedTest`): named by the module, not tests.
  const loads = new Set<string>();
  const settle = () => {
    if (pending !== undefined && glued !== undefined && status.get(pending) === undefined) status.set(pending, glued);
    glued = undefined;
  };
  const gluedTo = (text: string) => {
    const g = GLUED_RE.exec(text.trimEnd());
    if (g && pending !== undefined && status.get(pending) === undefined) glued = statusOf(g[1]!);
  };
  for (let i = 0; i < end; i++) {
    const line = lines[i]!;
    const alone = OUTCOME_RE.exec(line.trimEnd());
    if (alone && pending !== undefined && status.get(pending) === undefined) {
      status.set(pending, statusOf(alone[1]!));
      pending = undefined;
      glued = undefined;
      continue;
    }
    let m = line.includes(" ...") ? VERBOSE_RE.exec(line) : null;
    if (!m && line.includes(" ...") && i > 0 && DESCRIPTION_RE.test(lines[i - 1]!)) m = VERBOSE_RE.exec(`${lines[i - 1]}\n${line}`);
    if (!m) {
      // With a docstring the dots follow its first line, under the test's own (`Divide by zero gives None ... <log>`).
      const dots = line.indexOf(" ...");
      const prev = dots >= 0 && i > 0 && DESCRIPTION_RE.test(lines[i - 1]!) ? `${lines[i - 1]}${line.slice(dots)}` : undefined;
      const started = dots >= 0 ? (STARTED_RE.exec(line) ?? (prev !== undefined ? STARTED_RE.exec(prev) : null)) : null;
      if (started) {
        settle();
        pending = testName(started[1]!, started[2]!);
        if (!status.has(pending)) status.set(pending, undefined);
        gluedTo(line.slice(dots + 4));
      } else gluedTo(line);
      continue;
    }
    const name = testName(m[2]!, m[3]!);
    if (m[3]!.startsWith("unittest.loader.")) loads.add(name);
    const outcome = m[5];
    // A subtest line with no outcome is not unittest's; a test's own line without one is its start.
    if (outcome === undefined) {
      if (m[1] === undefined) settle();
      if (m[1] === undefined && !status.has(name)) status.set(name, undefined);
      if (m[1] === undefined) pending = name;
      continue;
    }
    if (m[1] === undefined) {
      settle();
      pending = undefined;
    }
    const st = statusOf(outcome);
    const was = status.get(name);
    if (was === "failed" || (was === "skipped" && st === "passed")) continue;
    status.set(name, st);
  }
  settle();
  const cases: TestCase[] = [];
  for (const [name, st] of status) {
    if (st === undefined) return undefined;
    cases.push({ name, status: st, ...(loads.has(name) ? { load: true as const } : {}) });
  }
  return cases;
}

/**
 * A block's title: `test_mul (tests.test_calc.CalcTest.test_mul)`, a subtest's with what shows it after
 * (` [msg]`, ` (i=3)`, ` [msg] (i=3)`, ` (<subtest>)`).
 */
function title(s: string): { test: string; sub?: string } {
  const t = s.trim();
  const m = /^(\S+) \(([^()\s]+)\)(?: ([[(].*))?$/.exec(t);
  if (m) return m[3] === undefined ? { test: testName(m[1]!, m[2]!) } : { test: testName(m[1]!, m[2]!), sub: m[3] };
  const loose = /^(\S+) \((.+)\)$/.exec(t);
  return { test: loose ? testName(loose[1]!, loose[2]!) : t };
}

/**
 * `test_mul (tests.test_calc.CalcTest.test_mul)` (3.11+) or `test_mul (tests.test_calc.CalcTest)`
 * (older) both name `tests.test_calc.CalcTest.test_mul`, the id `python -m unittest` selects; a module
 * that failed to import is `tests.test_broken (unittest.loader._FailedTest.tests.test_broken)` and is
 * named by the module.
 */
function testName(method: string, id: string): string {
  if (id.startsWith("unittest.loader.") || id.startsWith("unittest.suite.")) return method;
  return id === method || id.endsWith(`.${method}`) ? id : `${id}.${method}`;
}

function blockFailure(name: string, block: string[], cwd?: string): TestFailure {
  // The last traceback of the block is the one that failed the test (earlier ones are its causes).
  let tbAt = -1;
  for (let k = block.length - 1; k >= 0; k--) {
    if (block[k]!.startsWith("Traceback (most recent call last):")) {
      tbAt = k;
      break;
    }
  }
  if (tbAt < 0) return failure(name, boundMessage(block.join("\n")));
  const tb = readTraceback(block, tbAt);
  if (!tb) return failure(name, boundMessage(block.join("\n")));
  const excLine = tb.type ? (tb.message ? `${tb.type}: ${tb.message}` : tb.type) : tb.message;
  const message = boundMessage([excLine ?? "", ...block.slice(tb.end + 1)].join("\n"));
  const frame = innermostProjectFrame(tb.frames, cwd);
  return failure(name, message, frame ? { file: frame.file, line: frame.line } : undefined);
}
