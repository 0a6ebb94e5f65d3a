/**
 * Scoring, EMA, improvement and halting: pure functions, the semantics users of the originals rely on.
 *
 * EMA convention: `ema = alpha * score + (1 - alpha) * previousEma`, i.e. alpha is the weight of the
 * NEWEST score (alpha 0.9 follows the latest step closely). The first evaluated step's EMA is its score.
 */

export const IMPROVEMENT_EPSILON = 1e-6;

export type SignalName = "build" | "test" | "lint" | "perf";

export interface Weights {
  build: number;
  test: number;
  lint: number;
  perf: number;
}

export interface HaltPolicy {
  maxSteps: number;
  passThreshold: number;
  patienceNoImprove: number;
  minSteps: number;
}

/**
 * Per-signal scores in [0, 1]. A signal that is `undefined` is not configured and is left out of both
 * sums (the TypeScript original kept it in the denominator, capping scores below 1: a bug). A signal
 * that was configured but skipped (cascade after a failed build) scores 0, so a broken build never
 * outscores a build whose tests fail.
 */
export type Components = Partial<Record<SignalName, number>> & { checks?: Record<string, number> };

export function weightedScore(components: Components, weights: Weights, checkWeights: Record<string, number> = {}): number {
  let num = 0;
  let den = 0;
  for (const k of ["build", "test", "lint", "perf"] as const) {
    const s = components[k];
    if (s === undefined) continue;
    num += weights[k] * clamp01(s);
    den += weights[k];
  }
  for (const [name, s] of Object.entries(components.checks ?? {})) {
    const w = checkWeights[name] ?? 0;
    num += w * clamp01(s);
    den += w;
  }
  return den > 0 ? num / den : 0;
}

export function testScore(passed: number, total: number): number {
  return total > 0 ? passed / total : 0;
}

/**
 * The test signal: passed / (passed + failed), so a skipped test counts for nothing. The counts arrive
 * judged against the session's reference tests (judge.ts): a reference test skipped or gone is already
 * counted as failed, and passes of tests outside the reference are left out. When the output showed no counts or
 * only some (null), it follows the exit code: a run that exits 0 passes, any other fails.
 */
export function testsScore(t: { passed: number | null; failed: number | null } | null | undefined, exitOk: boolean): number {
  if (t && t.passed !== null && t.failed !== null) return testScore(t.passed, t.passed + t.failed);
  return exitOk ? 1 : 0;
}

/** Whether the tests pass: every counted test passed (and some ran), or, without counts, exit 0. */
export function testsPassed(t: { failed: number | null; total: number | null } | null | undefined, exitOk: boolean): boolean {
  if (!exitOk) return false;
  if (!t) return true;
  if ((t.failed ?? 0) > 0) return false;
  return t.total === null || t.total > 0;
}

/**
 * Test strength (testStrength with a weight, docs/scoring.md): of the session's added code lines, the
 * share whose mutant the tests kill, a line no test runs counting as a survivor. Null when nothing was
 * measured (no code line added, or no run).
 */
export function testStrengthOf(killed: number, survived: number, untested: number): number | null {
  const n = killed + survived + untested;
  return n > 0 ? killed / n : null;
}

/**
 * The score of a step whose tests all pass, with test strength `k` at weight `w` in (0, 1]:
 * `score × (1 − w·(1 − k))`. It only ever lowers a passing step, and never to or below a step whose tests
 * fail: not below `failingBest` (the best score of the session's steps whose tests fail) + 2e-6, so the
 * step still improves on all of them, nor above its score without the weight.
 */
export function strengthScore(score: number, k: number, w: number, failingBest?: number): number {
  return Math.min(score, Math.max(strengthScaled(score, k, w), failingBest === undefined ? 0 : failingBest + 2 * IMPROVEMENT_EPSILON));
}

/**
 * `score × (1 − w·(1 − k))` without the floor: what success is decided on (haltDecision), so that a failing
 * step at or above passThreshold before it (19 of 20 tests) cannot carry weak tests to success.
 */
export function strengthScaled(score: number, k: number, w: number): number {
  return score * (1 - clamp01(w) * (1 - clamp01(k)));
}

/**
 * With the weight, a step whose tests fail scores below every step the weight lowered (`lowest`, the
 * lowest of their scores): test strength never makes a failing step look better than a passing one.
 */
export function failingScoreCap(score: number, lowest?: number): number {
  return lowest === undefined ? score : Math.min(score, Math.max(0, lowest - 2 * IMPROVEMENT_EPSILON));
}

export type PerfDirection = "lower" | "higher";

/**
 * Normalised performance: best / current for lower-is-better metrics (current / best when higher is
 * better), where best includes the current observation. The first observation scores 1.
 */
export function perfScore(current: number, previousBest: number | undefined, direction: PerfDirection = "lower"): number {
  if (!Number.isFinite(current)) return 0;
  if (previousBest === undefined || !Number.isFinite(previousBest)) return 1;
  if (direction === "lower") {
    const best = Math.min(previousBest, current);
    if (current <= 0) return 1;
    return best <= 0 ? 0 : best / current;
  }
  const best = Math.max(previousBest, current);
  if (best <= 0) return current >= best ? 1 : 0;
  return current / best;
}

export function bestPerf(values: (number | undefined)[], direction: PerfDirection = "lower"): number | undefined {
  let best: number | undefined;
  for (const v of values) {
    if (v === undefined || !Number.isFinite(v)) continue;
    if (best === undefined || (direction === "lower" ? v < best : v > best)) best = v;
  }
  return best;
}

export function nextEma(score: number, previousEma: number | undefined, alpha: number): number {
  return previousEma === undefined ? score : alpha * score + (1 - alpha) * previousEma;
}

export interface ScoredStep {
  step: number;
  score: number;
  /** True when every test passed (or no test command is configured). */
  testsPass: boolean;
  /** Judged by the tests that failed before alone (failing-first.ts): it never improves on the best. */
  partial?: boolean;
}

export interface Progress {
  step: number;
  score: number;
  ema: number;
  bestScore: number;
  bestStep: number;
  noImproveStreak: number;
  improved: boolean;
}

/**
 * Folds a session's evaluated steps (in order; step 0 is the baseline when preflight ran) into the
 * running figures. Undo and restore simply fold a shorter history, so the figures never drift.
 */
export function foldProgress(steps: ScoredStep[], alpha: number): Progress | undefined {
  let p: Progress | undefined;
  for (const s of steps) {
    if (!p) {
      // The baseline (step 0) is the reference, not an improvement on anything: a baseline whose commands
      // could not run scored 0.000 "improved" (issue 24). A first step without one improves if it scores.
      p = { step: s.step, score: s.score, ema: s.score, bestScore: s.score, bestStep: s.step, noImproveStreak: 0, improved: s.step > 0 && s.score > 0 };
      continue;
    }
    // A partial run's score keeps the tests that did not run at an earlier status: no measure of progress.
    const improved = !s.partial && s.score > p.bestScore + IMPROVEMENT_EPSILON;
    p = {
      step: s.step,
      score: s.score,
      ema: nextEma(s.score, p.ema, alpha),
      bestScore: improved ? s.score : p.bestScore,
      bestStep: improved ? s.step : p.bestStep,
      noImproveStreak: improved ? 0 : p.noImproveStreak + 1,
      improved,
    };
  }
  return p;
}

export interface HaltDecision {
  shouldHalt: boolean;
  reasons: string[];
}

/**
 * Halting rules, in order: success, plateau, limit. `strength`: the step's score as its test strength
 * scales it before the floor (strengthScaled), which success needs at passThreshold too. `heldPassing`: the
 * runner reported no failing test, yet the step does not pass (a rule of judge.ts holds it, or the command failed).
 */
export function haltDecision(p: Progress | undefined, testsPass: boolean, policy: HaltPolicy, strength?: number, heldPassing = false): HaltDecision {
  if (!p || p.step === 0) {
    return { shouldHalt: false, reasons: ["no candidate evaluated yet"] };
  }
  const reasons: string[] = [];
  const weak = strength !== undefined && strength < policy.passThreshold;
  if (p.step >= policy.minSteps && testsPass && p.score >= policy.passThreshold && !weak) {
    reasons.push(`success: all tests pass and score ${fmt(p.score)} >= passThreshold ${policy.passThreshold}`);
  }
  if (p.noImproveStreak >= policy.patienceNoImprove) {
    reasons.push(`plateau: no improvement for ${p.noImproveStreak} steps (patience ${policy.patienceNoImprove})`);
  }
  if (p.step >= policy.maxSteps) {
    reasons.push(`limit: reached maxSteps ${policy.maxSteps}`);
  }
  if (reasons.length === 0) {
    // Every test the runner reported passed, yet the step does not pass: a rule holds it (a test marked to fail,
    // tests-only edits, another format) or the command failed after them (a coverage gate); its notes say which.
    const why = !testsPass
      ? heldPassing
        ? "every test reported passing, but the step does not pass (see its notes)"
        : "tests failing"
      : p.step < policy.minSteps
        ? `minSteps ${policy.minSteps} not reached`
        : weak && p.score >= policy.passThreshold
          ? `score ${fmt(p.score)}, held above the failing steps before it, but its test strength gives ${fmt(strength!)} < ${policy.passThreshold}`
          : `score ${fmt(p.score)} < ${policy.passThreshold}`;
    return {
      shouldHalt: false,
      reasons: [`${why}; step ${p.step}/${policy.maxSteps}; no-improvement streak ${p.noImproveStreak}/${policy.patienceNoImprove}`],
    };
  }
  return { shouldHalt: true, reasons };
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

export function fmt(x: number): string {
  return x.toFixed(3);
}
