/**
 * Judges an evaluation's tests against the session's history (test-identity.ts) and re-derives the
 * figures that depend on it. Idempotent: an evaluation already judged (stored, or reused from the cache
 * in another history) is first brought back to its raw counts.
 */
import { checkWeights, type CheckSpec, type Evaluation } from "./evaluate.js";
import { testScore, weightedScore, type Weights } from "./score.js";
import { adjustCounts, identityMatters, identityNotice, judgeTests, knownCounts, rawCounts, type TestHistoryPoint } from "./test-identity.js";

/** The test counts an evaluation had before any judgement. */
export function rawTests(ev: Evaluation): Evaluation["tests"] {
  return knownCounts(ev.tests) ? rawCounts(ev.tests, ev.testIdentity) : ev.tests;
}

export function judgeEvaluation(ev: Evaluation, step: number, earlier: { step: number; evaluation: Evaluation }[], weights: Weights, checks: CheckSpec[]): Evaluation {
  if (ev.commands.test?.skipped) return ev;
  // Unknown counts (null) follow the exit code (score.ts), unless earlier steps of this history showed
  // their tests: a candidate must not trade readable failures for an unreadable pass (a test script
  // replaced by `echo ok`, a reporter switched off).
  if (!knownCounts(ev.tests)) return unreadableAfterReadable(ev, earlier, weights, checks);
  const raw = rawCounts(ev.tests, ev.testIdentity);
  const oldNotice = identityNotice(ev.testIdentity);
  const history: TestHistoryPoint[] = earlier.map((e) => ({ step: e.step, tests: e.evaluation.commands.test?.skipped ? null : rawTests(e.evaluation) }));
  const id = judgeTests(raw, step, history);
  const tests = adjustCounts(raw, id);
  const notice = identityNotice(id);
  const notices = ev.notices.filter((n) => n !== oldNotice);
  if (notice) notices.unshift(notice);
  const test = ev.commands.test;
  const ran = !!test && test.exitCode === 0 && !test.timedOut;
  const components = { ...ev.components, test: testScore(tests.passed, tests.passed + tests.failed) };
  const judged: Evaluation = {
    ...ev,
    tests,
    notices,
    components,
    testsPass: tests.total > 0 && tests.failed === 0 && ran,
    score: weightedScore(components, weights, checkWeights(checks)),
  };
  if (identityMatters(id)) judged.testIdentity = id;
  else delete judged.testIdentity;
  return judged;
}

const UNREADABLE_MARK = "The test output can no longer be read";

function unreadableAfterReadable(ev: Evaluation, earlier: { step: number; evaluation: Evaluation }[], weights: Weights, checks: CheckSpec[]): Evaluation {
  const notices = ev.notices.filter((n) => !n.startsWith(UNREADABLE_MARK));
  const shown = earlier.filter((e) => !e.evaluation.commands.test?.skipped && knownCounts(e.evaluation.tests) && e.evaluation.tests.passed + e.evaluation.tests.failed > 0);
  const last = shown[shown.length - 1];
  // Passed and failed read, only the skipped count unknown (tape prints nothing for test.skip): the
  // output is still read and scored by its counts, whatever an earlier step's output showed.
  const read = !!ev.tests && ev.tests.passed !== null && ev.tests.failed !== null;
  if (!last || !ev.testsPass || read) return notices.length === ev.notices.length ? ev : { ...ev, notices };
  const t = last.evaluation.tests!;
  notices.unshift(
    `${UNREADABLE_MARK}, although step ${last.step} reported ${t.passed! + t.failed!} tests by its output: the test signal counts as failing instead of following the exit code. If the candidate changed the test command's script or reporter, restore it.`,
  );
  const components = { ...ev.components, test: 0 };
  return { ...ev, notices, components, testsPass: false, score: weightedScore(components, weights, checkWeights(checks)) };
}
