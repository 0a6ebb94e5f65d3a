/**
 * Affected first (docs/failing-first.md): a step after a full run without failures first runs the tests
 * the runner itself relates to the files the step changed (`vitest related`, `jest --findRelatedTests`;
 * no import graph of code-trm's own). When one of them fails, that run is the step's verdict, a partial
 * run as failing first's; when they pass, the runner relates no test, or the run cannot be read, the whole
 * suite runs. The verdict of the related run, a pure function (the plan: failing-first-plan.ts).
 */
import {
  everythingRan,
  type FailingFirst,
  type GateExit,
  type GateVerdict,
  list,
  mergeCases,
  namedAsFull,
  type PartialRun,
  type RelatedRan,
  ranEverything,
  testOf,
  tests,
} from "./failing-first.js";
import type { TestCase, TestCounts } from "./types.js";

/**
 * Reads the related run. A partial verdict only when a test failed in it; the tests that did not run count
 * as at the last full run (where none failed). Where only counts and failing names are printed, each test
 * failing now is taken to have passed there (a new test is then one passing test too few: never more).
 */
export function relatedVerdict(ff: FailingFirst, read: TestCounts | null, exit: GateExit): GateVerdict {
  const gate = namedAsFull(ff, read);
  const files = list(ff.related ?? []);
  const what = `the tests ${ff.runner} relates to ${files}`;
  const again = "so the whole suite ran";
  if (exit.timedOut) return { whole: `Affected first: ${what} timed out, ${again}.` };
  if (!gate || gate.passed === null || gate.failed === null)
    return { whole: `Affected first: the output of ${what} could not be counted (it may relate none), ${again}.` };
  if (gate.units || ff.full.units || !!gate.cases !== !!ff.full.cases)
    return { whole: `Affected first: the related run's output does not name its tests as the full run's does, ${again}.` };
  const ranNow = gate.passed + gate.failed;
  if (ranNow === 0) return { whole: `Affected first: ${ff.runner} relates no test to ${files}, ${again}.` };
  if (ranEverything(ff, gate)) return { full: everythingRan("Affected first", ff, gate) };
  const failing = [...new Set([...gate.failures.map(testOf), ...(gate.cases ?? []).filter((c) => c.status === "failed").map((c) => c.name)])];
  if (gate.failed === 0 && failing.length === 0) {
    if (!exit.ok)
      return {
        whole: `Affected first: the ${tests(ranNow)} ${ff.runner} relates to ${files} pass${ranNow === 1 ? "es" : ""} but the run exited ${exit.code ?? "killed"}, ${again}.`,
      };
    const of = ff.full.passed! + ff.full.failed!;
    // A runner that relates most of the suite to a change (every test imports one index) makes each passing
    // step pay for the suite nearly twice: affected first stops for the session (affectedFirstPlan).
    const most = ranNow * 2 > of;
    return {
      whole: `Affected first: the ${tests(ranNow)} ${ff.runner} relates to ${files} pass${ranNow === 1 ? "es" : ""}, ${again}${most ? `; they are most of the suite's ${of}, so affected first stops for this session (it would cost a passing step nearly two runs)` : ""}.`,
      relatedRan: { ran: ranNow, of },
    };
  }
  const gone = goneRelated(ff, gate);
  if (gone.length > 0)
    return {
      whole: `Affected first: ${list(gone)} of the files the step changed or ${ff.runner} related to them did not run (deleted or renamed), ${again}.`,
    };
  const merged = gate.cases && ff.full.cases ? mergeCases(ff.full, gate, true) : mergeCounts(ff.full, gate);
  const partial: PartialRun = { since: ff.since, ran: merged.ran, of: merged.of, nowPass: [], stillFail: failing };
  const rest = merged.of - merged.ran;
  const notice =
    `Affected first (partial run, ran ${merged.ran} of ${merged.of}): only the tests ${ff.runner} relates to the changed files (${files}) ran, through its own selection (\`${ff.cmd.slice(0, 300)}\`). ` +
    `Failing: ${failing.length ? list(failing) : `${gate.failed} (unnamed)`}. The other ${rest} did not run: they count as they were at step ${ff.since}, the last full run. ` +
    "A partial step cannot become best, reset the no-improvement streak or end the session; the whole suite runs once the failing tests pass (selectTests: false turns this off).";
  return { partial, tests: merged.tests, notice };
}

/**
 * Tests of the last full run that the related run did not report, in a file it ran or the step changed, where
 * both name each test's file (TestCase.file): the step deleted or renamed them (or the file). Kept at their
 * status of the last full run, a deleted passing test would make the estimate overstate; the whole suite
 * judges them instead (the reference rules: a test gone counts as failing). Tests sharing a name and a file
 * each count once. Where the output names no file per test (counts only, JUnit) nothing can be told: see
 * docs/failing-first.md.
 */
function goneRelated(ff: FailingFirst, gate: TestCounts): string[] {
  if (!gate.cases || !ff.full.cases) return [];
  const key = (c: TestCase) => `${c.file}\0${c.name}`;
  const now = new Map<string, number>();
  for (const c of gate.cases) now.set(key(c), (now.get(key(c)) ?? 0) + 1);
  const files = new Set([...gate.cases.flatMap((c) => (c.file ? [c.file] : [])), ...(ff.related ?? [])]);
  const gone: string[] = [];
  for (const c of ff.full.cases) {
    if (!c.file || !files.has(c.file)) continue;
    const n = now.get(key(c)) ?? 0;
    if (n > 0) now.set(key(c), n - 1);
    else gone.push(c.name);
  }
  return gone;
}

/**
 * Counts only: the failures now, every other test as it was (passing; the full run had no failure). More
 * skipped in the related run than in the whole suite before are the step's skips: they no longer pass.
 */
function mergeCounts(full: TestCounts, gate: TestCounts): { tests: TestCounts; ran: number; of: number } {
  const failed = gate.failed!;
  const skips = gate.skipped !== null && full.skipped !== null ? Math.max(0, gate.skipped - full.skipped) : 0;
  const passed = Math.max(0, full.passed! - failed - skips);
  const skipped = full.skipped === null ? null : full.skipped + skips;
  const ran = gate.passed! + failed;
  return { tests: { ...gate, passed, failed, skipped, total: skipped === null ? null : passed + failed + skipped }, ran, of: Math.max(ran, passed + failed) };
}

/** Whether a related run ran most of the suite: affected first cannot pay for itself in this session. */
export const relatesMost = (r: RelatedRan | undefined): boolean => !!r && r.ran * 2 > r.of;
