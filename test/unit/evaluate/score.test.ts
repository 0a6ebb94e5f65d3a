import { describe, expect, it } from "vitest";
import {
  bestPerf,
  failingScoreCap,
  foldProgress,
  haltDecision,
  nextEma,
  perfScore,
  strengthScaled,
  strengthScore,
  testStrengthOf,
  weightedScore,
} from "../../../src/evaluate/score.js";

const W = { build: 0.3, test: 0.5, lint: 0.1, perf: 0.1 };
const H = { maxSteps: 12, passThreshold: 0.95, patienceNoImprove: 3, minSteps: 1 };

describe("weightedScore", () => {
  it("leaves unconfigured signals out of both sums, so a perfect run without bench scores 1", () => {
    expect(weightedScore({ build: 1, test: 1, lint: 1 }, W)).toBe(1);
    expect(weightedScore({ test: 0.5 }, W)).toBe(0.5);
  });
  it("weights configured signals", () => {
    // (0.3*1 + 0.5*0.5 + 0.1*0) / 0.9
    expect(weightedScore({ build: 1, test: 0.5, lint: 0 }, W)).toBeCloseTo(0.55 / 0.9, 10);
  });
  it("counts a skipped signal as 0, so a broken build never beats failing tests", () => {
    const brokenBuild = weightedScore({ build: 0, test: 0, lint: 1 }, W);
    const failingTests = weightedScore({ build: 1, test: 0.5, lint: 1 }, W);
    expect(brokenBuild).toBeLessThan(failingTests);
  });
  it("adds extra checks with their own weights", () => {
    expect(weightedScore({ test: 1, checks: { sec: 0 } }, W, { sec: 0.5 })).toBeCloseTo(0.5, 10);
  });
});

describe("perfScore", () => {
  it("first observation is 1", () => expect(perfScore(120, undefined)).toBe(1));
  it("lower is better: best/current", () => {
    expect(perfScore(200, 100)).toBe(0.5);
    expect(perfScore(50, 100)).toBe(1);
  });
  it("higher is better: current/best", () => {
    expect(perfScore(50, 100, "higher")).toBe(0.5);
    expect(perfScore(150, 100, "higher")).toBe(1);
  });
  it("best over a history ignores missing values", () => {
    expect(bestPerf([undefined, 5, 3, 9])).toBe(3);
    expect(bestPerf([5, 3, 9], "higher")).toBe(9);
  });
});

describe("EMA, improvement and halting", () => {
  it("ema = alpha*score + (1-alpha)*prev; the first ema is the score", () => {
    expect(nextEma(0.5, undefined, 0.9)).toBe(0.5);
    expect(nextEma(1, 0.5, 0.9)).toBeCloseTo(0.95, 10);
  });
  it("tracks best, streak and ema over steps", () => {
    const p = foldProgress(
      [
        { step: 1, score: 0.5, testsPass: false },
        { step: 2, score: 0.8, testsPass: false },
        { step: 3, score: 0.8, testsPass: false },
        { step: 4, score: 0.8 + 5e-7, testsPass: false },
      ],
      0.9,
    )!;
    expect(p.bestScore).toBe(0.8);
    expect(p.bestStep).toBe(2);
    expect(p.noImproveStreak).toBe(2); // 5e-7 is within the 1e-6 epsilon: not an improvement
    expect(p.ema).toBeCloseTo(0.9 * (0.8 + 5e-7) + 0.1 * (0.9 * 0.8 + 0.1 * (0.9 * 0.8 + 0.1 * 0.5)), 10);
  });
  it("halts on success only from minSteps, with all tests passing and the threshold met", () => {
    const p = foldProgress([{ step: 1, score: 1, testsPass: true }], 0.9)!;
    expect(haltDecision(p, true, H).shouldHalt).toBe(true);
    expect(haltDecision(p, true, { ...H, minSteps: 2 }).shouldHalt).toBe(false);
    expect(haltDecision(p, false, H).shouldHalt).toBe(false);
    expect(haltDecision({ ...p, score: 0.9 }, true, H).shouldHalt).toBe(false);
    // A step held by a rule while every test passed is not said to have failing tests (h22).
    expect(haltDecision(p, false, H).reasons[0]).toMatch(/^tests failing; /);
    expect(haltDecision(p, false, H, undefined, true).reasons[0]).toMatch(
      /^every test reported passing, but the step does not pass \(see its notes\); step 1\//,
    );
  });
  it("halts on plateau and on the step limit, reasons in the documented order", () => {
    const plateau = { step: 12, score: 0.5, ema: 0.5, bestScore: 0.6, bestStep: 1, noImproveStreak: 3, improved: false };
    const d = haltDecision(plateau, false, H);
    expect(d.shouldHalt).toBe(true);
    expect(d.reasons[0]).toMatch(/^plateau/);
    expect(d.reasons[1]).toMatch(/^limit/);
  });
  it("never halts before a candidate was evaluated", () => {
    expect(haltDecision(undefined, true, H).shouldHalt).toBe(false);
  });
});

describe("test strength with a weight (testStrength: 0.5)", () => {
  it("is the share of measured lines whose mutant the tests kill, an untested line counting as a survivor", () => {
    expect(testStrengthOf(3, 1, 0)).toBe(0.75);
    expect(testStrengthOf(3, 1, 4)).toBe(0.375);
    expect(testStrengthOf(0, 0, 0)).toBeNull();
  });

  it("scales a passing step's score by 1 - w(1 - k): strong tests keep 1, weak tests lose up to w", () => {
    expect(strengthScore(1, 1, 0.5)).toBe(1);
    expect(strengthScore(1, 0, 0.5)).toBe(0.5);
    expect(strengthScore(0.9, 0.5, 0.4)).toBeCloseTo(0.72);
    // Out-of-range inputs are clamped, never raise the score.
    expect(strengthScore(0.8, 2, 3)).toBe(0.8);
    expect(strengthScore(0.8, -1, 1)).toBe(0);
  });

  it("never lowers a passing step to or below a step whose tests fail, nor raises it", () => {
    const s = strengthScore(1, 0, 0.5, 0.9);
    expect(s).toBeGreaterThan(0.9);
    expect(s).toBeLessThan(0.95);
    // The floor never lifts the step above its unweighted score.
    expect(strengthScore(0.8, 0, 0.5, 0.85)).toBe(0.8);
    // As the fold sees it: the passing step improves on the failing best.
    const p = foldProgress(
      [
        { step: 1, score: 0.9, testsPass: false },
        { step: 2, score: s, testsPass: true },
      ],
      0.9,
    )!;
    expect(p.improved).toBe(true);
    expect(p.bestStep).toBe(2);
    // ... and does not halt with success: the weak tests keep the loop going.
    expect(haltDecision(p, true, H).shouldHalt).toBe(false);
  });

  it("a failing step at or above passThreshold before it (19 of 20 tests) does not carry weak tests to success", () => {
    const s = strengthScore(1, 0.2, 0.5, 0.96);
    expect(s).toBeGreaterThan(0.96);
    const p = foldProgress(
      [
        { step: 0, score: 0.96, testsPass: false },
        { step: 1, score: s, testsPass: true },
      ],
      0.9,
    )!;
    expect(p.bestStep).toBe(1);
    const d = haltDecision(p, true, H, strengthScaled(1, 0.2, 0.5));
    expect(d.shouldHalt).toBe(false);
    expect(d.reasons[0]).toMatch(/^score 0\.960, held above the failing steps before it, but its test strength gives 0\.600 < 0\.95/);
    // Strong tests: success as before.
    expect(haltDecision({ ...p, score: 1 }, true, H, strengthScaled(1, 1, 0.5)).shouldHalt).toBe(true);
  });

  it("a later step whose tests fail scores below every step the weight lowered", () => {
    const lowered = strengthScore(1, 0.2, 0.5);
    const failing = failingScoreCap(0.97, lowered);
    expect(failing).toBeLessThan(lowered);
    const p = foldProgress(
      [
        { step: 1, score: lowered, testsPass: true },
        { step: 2, score: failing, testsPass: false },
      ],
      0.9,
    )!;
    expect(p.bestStep).toBe(1);
    expect(failingScoreCap(0.3, lowered)).toBe(0.3);
    expect(failingScoreCap(0.97, undefined)).toBe(0.97);
  });
});
