/**
 * Sessions on real projects (issue 22), replayed from the runners' real outputs: a baseline with a bug,
 * a wrong fix and the right fix, each evaluated, judged against the steps before it and folded into the
 * session's progress as trm_submit does. The right fix scores 1 and halts; the wrong fix is progress
 * where it fixes some of what the runner counts.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type Evaluation, evaluate } from "../../../src/evaluate/evaluate.js";
import { correlateDiagnostics, correlateFailures, renderFeedback } from "../../../src/evaluate/feedback.js";
import { type JudgePoint, judgeEvaluation } from "../../../src/evaluate/judge.js";
import { foldProgress, haltDecision } from "../../../src/evaluate/score.js";
import { DEFAULT_HALT } from "../../../src/session/config.js";
import { base, cleanWorktrees, worktree } from "./replay.js";

afterEach(cleanWorktrees);

const W = base("", {}).weights;

interface Step {
  ev: Evaluation;
  score: number;
  improved: boolean;
  halt: boolean;
  feedback: string;
}

/** Runs each captured output as the test command of one step (step 0 is the baseline) and judges it. */
async function session(steps: { file: string; exit: number }[]): Promise<Step[]> {
  const earlier: JudgePoint[] = [];
  const out: Step[] = [];
  for (const [i, s] of steps.entries()) {
    const cwd = worktree({ run: s });
    const raw = (await evaluate(base(cwd, { test: "bin/run" }))).evaluation;
    const ev = judgeEvaluation(raw, i, earlier, W, []);
    const points = [
      ...earlier.map((e) => ({ step: e.step, score: e.evaluation.score, testsPass: e.evaluation.testsPass })),
      { step: i, score: ev.score, testsPass: ev.testsPass },
    ];
    const progress = foldProgress(points, 0.9)!;
    const halt = haltDecision(i === 0 ? undefined : progress, ev.testsPass, DEFAULT_HALT);
    const previousFailures = earlier[earlier.length - 1]?.evaluation.tests?.failures ?? [];
    const feedback = renderFeedback({
      step: i,
      ev,
      progress,
      halt,
      diagnostics: correlateDiagnostics(ev, i, earlier),
      failures: correlateFailures(ev, i, earlier),
      previousFailures,
    });
    out.push({ ev, score: ev.score, improved: progress.improved, halt: halt.shouldHalt && halt.reasons.some((r) => r.startsWith("success")), feedback });
    earlier.push({ step: i, evaluation: ev });
  }
  return out;
}

describe("hukkin/tomli, pytest 9 with unittest subTest (24 failed subtests)", () => {
  it.each(["default", "q"])("pytest %s: pytest's counts at every step, the wrong fix is progress, the right fix scores 1 and halts", async (style) => {
    const [bug, wrong, fixed] = await session([
      { file: `pytest/tomli-bug-${style}.txt`, exit: 1 },
      { file: `pytest/tomli-wrong-${style}.txt`, exit: 1 },
      { file: `pytest/tomli-fixed-${style}.txt`, exit: 0 },
    ]);
    // "24 failed, 16 passed", "9 failed, 16 passed", "16 passed": the summary lines' own numbers.
    expect(bug!.ev.tests).toMatchObject({ passed: 16, failed: 24, units: "subtests", testsRan: 16 });
    expect(wrong!.ev.tests).toMatchObject({ passed: 16, failed: 9, testsRan: 16 });
    expect(fixed!.ev.tests).toMatchObject({ passed: 16, failed: 0, total: 16 });
    expect(bug!.ev.tests!.failures[0]).toMatchObject({ name: "tests/test_data.py::TestData::test_valid [boolean]", file: "tests/test_data.py", line: 47 });
    expect(bug!.ev.tests!.failures.every((f) => f.message?.startsWith("AssertionError: "))).toBe(true);
    expect(bug!.ev.tests!.failures.map((f) => f.name)).not.toContain("(test command exited 1)");
    expect(bug!.ev.components.test).toBeCloseTo(16 / 40, 6);
    expect(wrong!.ev.components.test).toBeCloseTo(16 / 25, 6);
    expect(wrong!.improved).toBe(true);
    expect(wrong!.halt).toBe(false);
    // The fixed subtests are no longer reported: no test went missing.
    expect(fixed!.ev.components.test).toBe(1);
    expect(fixed!.ev.testIdentity).toBeUndefined();
    expect(fixed!.ev.notices.join("\n")).not.toMatch(/fewer test/);
    expect(fixed!.improved).toBe(true);
    expect(fixed!.halt).toBe(true);
    expect(bug!.feedback).toMatch(/^tests 16\/40 passed, 24 failed \(failed subtests counted beside their tests, as the runner counts them; 16 tests ran\)$/m);
  });

  it("pytest -v names the tests: the unittest test whose subtests fail is PASSED, its subtests are its failed units", async () => {
    const [bug, fixed] = await session([
      { file: "pytest/tomli-bug-v.txt", exit: 1 },
      { file: "pytest/tomli-fixed-v.txt", exit: 0 },
    ]);
    expect(bug!.ev.tests!.cases!.find((c) => c.name === "tests/test_data.py::TestData::test_valid")).toEqual({
      name: "tests/test_data.py::TestData::test_valid",
      status: "passed",
      units: { passed: 1, failed: 24, skipped: 0 },
    });
    expect(fixed!.ev.components.test).toBe(1);
    expect(fixed!.halt).toBe(true);
    // pytest names no passing subtest; its test PASSED with none failing shows them fixed.
    expect(fixed!.feedback).toMatch(/newly fixed \(22\):\n {2}- tests\/test_data\.py::TestData::test_valid \[boolean\]\n/);
    expect(fixed!.feedback).not.toMatch(/not seen passing/);
  });

  it("pytest without -v names no passing test: the fixed subtests are not called fixed", async () => {
    const [, fixed] = await session([
      { file: "pytest/tomli-bug-q.txt", exit: 1 },
      { file: "pytest/tomli-fixed-q.txt", exit: 0 },
    ]);
    // With the whole suite passing it is a count in the head, not a section listing 22 subtests (or 3 of them).
    expect(fixed!.feedback).toMatch(/\nnote: the suite passes; 22 earlier failures are no longer named by the runner\.\n/);
    expect(fixed!.feedback).not.toMatch(/not seen passing|not named by the runner \(|test_valid/);
  });

  it("a test deleted with its failing subtests takes them with it: it counts as their failures, not as one test", async () => {
    const bug = worktree({ run: { file: "pytest/tomli-bug-v.txt", exit: 1 } });
    const step0 = judgeEvaluation((await evaluate(base(bug, { test: "bin/run" }))).evaluation, 0, [], W, []);
    // The fixed run, less test_valid (as if deleted): its cases and counts without it.
    const fixed = worktree({ run: { file: "pytest/tomli-fixed-v.txt", exit: 0 } });
    const raw = (await evaluate(base(fixed, { test: "bin/run" }))).evaluation;
    const t = raw.tests!;
    const deleted = { ...raw, tests: { ...t, passed: 15, total: 15, cases: t.cases!.filter((c) => !c.name.endsWith("::test_valid")) } };
    const step1 = judgeEvaluation(deleted, 1, [{ step: 0, evaluation: step0 }], W, []);
    expect(step1.tests).toMatchObject({ passed: 15, failed: 25 });
    expect(step1.components.test).toBeLessThan(step0.components.test!);
    expect(step1.notices.join("\n")).toMatch(/test_valid \(went missing at step 1; the 25 assertions or subtests it ran count as failing\)/);
    // Judged again (an evaluation reused from the cache), it is the same.
    expect(judgeEvaluation(step1, 1, [{ step: 0, evaluation: step0 }], W, [])).toEqual(step1);
  });
});

describe("sindresorhus/query-string, AVA's known failures (test.failing)", () => {
  it("known failures are counted apart, as AVA does; the real fix (3e61882) renames one and scores 1 and halts", async () => {
    const [known, unexpected, fixed] = await session([
      { file: "ava/query-string-known-failures.txt", exit: 0 },
      { file: "ava/query-string-unexpected-pass.txt", exit: 1 },
      { file: "ava/query-string-fixed.txt", exit: 0 },
    ]);
    // "136 tests passed", "2 known failures".
    expect(known!.ev.tests).toMatchObject({ passed: 136, failed: 0, skipped: 2, total: 138 });
    // The code fixed, the test still marked failing: AVA fails it, named with AVA's reason.
    expect(unexpected!.ev.tests).toMatchObject({ passed: 136, failed: 1, skipped: 1 });
    expect(unexpected!.ev.tests!.failures).toEqual([
      {
        name: 'parse › types option: single element with `{arrayFormat: "comma"}`',
        message: "Test was expected to fail, but succeeded, you should stop marking the test as failing",
      },
    ]);
    expect(unexpected!.ev.testsPass).toBe(false);
    // The fix marks it `test` under a new name and adds a test: "138 tests passed", "1 known failure".
    expect(fixed!.ev.tests).toMatchObject({ passed: 136, failed: 0, skipped: 1 });
    expect(fixed!.ev.components.test).toBe(1);
    expect(fixed!.ev.testsPass).toBe(true);
    expect(fixed!.ev.notices.join("\n")).not.toMatch(/fewer test|missing/);
    expect(fixed!.halt).toBe(true);
  });

  it("a failing test marked test.failing is a test that ran and is now skipped: it counts as failing", async () => {
    const [failing, marked] = await session([
      { file: "ava/query-string-unexpected-pass.txt", exit: 1 },
      { file: "ava/query-string-known-failures.txt", exit: 0 },
    ]);
    expect(failing!.ev.testsPass).toBe(false);
    expect(marked!.ev.testsPass).toBe(false);
    expect(marked!.ev.notices.join("\n")).toMatch(
      /now skipped or missing and counts as failing: parse › types option: single element with `\{arrayFormat: "comma"\}` \(skipped at step 1\)/,
    );
  });
});

describe("micromatch/picomatch, mocha (dot and spec reporters)", () => {
  it.each(["dot", "spec"])("%s: the one failing test is named with its message and place; the fix scores 1 and halts", async (style) => {
    const [bug, fixed] = await session([
      { file: `mocha/picomatch-bug-${style}.txt`, exit: 1 },
      { file: `mocha/picomatch-fixed-${style}.txt`, exit: 0 },
    ]);
    expect(bug!.ev.tests!.failures).toEqual([
      {
        name: "options > options.matchBase > should split the basename on backslashes when the windows option is enabled",
        message: expect.stringMatching(/^AssertionError \[ERR_ASSERTION\]: The expression evaluated to a falsy value:\nassert\(isMatch\('foo\\\\bar\.js'/),
        file: "test/options.js",
        line: 28,
      },
    ]);
    expect(bug!.feedback).toMatch(
      /failing at baseline \(1\):\n {2}- options > options\.matchBase > should split the basename on backslashes when the windows option is enabled: AssertionError/,
    );
    expect(fixed!.ev.components.test).toBe(1);
    expect(fixed!.halt).toBe(true);
  });
});

describe("unjs/defu, vitest", () => {
  it("verbose: a test is one test whether it passes or fails, so the fixed one is seen passing", async () => {
    const [bug, wrong, fixed] = await session([
      { file: "vitest/defu-bug-verbose.txt", exit: 1 },
      { file: "vitest/defu-wrong-verbose.txt", exit: 1 },
      { file: "vitest/defu-fixed-verbose.txt", exit: 0 },
    ]);
    expect(bug!.ev.tests).toMatchObject({ passed: 21, failed: 2 });
    expect(bug!.ev.tests!.cases).toContainEqual({ name: "defu > should concat array values by default", status: "failed", file: "test/defu.test.ts" });
    expect(bug!.ev.tests!.failures.map((f) => f.name)).toContain("defu > should concat array values by default");
    expect(wrong!.improved).toBe(true);
    expect(wrong!.feedback).toMatch(/newly fixed \(1\):\n {2}- defu > should concat array values by default/);
    expect(wrong!.feedback).not.toMatch(/not seen passing/);
    expect(fixed!.feedback).toMatch(/newly fixed \(1\):\n {2}- defu > should correctly type differing array values/);
    expect(fixed!.ev.components.test).toBe(1);
    expect(fixed!.halt).toBe(true);
  });

  it("a test file that cannot be transformed or holds no test is a failure at that file, at the line the error gives", async () => {
    for (const file of ["vitest/defu-file-errors-default.txt", "vitest/defu-file-errors-json.txt"]) {
      const cwd = worktree({ run: { file, exit: 1 } });
      const { evaluation: ev } = await evaluate(base(cwd, { test: "bin/run" }));
      expect(ev.tests, file).toMatchObject({ passed: 23, failed: 2 });
      const [transform, empty] = ev.tests!.failures;
      expect(transform, file).toMatchObject({ name: "test/broken.test.ts", file: "test/broken.test.ts", line: 4 });
      expect(transform!.message, file).toMatch(/Transform failed with 1 error:\n\[PARSE_ERROR\] Expected `,` or `\)` but found `;`/);
      expect(empty, file).toMatchObject({ name: "test/empty.test.ts", file: "test/empty.test.ts" });
      expect(empty!.message, file).toMatch(/No test suite found in file/);
    }
  });
});

describe("ljharb/qs, tape (counts assertions)", () => {
  it("tape's own counts: the wrong fix that fixes one failing assertion is progress, the right fix scores 1 and halts", async () => {
    const [bug, wrong, fixed] = await session([
      { file: "tape/qs-bug.txt", exit: 1 },
      { file: "tape/qs-wrong.txt", exit: 1 },
      { file: "tape/qs-fixed.txt", exit: 0 },
    ]);
    // "# pass 421 / # fail 5": two of them are skipped assertions (`# SKIP`), which tape counts as passing.
    expect(bug!.ev.tests).toMatchObject({ passed: 419, failed: 5, skipped: 2, total: 426, units: "assertions", testsRan: 121 });
    expect(wrong!.ev.tests).toMatchObject({ passed: 420, failed: 4 });
    expect(fixed!.ev.tests).toMatchObject({ passed: 424, failed: 0 });
    expect(bug!.ev.tests!.failures[0]).toEqual({
      name: "RFC 1738 serialization",
      message: "should be strictly equal\nexpected: a=b+c\nactual: a=b%20c\n(3 of this test's 4 assertions failed; the first is shown)",
      file: "test/stringify.js",
      line: 1256,
    });
    // Both wrong and buggy runs fail the same two tests: only the assertions show the progress.
    expect(wrong!.ev.components.test).toBeGreaterThan(bug!.ev.components.test!);
    expect(wrong!.improved).toBe(true);
    expect(fixed!.ev.components.test).toBe(1);
    expect(fixed!.ev.testIdentity).toBeUndefined();
    expect(fixed!.halt).toBe(true);
  });
});
