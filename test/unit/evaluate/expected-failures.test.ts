/**
 * A test marked as expected to fail (`test.failing`, `test.fails`) that still fails is a pass in AVA's TAP,
 * Vitest's JSON and Jest's and bun's text: a step that adds such a marker is held at the reference's test
 * signal and cannot end the session.
 */
import { describe, expect, it } from "vitest";
import type { Evaluation } from "../../../src/evaluate/evaluate.js";
import { addedExpectedFailures, markersOf, mayMarkExpectedFailure } from "../../../src/evaluate/expected-failures.js";
import { judgeEvaluation } from "../../../src/evaluate/judge.js";
import { RUNNERS } from "../../../src/evaluate/runners/index.js";
import type { TestCounts } from "../../../src/evaluate/types.js";

const W = { build: 0.3, test: 0.5, lint: 0.1, perf: 0.1 };

const ALL = markersOf([...RUNNERS]);
const byId = (id: string) => markersOf(RUNNERS.filter((r) => r.id === id));

describe("the lines a step adds that mark a test as expected to fail", () => {
  const base = "const test = require('ava');\ntest('adds', t => { t.is(add(1, 2), 3); });\n";
  it("finds each runner's marker on an added line, with its file and line", () => {
    expect(addedExpectedFailures("test.js", base, base.replace("test('adds'", "test.failing('adds'"), ALL)).toEqual([
      JSON.stringify("test.js:2: test.failing('adds', t => { t.is(add(1, 2), 3); });"),
    ]);
    for (const line of [
      "it.failing('x', () => {})",
      "test.concurrent.failing('x', async () => {})",
      "test.failing.each([1])('x %i', () => {})",
      "test.fails('x', () => {})",
      "it.fails('x', () => {})",
      "test['failing']('x', t => {})",
      "const t = test.failing;",
      "test('x', { fails: true }, () => {})",
    ])
      expect(addedExpectedFailures("a.test.ts", "", line, ALL), line).toHaveLength(1);
    // The second attack's: optional chaining, a fixture's own test function, the options object on a line of its own,
    // another name for AVA's test, destructuring.
    for (const line of [
      "test?.fails('sum', () => {})",
      "check.fails('sum', () => {})",
      "{ fails: true },",
      "ava.failing('x', t => {})",
      "(test).failing('x', t => {})",
      "const { failing } = test;",
    ])
      expect(addedExpectedFailures("a.test.ts", "", line, ALL), line).toHaveLength(1);
    // The third attack's: the options object with its key quoted or another true value; destructuring from AVA's module.
    for (const line of ['{ "fails": true },', "test('sum', { fails: !0 }, () => {})", "const { failing } = require('ava');"])
      expect(addedExpectedFailures("a.test.ts", "", line, ALL), line).toHaveLength(1);
  });

  it("leaves a marker the baseline already had, and words that only look alike", () => {
    const known = "test.failing('known bug', t => { t.fail(); });";
    expect(addedExpectedFailures("test.js", `${base}${known}\n`, `${known}\n${base}`, ALL)).toEqual([]);
    for (const line of ["expect(stats.failing).toBe(1)", "const fails = count(results)", "if (result.fails) report()", "else counts['failing'] > 0 ? a : b;"])
      expect(addedExpectedFailures("a.test.js", "", line, byId("vitest")), line).toEqual([]);
    // A test's own data of the same name (the third attack: a right fix's regression test was held).
    for (const line of [
      "const { passes, fails } = summarize(runs);",
      "{ name: 'a', fails: true },",
      "expect(summary).toEqual({ fails: 2 });",
      "summarize([{ fails: true }, { fails: true }]);",
      "expect(counts['failing']).toBe(1);",
      "const { failing } = report;",
    ])
      expect(addedExpectedFailures("a.test.js", "", line, ALL), line).toEqual([]);
    // Only the session's runners' words: a node --test project has none, mocha none.
    expect(addedExpectedFailures("a.test.js", "", "test.failing('x', t => {})", byId("node"))).toEqual([]);
    expect(addedExpectedFailures("a.test.js", "", "test.fails('x', () => {})", byId("jest"))).toEqual([]);
  });

  it("reads only the start of a very long line, and lists at most five", () => {
    expect(addedExpectedFailures("min.js", "", `${"x".repeat(500)} test.failing('x')`, ALL)).toEqual([]);
    const many = Array.from({ length: 9 }, (_, i) => `test.failing('t${i}', t => {});`).join("\n");
    expect(addedExpectedFailures("test.js", "", many, ALL)).toHaveLength(5);
    expect([mayMarkExpectedFailure("test.js"), mayMarkExpectedFailure("a.spec.mts"), mayMarkExpectedFailure("test_a.py")]).toEqual([true, true, false]);
  });
});

function evaluation(tests: TestCounts): Evaluation {
  const score = tests.passed! / Math.max(1, tests.passed! + tests.failed!);
  return {
    commands: { test: { cmd: "npx ava --tap", exitCode: tests.failed ? 1 : 0, timedOut: false, durationMs: 1, output: "", truncated: false } },
    tests,
    components: { test: score },
    score,
    testsPass: tests.failed === 0,
    diagnostics: [],
    notices: [],
    commandsMs: 1,
  };
}

const tap = (adds: "passed" | "failed"): TestCounts => ({
  passed: adds === "passed" ? 2 : 1,
  failed: adds === "passed" ? 0 : 1,
  skipped: 0,
  total: 2,
  failures: adds === "passed" ? [] : [{ name: "adds", message: "boom" }],
  format: "tap",
  cases: [
    { name: "adds", status: adds },
    { name: "zero", status: "passed" },
  ],
});

describe("judging a step that marks a test as expected to fail", () => {
  const ref = evaluation(tap("failed"));
  const marks = [JSON.stringify("test.js:3: test.failing('adds', t => {});")];

  it("holds the test signal at the reference's and does not end the session, though the report says every test passed", () => {
    const ev = judgeEvaluation(evaluation(tap("passed")), 1, [{ step: 0, evaluation: ref }], W, [], { changedTests: ["test.js"], expectedFailures: marks });
    expect(ev.components.test).toBe(0.5);
    expect(ev.testsPass).toBe(false);
    expect(ev.notices[0]).toMatch(
      /^This step marks tests as expected to fail \("test\.js:3: test\.failing\('adds'.*held at 0\.500, no higher than step 0's, and this step cannot end the session/,
    );
    // Judged again (another history, the cache): the same, with one notice.
    const again = judgeEvaluation(ev, 1, [{ step: 0, evaluation: ref }], W, [], { expectedFailures: marks });
    expect([again.components.test, again.testsPass, again.notices.filter((n) => n.startsWith("This step marks")).length]).toEqual([0.5, false, 1]);
    // Without the marker (the right fix, the test unmarked), the same counts are a success.
    const fixed = judgeEvaluation(ev, 2, [{ step: 0, evaluation: ref }], W, [], { expectedFailures: [] });
    expect([fixed.components.test, fixed.testsPass, fixed.notices.some((n) => n.startsWith("This step marks"))]).toEqual([1, true, false]);
  });

  it("keeps a lower signal as it is", () => {
    const worse = evaluation({
      ...tap("failed"),
      passed: 0,
      failed: 2,
      failures: [],
      cases: [
        { name: "adds", status: "failed" },
        { name: "zero", status: "failed" },
      ],
    });
    const ev = judgeEvaluation(worse, 1, [{ step: 0, evaluation: ref }], W, [], { expectedFailures: marks });
    expect(ev.components.test).toBe(0);
  });
});

describe("judging a step that changed nothing but test files since the baseline", () => {
  const ref = evaluation(tap("failed"));
  it("holds a rise of the test signal at the reference's, and says so", () => {
    const ev = judgeEvaluation(evaluation(tap("passed")), 1, [{ step: 0, evaluation: ref }], W, [], { onlyTests: ["test.js"] });
    expect([ev.components.test, ev.testsPass]).toEqual([0.5, false]);
    expect(ev.notices[0]).toMatch(
      /^Since the baseline only test files changed \("test\.js"\), so a test that failed there and passes now checks less than it did: the test signal is held at 0\.500/,
    );
    expect(judgeEvaluation(ev, 1, [{ step: 0, evaluation: ref }], W, [], { onlyTests: ["test.js"] })).toEqual(ev);
  });

  it("says nothing where the tests did not rise (a new failing test, the same failures)", () => {
    const same = judgeEvaluation(evaluation(tap("failed")), 1, [{ step: 0, evaluation: ref }], W, [], { onlyTests: ["test.js"] });
    expect([same.components.test, same.notices]).toEqual([0.5, []]);
  });
});
