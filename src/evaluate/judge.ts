/**
 * Judges an evaluation's tests against the session's history (test-identity.ts) and re-derives the
 * figures that depend on it. Idempotent: an evaluation already judged (stored, or reused from the cache
 * in another history) is first brought back to its raw counts.
 */
import { checkWeights, type CheckSpec, type Evaluation } from "./evaluate.js";
import { testScore, weightedScore, type Weights } from "./score.js";
import { adjustCounts, identityNotice, judgeTests, knownCounts, rawCounts, type TestHistoryPoint } from "./test-identity.js";

/** The test counts an evaluation had before any judgement. */
export function rawTests(ev: Evaluation): Evaluation["tests"] {
  return knownCounts(ev.tests) ? rawCounts(ev.tests, ev.testIdentity) : ev.tests;
}

export function judgeEvaluation(ev: Evaluation, step: number, earlier: { step: number; evaluation: Evaluation }[], weights: Weights, checks: CheckSpec[]): Evaluation {
  // Unknown counts (null) follow the exit code (score.ts): there is nothing to compare by name or number.
  if (!knownCounts(ev.tests) || ev.commands.test?.skipped) return ev;
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
  if (id && (id.lost.length > 0 || id.extraSkipped > 0 || id.fewer > 0)) judged.testIdentity = id;
  else delete judged.testIdentity;
  return judged;
}
