import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import type { Evaluation } from "../../../src/evaluate/evaluate.js";
import { correlate, groupDiagnostics, renderFeedback, testsLine, withoutBanners } from "../../../src/evaluate/feedback.js";
import { parseDiagnostics } from "../../../src/evaluate/parsers/index.js";
import type { Diagnostic, TestFailure } from "../../../src/evaluate/types.js";

const progress = { step: 3, score: 0.2, ema: 0.3, bestScore: 0.8, bestStep: 1, noImproveStreak: 2, improved: false };
const halt = { shouldHalt: false, reasons: ["tests failing"] };

function evaluation(diagnostics: Diagnostic[], failures: TestFailure[], output = ""): Evaluation {
  return {
    commands: {
      build: { cmd: "tsc", exitCode: 2, timedOut: false, durationMs: 10, output, truncated: false },
      test: { cmd: "node --test", exitCode: 1, timedOut: false, durationMs: 10, output: "", truncated: false },
    },
    okBuild: false,
    tests: { passed: 1, failed: failures.length, skipped: 0, total: failures.length + 1, failures, format: "tap" },
    components: {},
    score: 0.2,
    testsPass: false,
    diagnostics,
    notices: [],
    commandsMs: 20,
  };
}

describe("feedback", () => {
  it("stays under 2,000 o200k tokens for a build with 500 errors, grouping repeats and counting what is left out", () => {
    const lines: string[] = [];
    for (let i = 0; i < 500; i++) {
      // 100 distinct problems, each in 5 files: what a renamed export does to a codebase.
      lines.push(`src/mod${i % 50}/file${i}.ts(${i + 1},${(i % 40) + 1}): error TS2304: Cannot find name 'helper${i % 100}'.`);
    }
    const diags = parseDiagnostics(lines.join("\n"), { cwd: "/w" }).map((d) => ({ ...d, command: "build" }));
    expect(diags).toHaveLength(500);
    const ev = evaluation(diags, [], lines.join("\n"));
    const text = renderFeedback({ step: 3, ev, progress, halt, diagnostics: correlate(diags, 3, [], (d) => d.message), failures: [] });
    const tokens = countTokens(text);
    expect(tokens).toBeLessThan(2000);
    expect(text).toMatch(/build errors \(100\):/);
    expect(text).toMatch(/5 places: src\/mod\d+\/file\d+\.ts:\d+:\d+/);
    expect(text).toMatch(/… \d+ more not shown/);
    expect(text).toMatch(/items left out to keep this short; trm_read_log/);
    expect(text.startsWith("step 3: score 0.200")).toBe(true);
    expect(text.trimEnd().endsWith("halt: continue: tests failing")).toBe(true);
  });

  it("names the formats of the runner the command names when its output could not be read, and only those", () => {
    const base = evaluation([], []);
    const withTest = (test: Partial<NonNullable<Evaluation["commands"]["test"]>>): Evaluation => ({
      ...base,
      tests: null,
      commands: { ...base.commands, test: { ...base.commands.test!, ...test } },
    });
    const noteOf = (ev: Evaluation) =>
      renderFeedback({ step: 3, ev, progress, halt, diagnostics: [], failures: [] })
        .split("\n")
        .filter((l) => / outputs? read: /.test(l));
    const vitest = noteOf(withTest({ cmd: "npx vitest run", output: "Error: Cannot find module './setup'\n" }));
    expect(vitest).toEqual([
      "note: Vitest outputs read: Vitest (default, verbose and JSON reporters); TAP (vitest --reporter=tap or tap-flat); JUnit XML (vitest --reporter=junit).",
    ]);
    expect(countTokens(vitest[0]!)).toBeLessThan(50);
    // Not every runner's: neither Jest's nor pytest's formats are named for a vitest command.
    expect(vitest.join()).not.toMatch(/Jest|pytest/);
    // A command that could not start, a timeout, an empty output, a command that names no runner: no list.
    expect(noteOf(withTest({ cmd: "pnpm vitest run", exitCode: 127, output: "sh: 1: pnpm: not found\n" }))).toEqual([]);
    expect(noteOf(withTest({ cmd: "npx vitest run", exitCode: null, timedOut: true, output: "RUN v3\n" }))).toEqual([]);
    expect(noteOf(withTest({ cmd: "npx vitest run", output: "" }))).toEqual([]);
    expect(noteOf(withTest({ cmd: "./run-tests.sh", output: "something\n" }))).toEqual([]);
  });

  it("leaves the package manager's script echo and Vitest's RUN banner out of an output excerpt", () => {
    const out = [
      "",
      "> defu@6.1.7 test /w",
      "> pnpm lint && vitest run",
      "",
      " RUN  v4.1.12 /WORKTREE",
      "",
      "Error: Cannot find module './setup'",
      "> not a banner",
    ].join("\n");
    expect(withoutBanners(out).trim()).toBe("Error: Cannot find module './setup'\n> not a banner");
  });

  it("orders build errors, new failures, older failures, then lint", () => {
    const d = (command: string, message: string): Diagnostic => ({ file: "a.ts", line: 1, message, severity: "error", source: "x", command });
    const diags = [d("lint", "lint problem"), d("build", "build problem")];
    const failures = [{ name: "old test" }, { name: "new test" }];
    const ev = evaluation(diags, failures);
    const text = renderFeedback({
      step: 3,
      ev,
      progress,
      halt,
      diagnostics: diags.map((item) => ({ item, introducedAtStep: 3 })),
      failures: [
        { item: failures[0]!, introducedAtStep: 1 },
        { item: failures[1]!, introducedAtStep: 3 },
      ],
    });
    const order = ["build problem", "new test", "old test", "lint problem"].map((s) => text.indexOf(s));
    expect(order.every((x) => x > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toMatch(/old test \[since step 1\]/);
  });

  it("lists newly failing, still failing and newly fixed tests, and says how to read a bare failure's log", () => {
    const now = [{ name: "still broken", message: "expected 1", file: "t.js", line: 3 }, { name: "newly broken" }];
    const ev = evaluation([], now);
    ev.tests!.cases = [
      { name: "still broken", status: "failed" },
      { name: "newly broken", status: "failed" },
      { name: "fixed one", status: "passed" },
      { name: "fixed two", status: "passed" },
    ];
    const text = renderFeedback({
      step: 4,
      ev,
      progress: { ...progress, step: 4 },
      halt,
      diagnostics: [],
      failures: [
        { item: now[0]!, introducedAtStep: 2 },
        { item: now[1]!, introducedAtStep: 4 },
      ],
      previousFailures: [{ name: "still broken" }, { name: "fixed one" }, { name: "fixed two" }],
      sessionId: "abc123",
    });
    expect(text).toMatch(/new test failures \(1\):\n {2}- newly broken \[new\] — trm_read_log \{"sessionId":"abc123","at":"4","command":"test"\}/);
    expect(text).toMatch(/still failing \(1\):\n {2}- still broken: expected 1 \(t\.js:3\) \[since step 2\]\n/);
    expect(text).toMatch(/newly fixed \(2\):\n {2}- fixed one\n {2}- fixed two/);
    expect(text).not.toMatch(/no longer reported/);
  });

  it("points at the test log with its arguments when failing tests are counted but none is named, even beside other problems", () => {
    // The field trial's AVA 4 at the baseline: 3 failed, failures: [], and a lint error beside them.
    const lint: Diagnostic = {
      file: "index.js",
      line: 12,
      column: 5,
      code: "no-var",
      message: "Unexpected var.",
      severity: "error",
      source: "xo",
      command: "lint",
    };
    const ev = evaluation([lint], []);
    ev.tests = { passed: 5, failed: 3, skipped: 0, total: 8, failures: [], format: "ava" };
    ev.commands.test!.output = "  ✖ lib › mul multiplies \n  3 tests failed";
    const at0 = (e: Evaluation) =>
      renderFeedback({
        step: 0,
        ev: e,
        progress: { ...progress, step: 0 },
        halt,
        diagnostics: [{ item: lint, introducedAtStep: 0 }],
        failures: [],
        sessionId: "abc123",
      });
    const text = at0(ev);
    expect(text).toContain(
      'note: 3 failing tests counted, but the output names none of them: read it with trm_read_log {"sessionId":"abc123","at":"0","command":"test"}',
    );
    expect(text).toMatch(/test output \(exit 1\) \(1\):\n {2}- ✖ lib › mul multiplies/);
    // Counts from a failed quick gate (the full suite skipped) are in the quickTest log.
    const gated = evaluation([lint], []);
    gated.commands = {
      quickTest: { ...gated.commands.test!, cmd: "npx ava test/quick.js" },
      test: { ...gated.commands.test!, exitCode: null, skipped: "quickTestCmd failed" },
    };
    gated.tests = { ...ev.tests };
    expect(at0(gated)).toContain('"at":"0","command":"quickTest"}');
    // Named failures carry the pointer themselves.
    const named = evaluation([], [{ name: "a" }]);
    expect(renderFeedback({ step: 1, ev: named, progress, halt, diagnostics: [], failures: [{ item: { name: "a" }, introducedAtStep: 1 }] })).not.toMatch(
      /names none/,
    );
  });

  it("lists as fixed only tests this output shows passing; the others are no longer reported", () => {
    const failures = [{ name: "still broken", message: "expected 1" }];
    const render = (ev: Evaluation) =>
      renderFeedback({
        step: 2,
        ev,
        progress: { ...progress, step: 2 },
        halt,
        diagnostics: [],
        failures: [{ item: failures[0]!, introducedAtStep: 1 }],
        previousFailures: [{ name: "still broken" }, { name: "passes now" }, { name: "deleted" }],
      });
    // Named output: one seen passing, one absent (deleted, or in a part of a chain that did not run).
    const ev = evaluation([], failures);
    ev.tests!.cases = [
      { name: "still broken", status: "failed" },
      { name: "passes now", status: "passed" },
    ];
    expect(render(ev)).toMatch(/newly fixed \(1\):\n {2}- passes now\nno longer reported, not seen passing \(1\):\n {2}- deleted\n/);
    // A crash that printed no counts, or output that names no passing test: nothing is seen passing.
    const crash = evaluation([], failures);
    crash.tests = { passed: null, failed: 1, skipped: null, total: null, failures, format: "go-test" };
    const text = render(crash);
    expect(text).not.toMatch(/newly fixed/);
    expect(text).toMatch(/no longer reported, not seen passing \(2\):\n {2}- passes now\n {2}- deleted/);
  });

  it("shows counts the output did not give as ?, never 0", () => {
    expect(testsLine({ passed: null, failed: 2, skipped: null, total: null })).toBe("tests ?/? passed, 2 failed");
    expect(testsLine({ passed: 5, failed: 3, skipped: 1, total: 9 })).toBe("tests 5/9 passed, 3 failed, 1 skipped");
  });

  it("groups only identical problems, keeping first-appearance steps apart", () => {
    const mk = (file: string, message: string, at: number) => ({
      item: { file, line: 1, message, severity: "error" as const, source: "tsc" },
      introducedAtStep: at,
    });
    const groups = groupDiagnostics([mk("a.ts", "X", 1), mk("b.ts", "X", 1), mk("c.ts", "X", 2), mk("d.ts", "Y", 1)]);
    expect(groups.map((g) => g.locations.length)).toEqual([2, 1, 1]);
  });
});
