/**
 * The field trial's cases (camelcase with xo, AVA and tsd) replayed from real captured outputs through
 * the evaluator and the feedback, as a session's step 0 (preflight) renders them.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type Evaluation, evaluate } from "../../../src/evaluate/evaluate.js";
import { correlateDiagnostics, correlateFailures, renderFeedback } from "../../../src/evaluate/feedback.js";
import { judgeEvaluation } from "../../../src/evaluate/judge.js";
import { chainAdvice } from "../../../src/evaluate/runner-hint.js";
import { base, cleanWorktrees, worktree } from "./replay.js";

afterEach(cleanWorktrees);

/** The feedback of a preflight (step 0) on this evaluation. */
function preflight(ev: Evaluation): string {
  const progress = { step: 0, score: ev.score, ema: ev.score, bestScore: ev.score, bestStep: 0, noImproveStreak: 0, improved: true };
  return renderFeedback({
    step: 0,
    ev,
    progress,
    halt: { shouldHalt: false, reasons: ["tests failing"] },
    diagnostics: correlateDiagnostics(ev, 0, []),
    failures: correlateFailures(ev, 0, []),
    sessionId: "s1",
  });
}

describe("split form: lintCmd xo beside testCmd ava", () => {
  it("a failing xo at the baseline shows its errors in the preflight's feedback beside AVA's named failures", async () => {
    const cwd = worktree({ ava: { file: "ava/ava6-many-2-failing.txt", exit: 1 }, xo: { file: "xo/xo054-default.txt", exit: 1 } });
    const { evaluation: ev } = await evaluate(base(cwd, { test: "bin/ava", lint: "bin/xo" }));
    expect(ev.diagnostics.filter((d) => d.command === "lint").map((d) => `${d.file}:${d.line}:${d.column} ${d.code ?? ""}`)).toEqual([
      "index.js:3:1 no-warning-comments",
      "index.js:5:2 no-var",
      "index.js:6:8 no-unused-vars",
      "index.js:7:6 no-eq-null",
      "index.js:7:12 eqeqeq",
      "broken.js:1:19 ",
      "lib/util.js:2:14 semi",
    ]);
    const text = preflight(ev);
    expect(text).toMatch(/lint FAILED/);
    expect(text).toMatch(/errors from lint, tests and checks \(6\):\n {2}- index\.js:5:2 no-var Unexpected var, use let or const instead/);
    expect(text).toMatch(/warnings \(1\):\n {2}- index\.js:3:1 no-warning-comments/);
    expect(text).toMatch(/double\(0\): Difference/);
  });

  it("the baseline's problems are not called new in the preflight's feedback", async () => {
    const cwd = worktree({ ava: { file: "ava/ava6-many-2-failing.txt", exit: 1 }, xo: { file: "xo/xo054-default.txt", exit: 1 } });
    const { evaluation: ev } = await evaluate(base(cwd, { test: "bin/ava", lint: "bin/xo" }));
    const text = preflight(ev);
    expect(text).not.toMatch(/\bnew\b/);
    expect(text).toMatch(/failing at baseline \(2\):\n {2}- double\(0\): Difference \(- actual, \+ expected\): - 1 \+ 0 \(test\/double\.test\.js:5\)\n/);
    expect(text).toMatch(/ {2}- index\.js:5:2 no-var Unexpected var, use let or const instead\n/);
    // At a later step the same problems first seen there are new.
    const progress = { step: 1, score: ev.score, ema: ev.score, bestScore: ev.score, bestStep: 1, noImproveStreak: 0, improved: true };
    const later = renderFeedback({
      step: 1,
      ev,
      progress,
      halt: { shouldHalt: false, reasons: [] },
      diagnostics: correlateDiagnostics(ev, 1, []),
      failures: correlateFailures(ev, 1, []),
    });
    expect(later).toMatch(/new test failures \(2\):\n {2}- double\(0\): .* \[new\]\n/);
  });

  it("a failing lint whose output gives no diagnostic shows its output beside named test failures", async () => {
    const cwd = worktree({
      ava: { file: "ava/ava6-many-2-failing.txt", exit: 1 },
      lint: { exit: 1, text: "some-linter: 2 problems in index.js (unknown format)\n" },
    });
    const { evaluation: ev } = await evaluate(base(cwd, { test: "bin/ava", lint: "bin/lint" }));
    expect(ev.diagnostics).toEqual([]);
    expect(preflight(ev)).toMatch(/lint output \(exit 1\) \(1\):\n {2}- some-linter: 2 problems in index\.js/);
  });
});

describe("chain form: xo && ava && tsd", () => {
  const chain = "bin/xo && bin/ava && bin/tsd";

  it("xo run as a script file (bin/xo.js) is a checker too: the chain reads as stopped, as the start's advice calls it", async () => {
    const cwd = worktree({ "xo.js": { file: "xo/xo054-default.txt", exit: 1 }, ava: { file: "ava/ava4-default-failing.txt", exit: 1 } });
    const { evaluation: ev } = await evaluate(base(cwd, { test: "bin/xo.js && bin/ava" }));
    expect(ev.tests).toMatchObject({ passed: 0, failed: 1, format: "stopped", notRun: ["bin/ava"] });
    expect(ev.tests!.failures[0]!.name).toBe("(xo.js exited 1)");
    expect(chainAdvice("bin/xo.js && bin/ava", cwd)).toMatch(/"lintCmd":"bin\/xo.js"/);
  });

  it("xo failing stops the chain: the feedback names xo and its errors, not unreadable test output", async () => {
    const cwd = worktree({ xo: { file: "xo/xo054-default.txt", exit: 1 }, ava: { file: "ava/ava4-default-failing.txt", exit: 1 }, tsd: { exit: 0 } });
    const { evaluation: ev } = await evaluate(base(cwd, { test: chain }));
    expect(ev.tests).toMatchObject({ passed: 0, failed: 1, total: 1, format: "stopped", notRun: ["bin/ava", "bin/tsd"] });
    expect(ev.tests!.failures[0]!.name).toBe("(xo exited 1)");
    expect(ev.diagnostics.filter((d) => d.source === "xo" && d.severity === "error")).toHaveLength(6);
    expect(ev.notices.join("\n")).not.toMatch(/could not be read|--tap/);
    const text = preflight(ev);
    expect(text).toMatch(/^tests 0\/1 passed, 1 failed \(not run: bin\/ava, bin\/tsd\)$/m);
    expect(text).toMatch(/- \(xo exited 1\): "bin\/xo" failed and stopped the chain before bin\/ava, bin\/tsd: no test ran/);
    expect(text).toMatch(/- index\.js:5:2 no-var Unexpected var/);
    expect(text).not.toMatch(/UNREADABLE|--tap|test output \(exit|formats read/);
  });

  it("a baseline stopped by xo is no yardstick: the first step that runs AVA counts all its tests", async () => {
    const W = base("", {}).weights;
    const stopped = worktree({ xo: { file: "xo/xo054-default.txt", exit: 1 }, ava: { exit: 0 }, tsd: { exit: 0 } });
    const step0 = judgeEvaluation((await evaluate(base(stopped, { test: chain }))).evaluation, 0, [], W, []);
    const ran = worktree({ xo: { exit: 0 }, ava: { file: "ava/ava6-many-2-failing.txt", exit: 1 }, tsd: { exit: 0 } });
    const step1 = judgeEvaluation((await evaluate(base(ran, { test: chain }))).evaluation, 1, [{ step: 0, evaluation: step0 }], W, []);
    expect(step1.tests).toMatchObject({ passed: 18, failed: 2, total: 20 });
    expect(step1.components.test).toBeCloseTo(0.9, 6);
    expect(step1.notices.join("\n")).not.toMatch(/new tests? since step 0/);
    // And the next stop by xo counts AVA's 20 tests as not run, named.
    const step2 = judgeEvaluation(
      (await evaluate(base(stopped, { test: chain }))).evaluation,
      2,
      [
        { step: 0, evaluation: step0 },
        { step: 1, evaluation: step1 },
      ],
      W,
      [],
    );
    expect(step2.components.test).toBe(0);
    expect(step2.notices.join("\n")).toMatch(
      /20 tests that ran at an earlier step are now skipped or missing.*ava: double\(0\) \(not run since step 2: `bin\/ava` did not start/,
    );
  });

  it("a runner that fails first with unreadable output is still unreadable, with its runner's fix", async () => {
    const cwd = worktree({ ava: { exit: 1, text: "something went wrong\n" }, xo: { exit: 0 } });
    const { evaluation: ev } = await evaluate(base(cwd, { test: "bin/ava && bin/xo" }));
    expect(ev.tests).toBeNull();
  });
});

describe("more-itertools: pytest -q and unittest", () => {
  const W = base("", {}).weights;

  it("pytest -q names the failing tests, and the notice for a deleted one says so", async () => {
    const before = worktree({ pytest: { file: "pytest/more-iter-q-failing.txt", exit: 1 } });
    const step0 = judgeEvaluation((await evaluate(base(before, { test: "bin/pytest" }))).evaluation, 0, [], W, []);
    expect(step0.tests!.failures.map((f) => f.name)).toEqual(["tests/test_more.py::LastTests::test_empty", "tests/test_more.py::ChunkedTests::test_odd"]);
    const deleted = worktree({ pytest: { file: "pytest/more-iter-q-deleted.txt", exit: 1 } });
    const step1 = judgeEvaluation((await evaluate(base(deleted, { test: "bin/pytest" }))).evaluation, 1, [{ step: 0, evaluation: step0 }], W, []);
    expect(step1.tests).toMatchObject({ passed: 4, failed: 2, total: 6 });
    const notices = step1.notices.join("\n");
    expect(notices).toMatch(
      /1 fewer test ran than the 6 at step 0, since step 1: it counts as failing \(the output names only the failing tests, so the missing ones cannot be named/,
    );
    expect(notices).not.toMatch(/does not name tests/);
  });

  it("a conftest.py calling os._exit(0) after readable steps: the notices agree that the signal fails", async () => {
    const before = worktree({ pytest: { file: "pytest/more-iter-q-failing.txt", exit: 1 } });
    const step0 = judgeEvaluation((await evaluate(base(before, { test: "bin/pytest" }))).evaluation, 0, [], W, []);
    const exited = worktree({ pytest: { file: "pytest/more-iter-q-os-exit.txt", exit: 0 } });
    const raw = (await evaluate(base(exited, { test: "bin/pytest" }))).evaluation;
    expect(raw.notices.join("\n")).toMatch(/so the test score follows the exit code \(0: pass\)/);
    const step1 = judgeEvaluation(raw, 1, [{ step: 0, evaluation: step0 }], W, []);
    expect(step1.components.test).toBe(0);
    expect(step1.testsPass).toBe(false);
    const notices = step1.notices.join("\n");
    expect(notices).toMatch(
      /^The test output can no longer be read, although step 0 reported 6 tests by its output: the test signal counts as failing instead of following the exit code/,
    );
    expect(notices).toMatch(
      /Test output could not be read, and the test score counts as failing instead of following the exit code \(0: pass\)\. To get counts/,
    );
    expect(notices).not.toMatch(/follows the exit code/);
    // Judged again (a reused evaluation): the same; in a history without readable steps it follows the exit code again.
    expect(judgeEvaluation(step1, 1, [{ step: 0, evaluation: step0 }], W, [])).toEqual(step1);
    const alone = judgeEvaluation(step1, 1, [], W, []);
    expect(alone.components.test).toBe(1);
    expect(alone.notices.join("\n")).toMatch(/so the test score follows the exit code \(0: pass\)/);
    expect(alone.notices.join("\n")).not.toMatch(/instead/);
  });

  it("unittest's traceback (an IndexError in the code under test) is the failing test's, not an error of its own", async () => {
    const cwd = worktree({ unittest: { file: "unittest/more-iter-default-failing.stderr.txt", exit: 1 } });
    const { evaluation: ev } = await evaluate(base(cwd, { test: "bin/unittest" }));
    expect(ev.tests!.failures[0]).toEqual({
      name: "tests.test_more.LastTests.test_empty",
      message: "IndexError: list index out of range",
      file: "more_itertools/more.py",
      line: 13,
    });
    expect(ev.diagnostics).toEqual([]);
    const text = preflight(ev);
    expect(text).toMatch(
      /failing at baseline \(2\):\n {2}- tests\.test_more\.LastTests\.test_empty: IndexError: list index out of range \(more_itertools\/more\.py:13\)/,
    );
    expect(text).not.toMatch(/errors from lint/);
  });

  it("a traceback stays a diagnostic where the test output could not be read, and a compile error in a test run stays one", async () => {
    const crash = worktree({ run: { file: "python/traceback-stdlib.stderr.txt", exit: 1 } });
    const crashed = (await evaluate(base(crash, { test: "bin/run" }))).evaluation;
    expect(crashed.tests).toBeNull();
    expect(crashed.diagnostics.map((d) => [d.source, d.command])).toContainEqual(["python", "test"]);
    const compile = worktree({ cargo: { file: "cargo/test-compile-error.stderr.txt", exit: 101 } });
    const compiled = (await evaluate(base(compile, { test: "bin/cargo" }))).evaluation;
    expect(compiled.tests).not.toBeNull();
    expect(compiled.diagnostics.some((d) => d.source === "rustc" && d.command === "test")).toBe(true);
  });
});
