/**
 * Failing first (docs/failing-first.md): after a step whose failing tests were named, the next step runs
 * only those tests first. Pure functions over the parsers' counts: whether that run gives the step's
 * verdict (the selected tests still fail: a partial run), or the whole suite must run (they all pass, or
 * the run does not show how each of them did), and the counts of a partial run, where the tests that did
 * not run keep their status of the last full run.
 */
import { type TestCase, type TestCounts, type TestFailure, unitsOf } from "./types.js";

/** What the evaluator is given to run a step failing first (built by the session, failing-first-plan.ts). */
export interface FailingFirst {
  /** The test command, its `{files}` expanded, with the selection: run as it is. */
  cmd: string;
  /** The tests selected: those that failed at the last full run and at the partial steps since. */
  names: string[];
  /** The step of the last full run, and its tests as read there (before any judgement). */
  since: number;
  full: TestCounts;
  /** The runner whose selection it is, as notices name it. */
  runner: string;
  /**
   * Affected first (affected-first.ts): the step's changed files, whose related tests the runner selects
   * (`names` is then empty: which tests run is the runner's to say).
   */
  related?: string[];
  /** The selection names the selected tests' files too, so whole files may run (ranEverything). */
  byFiles?: boolean;
}

/** Stored with a step whose verdict came from the selected tests alone. */
export interface PartialRun {
  /** The last full run, whose statuses the tests that did not run keep. */
  since: number;
  /** Tests that ran, and how many the suite has (as the last full run counted them). */
  ran: number;
  of: number;
  nowPass: string[];
  stillFail: string[];
}

export type GateVerdict =
  | { partial: PartialRun; tests: TestCounts; notice: string }
  /** The selected run ran every test of the suite (ranEverything): it is the step's full run, as it is. */
  | { full: string }
  | {
      whole: string;
      /** Affected first: how many tests the related run ran (it passed) of the suite's (affected-first.ts). */
      relatedRan?: RelatedRan;
    };

/** Tests the runner related to a step's changes and ran first, of the suite's (counted at the last full run). */
export interface RelatedRan {
  ran: number;
  of: number;
}
export type GateExit = { ok: boolean; timedOut: boolean; code: number | null };

const NAMES_SHOWN = 8;
/** `1 test`, `2 tests`. */
export const tests = (n: number) => `${n} test${n === 1 ? "" : "s"}`;
export const list = (xs: string[]) => `${xs.slice(0, NAMES_SHOWN).join(", ")}${xs.length > NAMES_SHOWN ? `, … (${xs.length} in all)` : ""}`;
const ran = (s: TestCase["status"] | undefined) => s === "passed" || s === "failed";

/** Marks the notice that the selection matched no test (the whole suite then ran). */
export const MATCHED_NOTHING = "Failing first: the selection matched no test";

/**
 * Reads the selected run. A partial verdict only when every selected test is reported as run and at
 * least one test failed; anything less certain runs the whole suite (a deleted, renamed or skipped
 * selected test is then caught there, as at any step).
 */
export function gateVerdict(ff: FailingFirst, read: TestCounts | null, exit: GateExit): GateVerdict {
  const again = `so the whole suite ran`;
  const gate = namedAsFull(ff, read);
  if (exit.timedOut) return { whole: `Failing first: the ${tests(ff.names.length)} selected timed out, ${again}.` };
  if (!gate || gate.passed === null || gate.failed === null)
    return { whole: `Failing first: the output of the selected tests could not be counted, ${again}.` };
  // No test ran, said as such whatever else the output names (bun prints no test list when `-t` matched none).
  if (gate.passed + gate.failed === 0) {
    // Selected tests reported skipped were found: skipped (by the step), not renamed.
    const skipped = ff.names.filter((n) => (gate.cases ?? []).some((c) => c.name === n && c.status === "skipped"));
    if (skipped.length > 0) return { whole: `Failing first: ${list(skipped)} did not run among the selected tests (reported skipped), ${again}.` };
    if (!gate.cases && (gate.skipped ?? 0) > 0)
      return { whole: `Failing first: none of the ${tests(ff.names.length)} selected ran (${gate.skipped} reported skipped), ${again}.` };
    return {
      whole: `${MATCHED_NOTHING} (${ff.runner}: \`${ff.cmd.slice(0, 300)}\`): the tests may have been renamed or the runner ignored the filter, ${again}.`,
    };
  }
  if (gate.units || ff.full.units || !!gate.cases !== !!ff.full.cases)
    return { whole: `Failing first: the selected run's output does not name its tests as the full run's does, ${again}.` };
  if (ranEverything(ff, gate)) return { full: everythingRan("Failing first", ff, gate) };
  // A failed subtest (unittest's `pkg.C.test_x [msg]`) is a failure of its test, the name selected.
  const failedNames = new Set(gate.failures.map(testOf));
  const byName = new Map((gate.cases ?? []).map((c) => [c.name, c.status]));
  const statusOf = (n: string): TestCase["status"] | undefined => (failedNames.has(n) ? "failed" : byName.get(n));
  if (!gate.cases) {
    // Counts and failing names only: each selected test is accounted for only when exactly they ran and
    // every failure is one of them.
    const exact =
      gate.passed + gate.failed === ff.names.length && failingTests(gate.failures) === gate.failed && [...failedNames].every((n) => ff.names.includes(n));
    if (!exact)
      return {
        whole: `Failing first: ${tests(gate.passed + gate.failed)} ran for the ${ff.names.length} selected, so the output does not show how each of them did; ${again}.`,
      };
  }
  const status = new Map(ff.names.map((n) => [n, gate.cases ? statusOf(n) : failedNames.has(n) ? "failed" : "passed"] as const));
  const notRun = ff.names.filter((n) => !ran(status.get(n)));
  if (notRun.length > 0) return { whole: `Failing first: ${list(notRun)} did not run among the selected tests (renamed, deleted or skipped), ${again}.` };
  const stillFail = ff.names.filter((n) => status.get(n) === "failed");
  const nowPass = ff.names.filter((n) => status.get(n) === "passed");
  // A test the selection ran beyond the names (a runner selecting more, never less) that fails is a failure too.
  const extra = (gate.cases ?? []).filter((c) => c.status === "failed" && !status.has(c.name)).map((c) => c.name);
  if (stillFail.length + extra.length === 0) {
    if (!exit.ok) return { whole: `Failing first: the ${tests(ff.names.length)} selected pass but the run exited ${exit.code ?? "killed"}, ${again}.` };
    return {
      whole: `Failing first: the ${tests(ff.names.length)} that failed ${failedWhen(ff)} pass${ff.names.length === 1 ? "es" : ""} now, so the whole suite ran.`,
    };
  }
  const merged = merge(ff, gate, nowPass, stillFail);
  const partial: PartialRun = { since: ff.since, ran: merged.ran, of: merged.of, nowPass, stillFail: [...stillFail, ...extra] };
  const rest = merged.of - merged.ran;
  const notice =
    `Failing first (partial run, ran ${merged.ran} of ${merged.of}): only the ${tests(ff.names.length)} that failed ${failedWhen(ff)} ran, through ${ff.runner}'s own selection. ` +
    `${nowPass.length ? `Now pass: ${list(nowPass)}. ` : ""}Still fail: ${list(partial.stillFail)}. ` +
    `The other ${rest} did not run: they count as they were at step ${ff.since}, the last full run. A partial step cannot become best, reset the no-improvement streak or end the session; the whole suite runs once the selected tests pass (selectTests: false turns this off).`;
  return { partial, tests: merged.tests, notice };
}

/**
 * The selected run's counts, named only where the full run's are: an output that names only the failing
 * tests (pytest -q's short summary) names every test of a run where all of them failed, as a selected run's
 * often do, while the full run stays counted.
 */
export function namedAsFull(ff: FailingFirst, gate: TestCounts | null): TestCounts | null {
  if (!gate?.cases || ff.full.cases) return gate;
  const { cases: _unnamed, ...counted } = gate;
  return counted;
}

/**
 * Whether the selected run ran every test the last full run ran: a command that names tests of its own
 * (`pytest … tests`, a folder) runs them besides the selection. That run is then the step's full run: taken as
 * partial it could never become best, and once passing it would run again. Told by name, and by file where
 * the full run names each test's file; a selection that may run whole files (byFiles, affected first) counts
 * only then, since a candidate could give a test in a selected file the name of one elsewhere.
 */
export function ranEverything(ff: FailingFirst, gate: TestCounts): boolean {
  const full = ff.full.cases;
  if (!full?.length || !gate.cases) return false;
  if ((ff.byFiles || ff.related) && full.some((c) => c.file === undefined)) return false;
  const key = (c: TestCase) => `${c.file ?? ""}\u0000${c.name}`;
  // Ran, not only reported: runners report the tests a filter left out as skipped (node-tap, node --test).
  const ranNow = new Set(gate.cases.filter((c) => ran(c.status)).map(key));
  return full.every((c) => !ran(c.status) || ranNow.has(key(c)));
}

export const everythingRan = (what: string, ff: FailingFirst, gate: TestCounts) =>
  `${what}: the selected run (\`${ff.cmd.slice(0, 300)}\`) ran all ${tests(gate.cases?.length ?? 0)}, every one of the last full run's: the test command names tests of its own, which ${ff.runner} runs besides the selection. That run is this step's full run. With this command the selection saves nothing: a test command that names no test folders or files lets it run alone (selectTests: false turns it off).`;

/** The test a failure is of: itself, or the test of a failed subtest. */
export const testOf = (f: TestFailure): string => f.test ?? f.name;

/** The failing tests a list of failures stands for: each failure, a test's failed subtests (and its own failure) once. */
function failingTests(failures: TestFailure[]): number {
  const plain = failures.filter((f) => f.test === undefined);
  const names = new Set(plain.map((f) => f.name));
  return plain.length + new Set(failures.flatMap((f) => (f.test !== undefined && !names.has(f.test) ? [f.test] : []))).size;
}

/** When the selected tests failed, as notices say it: at the last full run, or at a partial step since (affected first). */
const failedWhen = (ff: FailingFirst) => (ff.full.failed ? `at step ${ff.since}` : `after step ${ff.since}`);

/** The partial run's counts: the selected tests as they ran now, every other as at the last full run. */
function merge(ff: FailingFirst, gate: TestCounts, nowPass: string[], stillFail: string[]): { tests: TestCounts; ran: number; of: number } {
  const full = ff.full;
  if (gate.cases && full.cases) return mergeCases(full, gate);
  // Counts only (every selected test accounted for, gateVerdict): a test that passes now moves from failed
  // to passed if it failed at the full run; one that fails now and did not (it failed at an affected-first
  // step since) moves from passed to failed.
  const before = new Set(full.failures.map(testOf));
  const passed = Math.max(0, full.passed! + nowPass.filter((n) => before.has(n)).length - stillFail.filter((n) => !before.has(n)).length);
  const skipped = full.skipped;
  const total = skipped === null ? null : passed + stillFail.length + skipped;
  return { tests: { ...gate, passed, failed: stillFail.length, skipped, total }, ran: ff.names.length, of: passed + stillFail.length };
}

/**
 * The counts where both runs name every test. Two tests may share a name (Express has such; a candidate may
 * add one): the tests that ran take the places of the full run's of that name in order, each counted once;
 * more of a name than before are added. `skips`: the run selected no names (affected first), so a test it
 * reports skipped is skipped by the step, not left out by a name filter, and counts so (never as it passed).
 */
export function mergeCases(full: TestCounts, gate: TestCounts, skips = false): { tests: TestCounts; ran: number; of: number } {
  const ranNow = (gate.cases ?? []).filter((c) => ran(c.status));
  const now = new Map<string, TestCase[]>();
  for (const c of skips ? (gate.cases ?? []) : ranNow) now.set(c.name, [...(now.get(c.name) ?? []), c]);
  const all = [...(full.cases ?? []).map((c) => now.get(c.name)?.shift() ?? c), ...[...now.values()].flat()];
  const sum = (k: "passed" | "failed" | "skipped") => all.reduce((n, c) => n + unitsOf(c)[k], 0);
  const passed = sum("passed");
  const failed = sum("failed");
  const skipped = sum("skipped");
  return { tests: { ...gate, passed, failed, skipped, total: passed + failed + skipped, cases: all }, ran: ranNow.length, of: all.length };
}
