/**
 * Judges an evaluation's tests against the session's history (test-identity.ts, unconfirmed.ts) and
 * re-derives the figures that depend on it. Idempotent: an evaluation already judged (stored, or reused
 * from the cache in another history) is first brought back to its raw counts.
 */

import { quoted } from "../util/text.js";
import type { CheckSpec, Evaluation } from "./evaluate.js";
import { MAX_CASES } from "./parsers/tests/common.js";
import { runnerOfCommand } from "./runners/index.js";
import { fmt, testScore, testsPassed, testsScore, type Weights, weightedScore } from "./score.js";
import { checkWeights } from "./score-evaluation.js";
import {
  adjustCounts,
  identityMatters,
  judgeTests,
  type KnownCounts,
  knownCounts,
  LOST_MARK,
  ranTests,
  rawCounts,
  type TestHistoryPoint,
} from "./test-identity.js";
import { identityNotice } from "./test-identity-words.js";
import { FOLLOWS_EXIT, STOPPED_FORMAT, type TestCounts, unitsOf } from "./types.js";
import { unconfirmedNotice, unconfirmedTests } from "./unconfirmed.js";

/** An earlier evaluated point of the history; `note.testFiles` says which test files its step changed. */
export interface JudgePoint {
  step: number;
  evaluation: Evaluation;
  note?: { testFiles?: { path: string }[] };
}

export interface JudgeOptions {
  /** Test files this step changed (added, modified or deleted). */
  changedTests?: string[];
  /** Lines the step's tree adds against the baseline that mark a test as expected to fail (expected-failures.ts). */
  expectedFailures?: string[];
  /** The files the step's tree changed against the baseline, when all are test files. */
  onlyTests?: string[];
  /**
   * The files the step changed against the last earlier point not held for its test edits (`sinceLastStep`;
   * the last of `earlier` by default), when all are test files.
   */
  onlyTestsSinceLast?: string[];
  sinceLastStep?: number;
}

/**
 * The last point of `earlier` whose test signal was not held for its test edits: a step held for changing only
 * the tests is no footing for the next (h33: a README line after a held weakening ended the session).
 */
export function lastUnheldPoint<P extends JudgePoint>(earlier: P[]): P | undefined {
  for (let i = earlier.length - 1; i >= 0; i--) if (!earlier[i]!.evaluation.notices?.some(isTestsOnlyHold)) return earlier[i];
  return undefined;
}

/**
 * Passed and failed read and the tests named, only the skipped count (or the total) unknown: tape prints
 * nothing for test.skip. Such a run is judged by name like one with full counts (a deleted or skipped
 * failing test scored 1.000 while it took the counts-unknown path); its unknown counts stay unknown.
 */
function namedCounts(t: TestCounts | null | undefined): KnownCounts | null {
  if (!t || knownCounts(t) || t.passed === null || t.failed === null || !t.cases?.length) return null;
  const skipped = t.skipped ?? t.cases.reduce((n, c) => n + unitsOf(c).skipped, 0);
  return { ...t, skipped, total: t.passed + t.failed + skipped } as KnownCounts;
}

/** The test counts an evaluation had before any judgement. */
export function rawTests(ev: Evaluation): Evaluation["tests"] {
  if (knownCounts(ev.tests)) return rawCounts(ev.tests, ev.testIdentity);
  const named = namedCounts(ev.tests);
  if (named) return { ...rawCounts(named, ev.testIdentity), skipped: ev.tests!.skipped, total: ev.tests!.total };
  const n = ev.testIdentity?.unconfirmed?.length ?? 0;
  if (!ev.tests || n === 0) return ev.tests;
  const t = ev.tests;
  return {
    ...t,
    failed: t.failed === null ? null : t.failed - n,
    total: t.total === null ? null : t.total - n,
    failures: t.failures.filter((f) => !f.message?.startsWith(LOST_MARK)),
  };
}

export function judgeEvaluation(
  ev: Evaluation,
  step: number,
  earlier: JudgePoint[],
  weights: Weights,
  checks: CheckSpec[],
  opts: JudgeOptions = {},
): Evaluation {
  // No test command, or its run skipped (cascade, a failed quick gate): nothing to judge.
  if (!ev.commands.test || ev.commands.test.skipped) return ev;
  const named = namedCounts(ev.tests);
  let judged: Evaluation;
  if (named) {
    const j = judgeKnown({ ...ev, tests: named }, step, earlier, weights, checks);
    judged = { ...j, tests: { ...j.tests!, skipped: ev.tests!.skipped, total: ev.tests!.total } };
  } else
    judged = knownCounts(ev.tests) ? judgeKnown(ev, step, earlier, weights, checks) : judgeUnknown(ev, step, earlier, weights, checks, opts.changedTests ?? []);
  judged = heldForTestEdits(judged, earlier, weights, checks, opts);
  return formatChanged(withoutReference(judged, earlier, opts.changedTests ?? []), earlier, weights, checks);
}

const EXPECTED_FAILURE_MARK = "This step marks tests as expected to fail";
const ONLY_TESTS_MARK = "Since the baseline only test files changed";
const SINCE_STEP_RE = /^Since step \d+ only test files changed/;
/** A notice of a step held for changing only the tests, since the baseline or since a step. */
const isTestsOnlyHold = (n: string): boolean => n.startsWith(ONLY_TESTS_MARK) || SINCE_STEP_RE.test(n);

/**
 * Test edits whose effect the report cannot tell from a fix, held at the test signal of the first point that
 * ran tests, and never the session's end:
 * - a line that marks a test as expected to fail (`test.failing`), added since the baseline: several
 *   reports print such a test that still fails as a pass (AVA's TAP, Vitest's JSON, Jest's text), so marking
 *   the failing test looked like fixing it (where the report did count it as not passing, the reference
 *   rules have already held it lower);
 * - a tree that changed nothing but test files since the baseline and shows more passing than there: only
 *   the tests changed, so a failing test that passes now checks less than it did (assertions removed: AVA's
 *   slugify scored 1.000 and ended the session). A test that was itself wrong is fixed in the checkout,
 *   before a session.
 */
function heldForTestEdits(ev: Evaluation, earlier: JudgePoint[], weights: Weights, checks: CheckSpec[], opts: JudgeOptions): Evaluation {
  const notices = ev.notices.filter((n) => !n.startsWith(EXPECTED_FAILURE_MARK) && !isTestsOnlyHold(n));
  const ref = referencePoint(earlier);
  const cap = ref?.evaluation.components.test;
  const marks = opts.expectedFailures ?? [];
  const rose = ev.testsPass || (cap !== undefined && (ev.components.test ?? 0) > cap);
  const last = opts.sinceLastStep === undefined ? earlier[earlier.length - 1] : earlier.find((e) => e.step === opts.sinceLastStep);
  // A code attempt that failed, left in place, and then the failing test changed alone: the step is tests only
  // since the one before it (h29), though not since the baseline.
  // The step before may be the reference itself (no preflight: a first code attempt that failed).
  const sinceLast = !opts.onlyTests?.length && opts.onlyTestsSinceLast?.length && last && ref && passesNow(ev, last, ref);
  const onlyTests = opts.onlyTests?.length && rose ? opts.onlyTests : sinceLast ? opts.onlyTestsSinceLast : undefined;
  if (marks.length === 0 && !onlyTests) return notices.length === ev.notices.length ? ev : { ...ev, notices };
  // With no earlier point that ran tests (the baseline timed out) there is nothing to rise above: failing (h24).
  const test = Math.min(ev.components.test ?? 0, cap ?? 0);
  const held = `${cap !== undefined ? `the test signal is ${heldAt(test, ref!.step)}` : "the test signal counts as failing, as no earlier point ran the tests"}, and this step cannot end the session`;
  if (onlyTests && !sinceLast)
    notices.unshift(
      `${ONLY_TESTS_MARK} (${onlyTests.map((f) => quoted(f, 120)).join(", ")}), so a test that failed there and passes now checks less than it did: ${held}. Fix the code under test; a test that was itself wrong is corrected in the checkout, before a session.`,
    );
  else if (onlyTests)
    notices.unshift(
      `${ONLY_TESTS_MARK.replace("the baseline", `step ${last!.step}`)} (${onlyTests.map((f) => quoted(f, 120)).join(", ")}), and a test that failed at step ${ref!.step}${last === ref ? "" : ` and did not pass at step ${last!.step}`} passes now: it checks less than it did, so ${held}. Fix the code under test (trm_undo takes back a code change that did not fix it); a test that was itself wrong is corrected in the checkout before a session, or in the same step as the code.`,
    );
  if (marks.length)
    notices.unshift(
      `${EXPECTED_FAILURE_MARK} (${marks.join(", ")}), and a test so marked that still fails is reported as passing by some reports: it would look like a fix. So ${held}. Fix the code under test and leave the test unmarked.`,
    );
  const components = { ...ev.components, test };
  return { ...ev, notices, components, testsPass: false, score: weightedScore(components, weights, checkWeights(checks)) };
}

/**
 * A test that failed at the reference and did not pass at the step before passes now (by name), or, where a
 * point names no test, the test signal rose above the step before's while the reference's was below 1. A file
 * that failed to load at the reference failed with every test it holds, which it did not name: a name the
 * reference does not know is one of them (h34: its failing assertion made to fit a wrong fix scored 1.000).
 */
function passesNow(ev: Evaluation, last: JudgePoint, ref: JudgePoint): boolean {
  const statuses = (t: TestHistoryPoint["tests"] | undefined) => (t?.cases ? new Map(t.cases.map((c) => [c.name, c.status])) : undefined);
  const [now, before, atRef] = [statuses(ev.tests), statuses(testsOf(last)), statuses(testsOf(ref))];
  const unloaded = testsOf(ref)?.cases?.some((c) => c.load) ?? false;
  const failedAtRef = (name: string) => atRef?.get(name) === "failed" || (unloaded && !atRef?.has(name));
  if (now && before && atRef) return [...now].some(([name, st]) => st === "passed" && failedAtRef(name) && before.get(name) !== "passed");
  return (ev.components.test ?? 0) > (last.evaluation.components.test ?? 0) && (ref.evaluation.components.test ?? 0) < 1;
}

const FORMAT_MARK = "The test output changed format";

/**
 * The same test command prints in the same format at every step. Output read as another runner's (go
 * test -v read as cargo because the code under test printed a cargo summary and exited 0: 1.000 and
 * "success") was not printed by the runner alone, so its counts are not believed: a passing run's test
 * signal fails. A failing run's may not rise above the reference's: a Jest-style JSON report printed at
 * exit, naming every test passing but one, outscored the honest steps and became best. Chains are left
 * out: their formats follow which parts ran.
 */
function formatChanged(ev: Evaluation, earlier: JudgePoint[], weights: Weights, checks: CheckSpec[]): Evaluation {
  const notices = ev.notices.filter((n) => !n.startsWith(FORMAT_MARK));
  const now = ev.tests?.format;
  const first = referencePoint(earlier);
  // A reference that loaded no test printed no report (`mocha --reporter json` at a module's load error): only the
  // command's own words bind a format then (h27: code printing a TAP report after such a baseline scored 1.000).
  const cmd = ev.commands.test?.cmd ?? "";
  const was = first?.evaluation.tests?.loadFailed ? runnerOfCommand(cmd)?.reportFormat?.(cmd) : first?.evaluation.tests?.format;
  if (!now || !was || now === was || now.includes("+") || was.includes("+") || now === STOPPED_FORMAT) {
    return notices.length === ev.notices.length ? ev : { ...ev, notices };
  }
  const cap = first!.evaluation.components.test ?? 0;
  // A failing run at or below the reference (a crash read by a fallback parser: a JUnit report not written) keeps its signal.
  if (!ev.testsPass && (ev.components.test ?? 0) <= cap) return notices.length === ev.notices.length ? ev : { ...ev, notices };
  const test = ev.testsPass ? 0 : cap;
  notices.unshift(
    `${FORMAT_MARK}: step ${first!.step} ${first!.evaluation.tests?.loadFailed ? `loaded no test, and the command's reporter prints ${was}` : `printed ${was}`}, this step ${now}, with the same test command. Something besides the runner printed it (the code under test, a changed script or configuration), so ${ev.testsPass ? "the test signal counts as failing" : `the test signal is ${heldAt(test, first!.step)}`}.`,
  );
  const components = { ...ev.components, test };
  return { ...ev, notices, components, testsPass: false, score: weightedScore(components, weights, checkWeights(checks)) };
}

/** The first point of the history that ran tests: the reference, as judgeTests finds it in the same history (testsOf). */
export const referencePoint = (earlier: JudgePoint[]): JudgePoint | undefined => earlier.find((e) => ranTests(testsOf(e)));

/** How a held test signal is said, in every rule that holds one at an earlier point's. */
const heldAt = (test: number, step: number): string => `held at ${fmt(test)}, no higher than step ${step}'s`;

const testsOf = (e: JudgePoint): TestHistoryPoint["tests"] => {
  if (e.evaluation.commands.test?.skipped) return null;
  const t = rawTests(e.evaluation);
  return namedCounts(t) ?? t;
};

function judgeKnown(ev: Evaluation, step: number, earlier: JudgePoint[], weights: Weights, checks: CheckSpec[]): Evaluation {
  const raw = rawCounts(ev.tests as Parameters<typeof rawCounts>[0], ev.testIdentity);
  const oldNotice = identityNotice(ev.testIdentity);
  const history: TestHistoryPoint[] = earlier.map((e) => ({ step: e.step, tests: testsOf(e) }));
  const id = judgeTests(raw, step, history);
  const tests = adjustCounts(raw, id);
  const notice = identityNotice(id);
  const notices = ev.notices.filter((n) => n !== oldNotice && !n.startsWith(NO_REFERENCE_MARK) && !n.startsWith(NAMES_LOST_MARK));
  if (notice) notices.unshift(notice);
  const test = ev.commands.test;
  const ran = !!test && test.exitCode === 0 && !test.timedOut;
  // A run that failed with every test passing (a coverage gate: score-evaluation.ts) counts one failure more,
  // so that it stays below a step that passes: at 1 it kept best over the real success.
  const gated = !ran && test && !test.timedOut && tests.failed === 0 && tests.passed > 0 ? 1 : 0;
  const lost = id?.namesLost;
  const byCounts = testScore(tests.passed, tests.passed + tests.failed + gated);
  // Names lost against a reference that had them: counts cannot rule out a swapped failing test, so the step
  // may not rise above the reference's test signal nor end the session; a legitimate step whose names were
  // lost (a new test printing among the runner's lines) keeps what its counts show up to that.
  const held = lost === undefined ? undefined : Math.min(byCounts, earlier.find((e) => e.step === lost)?.evaluation.components.test ?? 0);
  if (lost !== undefined) notices.unshift(namesLostNotice(lost, held!));
  const components = { ...ev.components, test: held ?? byCounts };
  const judged: Evaluation = {
    ...ev,
    tests,
    notices,
    components,
    testsPass: tests.total > 0 && tests.failed === 0 && ran && !ev.partial && lost === undefined,
    score: weightedScore(components, weights, checkWeights(checks)),
  };
  if (identityMatters(id)) judged.testIdentity = id;
  else delete judged.testIdentity;
  return judged;
}

const NAMES_LOST_MARK = "The test output no longer names every test";
const namesLostNotice = (step: number, held: number) =>
  `${NAMES_LOST_MARK} (step ${step} named each, and this step's names do not add up to its counts): by counts alone a failing test swapped for a new passing one looks like a fix, so this step's test signal is ${heldAt(held, step)}, and it cannot end the session. Output printed among the runner's lines (a test's, the code under test's), a changed test command or reporter, or over ${MAX_CASES} tests can cause it: trm_read_log shows the output.`;

const UNREADABLE_MARK = "The test output can no longer be read";
// The evaluator's notice of an unreadable or partly counted output says the score follows the exit code;
// where the judge fails the signal instead, it says so (and says it again when re-judged elsewhere).
const INSTEAD_OF_EXIT = "and the test score counts as failing instead of following the exit code";
const UNCONFIRMED_RE = /^\d+ tests? that failed at an earlier step (is|are) no longer reported/;

/**
 * Counts the output does not show (null): the test signal follows the exit code (score.ts), unless
 * - earlier steps of this history showed their tests: a candidate must not trade readable failures for
 *   an unreadable pass (a test script replaced by `echo ok`, a reporter switched off);
 * - a test that failed earlier is no longer reported and its test file changed since (unconfirmed.ts).
 */
function judgeUnknown(ev: Evaluation, step: number, earlier: JudgePoint[], weights: Weights, checks: CheckSpec[], changed: string[]): Evaluation {
  const test = ev.commands.test;
  const exitOk = !!test && test.exitCode === 0 && !test.timedOut;
  let tests = rawTests(ev);
  let notices = ev.notices
    .filter((n) => !n.startsWith(UNREADABLE_MARK) && !UNCONFIRMED_RE.test(n) && !n.startsWith(NO_REFERENCE_MARK))
    .map((n) => n.replace(INSTEAD_OF_EXIT, FOLLOWS_EXIT));
  let testsPass = testsPassed(tests, exitOk);
  const byExit = testsScore(tests, exitOk);
  let component = byExit;
  let testIdentity: Evaluation["testIdentity"];
  const shown = earlier.filter((e) => !e.evaluation.commands.test?.skipped && ranTests(e.evaluation.tests));
  const last = shown[shown.length - 1];
  // Passed and failed read, only the skipped count unknown (tape prints nothing for test.skip): the
  // output is still read and scored by its counts, whatever an earlier step's output showed.
  const read = !!tests && tests.passed !== null && tests.failed !== null;
  if (last && testsPass && !read) {
    const t = last.evaluation.tests!;
    notices.unshift(
      `${UNREADABLE_MARK}, although step ${last.step} reported ${t.passed! + t.failed!} tests by its output: the test signal counts as failing instead of following the exit code. If the candidate changed the test command's script or reporter, restore it.`,
    );
    component = 0;
    testsPass = false;
  }
  const points = earlier.map((e) => ({ step: e.step, tests: testsOf(e), testFiles: e.note?.testFiles?.map((f) => f.path) ?? [] }));
  const unconfirmed = tests ? unconfirmedTests(tests, step, changed, points, LOST_MARK) : [];
  if (tests && unconfirmed.length > 0) {
    const t: TestCounts = tests;
    const n = unconfirmed.length;
    tests = {
      ...t,
      failed: t.failed === null ? null : t.failed + n,
      total: t.total === null ? null : t.total + n,
      failures: [
        ...t.failures,
        ...unconfirmed.map((u) => ({
          name: u.name,
          message: `${LOST_MARK}not reported since step ${u.since} changed ${u.file ?? "a test file"}; the output does not show whether it passes`,
        })),
      ],
    };
    notices.unshift(unconfirmedNotice(unconfirmed, t.note));
    component = 0;
    testsPass = false;
    testIdentity = { lost: [], extraSkipped: 0, unconfirmed };
  }
  // A conftest.py calling os._exit(0) printed nothing after readable steps: "follows the exit code (0:
  // pass)" beside "counts as failing instead" contradicted the score.
  if (component < byExit) notices = notices.map((n) => n.replace(FOLLOWS_EXIT, INSTEAD_OF_EXIT));
  const components = { ...ev.components, test: component };
  const judged: Evaluation = { ...ev, tests, notices, components, testsPass, score: weightedScore(components, weights, checkWeights(checks)) };
  if (testIdentity) judged.testIdentity = testIdentity;
  else delete judged.testIdentity;
  return judged;
}

const NO_REFERENCE_MARK = "No earlier point of this session shows which tests ran";

/**
 * A step that changes test files while no earlier point of the history ran the tests readably has
 * nothing to be compared with: it may have deleted or skipped the failing test, so it cannot end the
 * session as a success (the submit runs the baseline's tests first when it can: lazy-preflight.ts).
 */
function withoutReference(ev: Evaluation, earlier: JudgePoint[], changed: string[]): Evaluation {
  if (changed.length === 0 || !ev.testsPass || !ev.commands.test) return ev;
  const ran = earlier.some((e) => {
    const t = e.evaluation.tests;
    return !e.evaluation.commands.test?.skipped && !!t && !(knownCounts(t) && !ranTests(t));
  });
  if (ran) return ev;
  const files = `${changed.slice(0, 4).join(", ")}${changed.length > 4 ? ", …" : ""}`;
  const notice = `${NO_REFERENCE_MARK} (the baseline's tests did not run or could not be read), and this step changes test files (${files}): a deleted or skipped failing test could not be noticed, so this step cannot end the session as a success. The next step that passes can; its tests are then compared with this step's.`;
  return { ...ev, testsPass: false, notices: [notice, ...ev.notices.filter((n) => !n.startsWith(NO_REFERENCE_MARK))] };
}
