/**
 * Ways a candidate could still raise its score without fixing anything, found by an audit: counts-only
 * output after a deletion, a chain that stopped before a later runner, output that names no passes,
 * a first step with nothing to compare with; and tests added after the reference that go missing.
 */
import { describe, expect, it } from "vitest";
import type { Evaluation } from "../../../src/evaluate/evaluate.js";
import { judgeEvaluation } from "../../../src/evaluate/judge.js";
import { adjustCounts, judgeTests, rawCounts } from "../../../src/evaluate/test-identity.js";
import { identityNotice } from "../../../src/evaluate/test-identity-words.js";
import type { TestCase, TestCounts } from "../../../src/evaluate/types.js";

const W = { build: 0.3, test: 0.5, lint: 0.1, perf: 0.1 };

function named(cases: [string, TestCase["status"]][], extra: Partial<TestCounts> = {}): TestCounts {
  const c = cases.map(([name, status]) => ({ name, status }));
  const n = (s: string) => c.filter((x) => x.status === s).length;
  return {
    passed: n("passed"),
    failed: n("failed"),
    skipped: n("skipped"),
    total: c.length,
    failures: c.filter((x) => x.status === "failed").map((x) => ({ name: x.name, message: "boom" })),
    format: "tap",
    cases: c,
    ...extra,
  };
}

function counted(passed: number, failed: number, skipped = 0, extra: Partial<TestCounts> = {}): TestCounts {
  return {
    passed,
    failed,
    skipped,
    total: passed + failed + skipped,
    failures: Array.from({ length: failed }, (_, i) => ({ name: `f${i}`, message: "boom" })),
    format: "pytest",
    ...extra,
  };
}

function evaluation(tests: TestCounts | null, exit = tests && (tests.failed ?? 0) > 0 ? 1 : 0): Evaluation {
  const score = tests && tests.passed !== null && tests.failed !== null ? tests.passed / Math.max(1, tests.passed + tests.failed) : exit === 0 ? 1 : 0;
  return {
    commands: { test: { cmd: "pytest -q", exitCode: exit, timedOut: false, durationMs: 1, output: "", truncated: false } },
    tests,
    components: { test: score },
    score,
    testsPass: !!tests && (tests.failed ?? 0) === 0 && exit === 0,
    diagnostics: [],
    notices: [],
    commandsMs: 1,
  };
}

describe("counts-only output: fewer tests than the reference count as failing", () => {
  it("a deleted failing test (pytest -q: 2 passed after 2 passed, 1 failed) scores 2/3, not 1.0, and is never a pass", () => {
    const base = evaluation(counted(2, 1));
    const ev = judgeEvaluation(evaluation(counted(2, 0)), 1, [{ step: 0, evaluation: base }], W, []);
    expect(ev.tests).toMatchObject({ passed: 2, failed: 1, total: 3 });
    expect(ev.score).toBeCloseTo(2 / 3, 9);
    expect(ev.testsPass).toBe(false);
    expect(ev.notices[0]).toBe(
      "1 fewer test ran than the 3 at step 0, since step 1: it counts as failing (the output names only the failing tests, so the missing ones cannot be named; a verbose or JSON reporter lets code-trm name them)",
    );
    // Still short a step later: since step 1, not 2; and re-judging is idempotent.
    const again = judgeEvaluation(
      evaluation(counted(2, 0)),
      2,
      [
        { step: 0, evaluation: base },
        { step: 1, evaluation: ev },
      ],
      W,
      [],
    );
    expect(again.notices[0]).toMatch(/since step 1:/);
    expect(
      judgeEvaluation(
        again,
        2,
        [
          { step: 0, evaluation: base },
          { step: 1, evaluation: ev },
        ],
        W,
        [],
      ),
    ).toEqual(again);
    // The real fix runs all three.
    expect(
      judgeEvaluation(
        evaluation(counted(3, 0)),
        2,
        [
          { step: 0, evaluation: base },
          { step: 1, evaluation: ev },
        ],
        W,
        [],
      ).score,
    ).toBe(1);
  });

  it("a record written before the shortfall was scored is re-judged from its true raw counts", () => {
    const legacy = { lost: [], extraSkipped: 0, fewer: 1, fewerThanStep: 0, reference: 0 };
    expect(rawCounts(counted(2, 0) as Parameters<typeof rawCounts>[0], legacy)).toEqual(counted(2, 0));
  });
});

describe("a chain that stops early keeps the tests of the parts that never ran", () => {
  it("counts only (ava && uvu): AVA failing 2 so uvu never runs scores below AVA passing 20 with uvu failing 3", () => {
    // Step A: AVA 20 passed, uvu 3 passed 3 failed: 23/26 = 0.885. Step B: AVA 18/20 and no uvu: 0.9 before.
    const a = evaluation(counted(23, 3, 0, { format: "ava+uvu" }));
    const b = evaluation(counted(18, 2, 0, { format: "ava", notRun: ["npx uvu"] }));
    const ja = judgeEvaluation(a, 1, [], W, []);
    const jb = judgeEvaluation(b, 2, [{ step: 1, evaluation: ja }], W, []);
    expect(ja.score).toBeCloseTo(23 / 26, 9);
    expect(jb.tests).toMatchObject({ passed: 18, failed: 8, total: 26 });
    expect(jb.score).toBeCloseTo(18 / 26, 9);
    expect(jb.score).toBeLessThan(ja.score);
    expect(jb.notices[0]).toMatch(
      /^6 fewer tests ran than the 26 at step 1, since step 2 \(the test command stopped before `npx uvu`: an earlier part failed\): they count as failing/,
    );
  });

  it("by name: the reference tests of the part that did not run count as failing, named with why", () => {
    const ref = named([
      ["mocha: a", "passed"],
      ["mocha: b", "passed"],
      ["gotest: x", "failed"],
      ["gotest: y", "passed"],
    ]);
    const now = named(
      [
        ["mocha: a", "passed"],
        ["mocha: b", "failed"],
      ],
      { notRun: ["bin/gotest -v"] },
    );
    const id = judgeTests(now, 1, [{ step: 0, tests: ref }])!;
    expect(id.lost).toEqual([
      { name: "gotest: x", how: "missing", since: 1, notRun: "bin/gotest -v" },
      { name: "gotest: y", how: "missing", since: 1, notRun: "bin/gotest -v" },
    ]);
    expect(adjustCounts(now, id)).toMatchObject({ passed: 1, failed: 3 });
    expect(identityNotice(id)).toMatch(/gotest: x \(not run since step 1: `bin\/gotest -v` did not start after an earlier part failed\)/);
  });
});

describe("tests added after the reference", () => {
  it("are named when they later go missing or are skipped, without being scored", () => {
    const base = named([
      ["a", "passed"],
      ["c", "failed"],
    ]);
    const s1 = named([
      ["a", "passed"],
      ["c", "failed"],
      ["new one", "passed"],
      ["new two", "passed"],
    ]);
    const s2 = named([
      ["a", "passed"],
      ["c", "failed"],
      ["new two", "passed"],
    ]);
    const s3 = named([
      ["a", "passed"],
      ["c", "failed"],
      ["new two", "skipped"],
    ]);
    const id = judgeTests(s3, 3, [
      { step: 0, tests: base },
      { step: 1, tests: s1 },
      { step: 2, tests: s2 },
    ])!;
    expect(id.dropped).toEqual([
      { name: "new one", how: "missing", added: 1, since: 2 },
      { name: "new two", how: "skipped", added: 1, since: 3 },
    ]);
    expect(adjustCounts(s3, id)).toMatchObject({ passed: 1, failed: 1, skipped: 0 });
    expect(identityNotice(id)).toMatch(
      /2 tests added after step 0 are now skipped or missing \(not scored: they were not in the reference\): new one \(added at step 1, went missing at step 2\), new two \(added at step 1, skipped at step 3\)/,
    );
  });
});

describe("output that names no passing test (go test without -v)", () => {
  const goFail = (): TestCounts => ({
    passed: null,
    failed: 1,
    skipped: null,
    total: null,
    failures: [{ name: "example.com/calc.TestMul", message: "Mul(2, 3) = 5", file: "calc_test.go", line: 13 }],
    format: "go-test",
    note: "go test without -v or -json names only failing tests, so the passed count is unknown.",
  });
  const goOk = (): TestCounts => ({
    passed: null,
    failed: 0,
    skipped: null,
    total: null,
    failures: [],
    format: "go-test",
    note: "go test without -v or -json names only failing tests, so the passed count is unknown.",
  });

  it("a failing test no longer reported after its test file changed counts as failing; after a code change it is taken as fixed", () => {
    const base = evaluation(goFail());
    const deleted = judgeEvaluation(evaluation(goOk()), 1, [{ step: 0, evaluation: base }], W, [], { changedTests: ["calc_test.go"] });
    expect(deleted.components.test).toBe(0);
    expect(deleted.testsPass).toBe(false);
    expect(deleted.tests).toMatchObject({ failed: 1 });
    expect(deleted.notices[0]).toMatch(
      /^1 test that failed at an earlier step is no longer reported, and a step since changed its test file: example\.com\/calc\.TestMul \(reported at step 0; calc_test\.go changed at step 1\)/,
    );
    // A later step that leaves the tests alone does not make it confirmed.
    const later = judgeEvaluation(
      evaluation(goOk()),
      2,
      [
        { step: 0, evaluation: base },
        { step: 1, evaluation: deleted, note: { testFiles: [{ path: "calc_test.go" }] } },
      ],
      W,
      [],
    );
    expect(later.testsPass).toBe(false);
    expect(
      judgeEvaluation(
        later,
        2,
        [
          { step: 0, evaluation: base },
          { step: 1, evaluation: deleted, note: { testFiles: [{ path: "calc_test.go" }] } },
        ],
        W,
        [],
      ),
    ).toEqual(later);
    // Re-judged where the test file never changed: back to the exit code.
    const fixed = judgeEvaluation(deleted, 1, [{ step: 0, evaluation: base }], W, []);
    expect(fixed.components.test).toBe(1);
    expect(fixed.testsPass).toBe(true);
    expect(fixed.tests).toEqual(goOk());
    expect(fixed.testIdentity).toBeUndefined();
  });

  it("leaves a session without a test command alone (its score has no test signal)", () => {
    const lintOnly: Evaluation = {
      commands: { lint: { cmd: "flake8", exitCode: 0, timedOut: false, durationMs: 1, output: "", truncated: false } },
      okLint: true,
      components: { lint: 1 },
      score: 1,
      testsPass: true,
      diagnostics: [],
      notices: [],
      commandsMs: 1,
    };
    expect(judgeEvaluation(lintOnly, 1, [{ step: 0, evaluation: lintOnly }], W, [])).toBe(lintOnly);
  });
});

describe("a step that changes test files with nothing to compare it with", () => {
  it("cannot end the session as a success, and says why", () => {
    const ev = judgeEvaluation(evaluation(counted(3, 0)), 1, [], W, [], { changedTests: ["test_calc.py"] });
    expect(ev.score).toBe(1);
    expect(ev.testsPass).toBe(false);
    expect(ev.notices[0]).toMatch(/^No earlier point of this session shows which tests ran .*this step changes test files \(test_calc\.py\)/);
    expect(judgeEvaluation(evaluation(counted(3, 0)), 1, [], W, []).testsPass).toBe(true);
    // With a reference, a passing step that changes tests may pass.
    expect(
      judgeEvaluation(evaluation(counted(3, 0)), 1, [{ step: 0, evaluation: evaluation(counted(2, 1)) }], W, [], { changedTests: ["test_calc.py"] }).testsPass,
    ).toBe(true);
  });
});
