/**
 * The field trial's cases (camelcase with xo, AVA and tsd) replayed from real captured outputs through
 * the evaluator and the feedback, as a session's step 0 (preflight) renders them.
 */
import { afterEach, describe, expect, it } from "vitest";
import { evaluate, type Evaluation } from "../../../src/evaluate/evaluate.js";
import { correlateDiagnostics, correlateFailures, renderFeedback } from "../../../src/evaluate/feedback.js";
import { base, cleanWorktrees, worktree } from "./replay.js";

afterEach(cleanWorktrees);

/** The feedback of a preflight (step 0) on this evaluation. */
function preflight(ev: Evaluation): string {
  const progress = { step: 0, score: ev.score, ema: ev.score, bestScore: ev.score, bestStep: 0, noImproveStreak: 0, improved: true };
  return renderFeedback({ step: 0, ev, progress, halt: { shouldHalt: false, reasons: ["tests failing"] }, diagnostics: correlateDiagnostics(ev, 0, []), failures: correlateFailures(ev, 0, []), sessionId: "s1" });
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
    const later = renderFeedback({ step: 1, ev, progress, halt: { shouldHalt: false, reasons: [] }, diagnostics: correlateDiagnostics(ev, 1, []), failures: correlateFailures(ev, 1, []) });
    expect(later).toMatch(/new test failures \(2\):\n {2}- double\(0\): .* \[new\]\n/);
  });

  it("a failing lint whose output gives no diagnostic shows its output beside named test failures", async () => {
    const cwd = worktree({ ava: { file: "ava/ava6-many-2-failing.txt", exit: 1 }, lint: { exit: 1, text: "some-linter: 2 problems in index.js (unknown format)\n" } });
    const { evaluation: ev } = await evaluate(base(cwd, { test: "bin/ava", lint: "bin/lint" }));
    expect(ev.diagnostics).toEqual([]);
    expect(preflight(ev)).toMatch(/lint output \(exit 1\) \(1\):\n {2}- some-linter: 2 problems in index\.js/);
  });
});
