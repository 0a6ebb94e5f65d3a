/** Tests tracked by name across steps: a candidate cannot raise its score by skipping or deleting tests. */
import { describe, expect, it } from "vitest";
import type { Evaluation } from "../../../src/evaluate/evaluate.js";
import { judgeEvaluation } from "../../../src/evaluate/judge.js";
import { parseTests } from "../../../src/evaluate/parsers/index.js";
import { adjustCounts, identityNotice, judgeTests, rawCounts } from "../../../src/evaluate/test-identity.js";
import type { TestCase, TestCounts } from "../../../src/evaluate/types.js";

const W = { build: 0.3, test: 0.5, lint: 0.1, perf: 0.1 };

function counts(cases: [string, TestCase["status"]][] | null, n?: { passed: number; failed: number; skipped: number }): TestCounts {
  const c = cases?.map(([name, status]) => ({ name, status })) ?? [];
  const k = n ?? { passed: c.filter((x) => x.status === "passed").length, failed: c.filter((x) => x.status === "failed").length, skipped: c.filter((x) => x.status === "skipped").length };
  return {
    ...k,
    total: k.passed + k.failed + k.skipped,
    failures: c.filter((x) => x.status === "failed").map((x) => ({ name: x.name, message: "boom" })),
    format: "tap",
    ...(cases ? { cases: c } : {}),
  };
}

function evaluation(tests: TestCounts | null, exit = tests && tests.failed > 0 ? 1 : 0): Evaluation {
  const score = tests ? tests.passed / Math.max(1, tests.passed + tests.failed) : 0;
  return {
    commands: { test: { cmd: "node --test", exitCode: exit, timedOut: false, durationMs: 1, output: "", truncated: false } },
    tests,
    components: { test: score },
    score,
    testsPass: !!tests && tests.failed === 0 && exit === 0,
    diagnostics: [],
    notices: [],
    commandsMs: 1,
  };
}

const BASE = counts([["a", "passed"], ["b", "passed"], ["c", "failed"]]);

describe("judgeTests", () => {
  it("names a test that went missing or was skipped, at the step it happened", () => {
    const s1 = counts([["a", "passed"], ["b", "passed"], ["c", "failed"]]);
    const s2 = counts([["a", "passed"], ["b", "skipped"]]);
    const id = judgeTests(s2, 2, [{ step: 0, tests: BASE }, { step: 1, tests: s1 }])!;
    expect(id.lost).toEqual([
      { name: "b", how: "skipped", since: 2 },
      { name: "c", how: "missing", since: 2 },
    ]);
    // Still gone a step later: it went missing at step 2, not 3.
    const id3 = judgeTests(counts([["a", "passed"]]), 3, [{ step: 0, tests: BASE }, { step: 1, tests: s1 }, { step: 2, tests: s2 }])!;
    expect(id3.lost).toEqual([
      { name: "c", how: "missing", since: 2 },
      { name: "b", how: "missing", since: 3 },
    ]);
    expect(identityNotice(id3)).toMatch(/c \(went missing at step 2\)/);
  });

  it("does not count a test that was skipped at the baseline and still is (or is gone)", () => {
    const base = counts([["a", "passed"], ["s", "skipped"]]);
    expect(judgeTests(counts([["a", "passed"], ["s", "skipped"]]), 1, [{ step: 0, tests: base }])!.lost).toEqual([]);
    expect(judgeTests(counts([["a", "passed"]]), 1, [{ step: 0, tests: base }])!.lost).toEqual([]);
  });

  it("invents nothing without a reference, for unreadable output, or from steps that named no tests", () => {
    expect(judgeTests(null, 1, [{ step: 0, tests: BASE }])).toBeNull();
    expect(judgeTests(counts([["a", "passed"]]), 1, [])).toEqual({ lost: [], extraSkipped: 0, fewer: 0 });
    expect(judgeTests(counts([["a", "passed"]]), 1, [{ step: 0, tests: null }])).toEqual({ lost: [], extraSkipped: 0, fewer: 0 });
    // Counts only now: fewer tests is said, not scored; more skips than ever before are scored.
    const id = judgeTests(counts(null, { passed: 1, failed: 0, skipped: 2 }), 1, [{ step: 0, tests: counts(null, { passed: 3, failed: 1, skipped: 1 }) }])!;
    expect(id).toEqual({ lost: [], extraSkipped: 1, fewer: 2, fewerThanStep: 0 });
    expect(identityNotice(id)).toMatch(/1 more test skipped .*2 fewer tests ran than at step 0 .*not scored/);
  });

  it("adjusts the counts and can undo it exactly", () => {
    const now = counts([["a", "passed"], ["b", "skipped"]]);
    const id = judgeTests(now, 1, [{ step: 0, tests: BASE }]);
    const adj = adjustCounts(now, id);
    expect(adj).toMatchObject({ passed: 1, failed: 2, skipped: 0, total: 3 });
    expect(adj.failures.map((f) => [f.name, f.message])).toEqual([
      ["b", "[counted as failing] skipped at step 1"],
      ["c", "[counted as failing] went missing at step 1"],
    ]);
    expect(rawCounts(adj, id)).toEqual(now);
  });
});

describe("judgeEvaluation", () => {
  it("scores a deleted failing test as failing: 2/3, not 1.0, and never 'all tests pass'", () => {
    const ev = judgeEvaluation(evaluation(counts([["a", "passed"], ["b", "passed"]])), 1, [{ step: 0, evaluation: evaluation(BASE) }], W, []);
    expect(ev.score).toBeCloseTo(2 / 3, 9);
    expect(ev.testsPass).toBe(false);
    expect(ev.notices[0]).toMatch(/^1 test that ran at an earlier step is now skipped or missing and counts as failing: c \(went missing at step 1\)/);
  });

  it("a skip at the baseline does not lower the score (205 passed, 1 skipped scores 1.0)", () => {
    const cases: [string, TestCase["status"]][] = Array.from({ length: 205 }, (_, i) => [`t${i}`, "passed"]);
    cases.push(["skipped one", "skipped"]);
    const base = evaluation(counts(cases));
    const ev = judgeEvaluation(evaluation(counts(cases)), 1, [{ step: 0, evaluation: base }], W, []);
    expect(ev.score).toBe(1);
    expect(ev.testsPass).toBe(true);
  });

  it("is idempotent and re-judges a reused evaluation against another history", () => {
    const now = evaluation(counts([["a", "passed"], ["b", "passed"]]));
    const once = judgeEvaluation(now, 1, [{ step: 0, evaluation: evaluation(BASE) }], W, []);
    const twice = judgeEvaluation(once, 1, [{ step: 0, evaluation: evaluation(BASE) }], W, []);
    expect(twice).toEqual(once);
    // The same tree reached in a history where c never existed: nothing is lost.
    const other = judgeEvaluation(once, 1, [{ step: 0, evaluation: evaluation(counts([["a", "passed"], ["b", "failed"]])) }], W, []);
    expect(other.score).toBe(1);
    expect(other.testsPass).toBe(true);
    expect(other.notices).toEqual([]);
    expect(other.testIdentity).toBeUndefined();
  });

  it("leaves a step whose tests did not run (cascade) alone", () => {
    const skipped = { ...evaluation(null), tests: null };
    skipped.commands.test!.skipped = "build failed";
    expect(judgeEvaluation(skipped, 1, [{ step: 0, evaluation: evaluation(BASE) }], W, [])).toBe(skipped);
  });
});

// python3 -m unittest -v (Python 3.11.7), paths rewritten to /work/proj.
const UNITTEST_V = "test_doc (tests.test_a.T.test_doc)\nDocstring here. ... ok\ntest_err (tests.test_a.T.test_err) ... ERROR\ntest_fail (tests.test_a.T.test_fail) ... FAIL\ntest_ok (tests.test_a.T.test_ok) ... ok\ntest_skip (tests.test_a.T.test_skip) ... skipped 'why'\n\n======================================================================\nERROR: test_err (tests.test_a.T.test_err)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File \"/work/proj/tests/test_a.py\", line 10, in test_err\n    def test_err(self): raise ValueError(\"x\")\n                        ^^^^^^^^^^^^^^^^^^^^^\nValueError: x\n\n======================================================================\nFAIL: test_fail (tests.test_a.T.test_fail)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File \"/work/proj/tests/test_a.py\", line 7, in test_fail\n    def test_fail(self): self.assertEqual(1, 2)\n                         ^^^^^^^^^^^^^^^^^^^^^^\nAssertionError: 1 != 2\n\n----------------------------------------------------------------------\nRan 5 tests in 0.001s\n\nFAILED (failures=1, errors=1, skipped=1)\n";

describe("unittest -v names every test", () => {
  it("reads the outcome lines, docstring lines included", () => {
    const r = parseTests({ stdout: "", stderr: UNITTEST_V, all: UNITTEST_V }, { cwd: "/work/proj" })!;
    expect(r.cases).toEqual([
      { name: "tests.test_a.T.test_doc", status: "passed" },
      { name: "tests.test_a.T.test_err", status: "failed" },
      { name: "tests.test_a.T.test_fail", status: "failed" },
      { name: "tests.test_a.T.test_ok", status: "passed" },
      { name: "tests.test_a.T.test_skip", status: "skipped" },
    ]);
    expect(r.failures.map((f) => f.name).sort()).toEqual(["tests.test_a.T.test_err", "tests.test_a.T.test_fail"]);
  });

  it("names none when the lines do not account for every test that ran", () => {
    const cut = UNITTEST_V.replace("test_ok (tests.test_a.T.test_ok) ... ok\n", "test_ok (tests.test_a.T.test_ok) ... printed by the test\nok\n");
    expect(parseTests({ stdout: "", stderr: cut, all: cut })!.cases).toBeUndefined();
  });
});
