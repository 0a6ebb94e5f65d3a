/**
 * Counts in the runner's units (tape's assertions, pytest's failed subtests) judged by test: deleting,
 * skipping or padding a test, or an assertion of one, cannot raise the score, and a judgement undoes
 * exactly.
 */
import { describe, expect, it } from "vitest";
import { adjustCounts, judgeTests, type KnownCounts, rawCounts } from "../../../src/evaluate/test-identity.js";
import { identityNotice } from "../../../src/evaluate/test-identity-words.js";
import type { TestCase, TestCounts, UnitTally } from "../../../src/evaluate/types.js";

/** A tape-like run: each test with its assertions passed / failed / skipped. */
function tape(tests: Record<string, [number, number, number]>): KnownCounts {
  const cases: TestCase[] = Object.entries(tests).map(([name, [p, f, s]]) => {
    const units: UnitTally = { passed: p, failed: f, skipped: s };
    return { name, status: f > 0 ? "failed" : p > 0 ? "passed" : "skipped", units };
  });
  const sum = (k: keyof UnitTally) => cases.reduce((n, c) => n + c.units![k], 0);
  const [passed, failed, skipped] = [sum("passed"), sum("failed"), sum("skipped")];
  return {
    passed,
    failed,
    skipped,
    total: passed + failed + skipped,
    failures: cases.filter((c) => c.status === "failed").map((c) => ({ name: c.name, message: "boom" })),
    format: "tap",
    units: "assertions",
    testsRan: cases.filter((c) => c.status !== "skipped").length,
    cases,
  };
}

const score = (t: TestCounts) => t.passed! / (t.passed! + t.failed!);
const REF = tape({ adds: [4, 0, 0], formats: [1, 3, 0], parses: [10, 0, 0] });

function judged(now: KnownCounts) {
  const id = judgeTests(now, 1, [{ step: 0, tests: REF }]);
  const adjusted = adjustCounts(now, id);
  expect(rawCounts(adjusted, id)).toEqual(now);
  return { id, adjusted };
}

describe("counts in assertions, tests by name", () => {
  it("fixing some of a test's failing assertions is progress; fixing all of them scores 1", () => {
    const { adjusted: half } = judged(tape({ adds: [4, 0, 0], formats: [3, 1, 0], parses: [10, 0, 0] }));
    expect(score(half)).toBeGreaterThan(score(REF));
    const { id, adjusted: all } = judged(tape({ adds: [4, 0, 0], formats: [4, 0, 0], parses: [10, 0, 0] }));
    expect(score(all)).toBe(1);
    expect(identityNotice(id)).toBeUndefined();
  });

  it("a deleted failing test counts as failing by the assertions it ran at the reference", () => {
    const { id, adjusted } = judged(tape({ adds: [4, 0, 0], parses: [10, 0, 0] }));
    expect(adjusted).toMatchObject({ passed: 14, failed: 4 });
    expect(score(adjusted)).toBeLessThan(score(REF));
    expect(identityNotice(id)).toMatch(/formats \(went missing at step 1; the 4 assertions or subtests it ran count as failing\)/);
  });

  it("a failing assertion turned into t.skip() counts as failing, though its test now passes", () => {
    const { id, adjusted } = judged(tape({ adds: [4, 0, 0], formats: [1, 0, 3], parses: [10, 0, 0] }));
    expect(adjusted).toMatchObject({ passed: 15, failed: 3, skipped: 0 });
    expect(score(adjusted)).toBe(score(REF));
    expect(identityNotice(id)).toMatch(
      /now skipped in part and counts as failing: formats \(3 more of its assertions skipped than at the reference, at step 1\)/,
    );
  });

  it("a test skipped whole counts as failing by the assertions it ran", () => {
    const { adjusted } = judged(tape({ adds: [4, 0, 0], formats: [0, 0, 4], parses: [10, 0, 0] }));
    expect(adjusted).toMatchObject({ passed: 14, failed: 4, skipped: 0 });
  });

  it("passing assertions added to a test are not counted beyond what it ran at the reference", () => {
    const { id, adjusted } = judged(tape({ adds: [1004, 0, 0], formats: [1, 3, 0], parses: [10, 0, 0] }));
    expect(adjusted).toMatchObject({ passed: 15, failed: 3 });
    expect(identityNotice(id)).toMatch(/1000 passing assertions beyond what their tests ran at step 0 are not counted/);
  });

  it("a failing assertion added to a test costs that failure, and no pass", () => {
    const { id, adjusted } = judged(tape({ adds: [4, 1, 0], formats: [1, 3, 0], parses: [10, 0, 0] }));
    expect(adjusted).toMatchObject({ passed: 15, failed: 4 });
    expect(id?.padded).toBeUndefined();
  });

  it("a new test counts only by its failing assertions", () => {
    const { adjusted } = judged(tape({ adds: [4, 0, 0], formats: [1, 3, 0], parses: [10, 0, 0], extra: [50, 1, 0] }));
    expect(adjusted).toMatchObject({ passed: 15, failed: 4 });
  });
});

describe("counts with failed subtests, tests by count (pytest -q)", () => {
  const pytest = (passed: number, failed: number, subfailed: number): KnownCounts => ({
    passed,
    failed,
    skipped: 0,
    total: passed + failed,
    failures: [],
    format: "pytest",
    ...(subfailed > 0 ? { units: "subtests" as const, testsRan: passed + failed - subfailed } : {}),
  });

  it("fixed subtests are no longer reported: no test is missing, the fix scores 1", () => {
    const id = judgeTests(pytest(16, 0, 0), 1, [{ step: 0, tests: pytest(16, 24, 24) }]);
    expect(id).toEqual({ lost: [], extraSkipped: 0, reference: 0 });
  });

  it("a deleted test may have taken every failing subtest with it: each unit fewer counts as failing", () => {
    const now = pytest(15, 0, 0);
    const id = judgeTests(now, 1, [{ step: 0, tests: pytest(16, 24, 24) }]);
    expect(id).toMatchObject({ missing: 25, missingTests: 1, referenceRan: 16 });
    const adjusted = adjustCounts(now, id);
    expect(adjusted).toMatchObject({ passed: 15, failed: 25 });
    expect(rawCounts(adjusted, id)).toEqual(now);
    expect(identityNotice(id)).toMatch(/^1 fewer test ran than the 16 at step 0, since step 1 \(counted as the 25 failed subtests and tests fewer than then/);
  });

  it("a new passing test is not counted beyond the reference's tests", () => {
    const id = judgeTests(pytest(17, 10, 10), 1, [{ step: 0, tests: pytest(16, 24, 24) }]);
    expect(id).toMatchObject({ capped: 1 });
  });
});
