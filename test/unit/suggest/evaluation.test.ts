import { describe, expect, it } from "vitest";
import type { Evaluation } from "../../../src/evaluate/evaluate.js";
import type { Diagnostic, TestFailure } from "../../../src/evaluate/types.js";
import { classifyDiagnostics, type Point, suggestionsFromEvaluations } from "../../../src/suggest/from-evaluation.js";
import { rankSuggestions } from "../../../src/suggest/rank.js";

function ev(over: Partial<Evaluation> = {}): Evaluation {
  return { commands: {}, components: {}, score: 1, testsPass: true, diagnostics: [], notices: [], commandsMs: 0, ...over };
}
const cmd = (output: string, exitCode = 1) => ({ cmd: "x", exitCode, timedOut: false, durationMs: 1, output, truncated: false });
const tests = (failures: TestFailure[], passed = 3) => ({
  passed,
  failed: failures.length,
  skipped: 0,
  total: passed + failures.length,
  failures,
  format: "tap",
});
const tscOut =
  "src/a.ts(4,36): error TS2304: Cannot find name 'add'.\nsrc/b.ts(9,3): error TS2304: Cannot find name 'add'.\nsrc/a.ts(7,23): error TS7006: Parameter 'value' implicitly has an 'any' type.\n";
const tscDiags: Diagnostic[] = [
  { file: "src/a.ts", line: 4, column: 36, code: "TS2304", message: "Cannot find name 'add'.", severity: "error", source: "tsc" },
  { file: "src/b.ts", line: 9, column: 3, code: "TS2304", message: "Cannot find name 'add'.", severity: "error", source: "tsc" },
  { file: "src/a.ts", line: 7, column: 23, code: "TS7006", message: "Parameter 'value' implicitly has an 'any' type.", severity: "error", source: "tsc" },
];
const eslintDiag: Diagnostic = {
  file: "src/c.js",
  line: 2,
  column: 7,
  code: "prefer-const",
  message: "'x' is never reassigned. Use 'const' instead.",
  severity: "error",
  source: "eslint",
};
const run = (entries: Point[], best?: Point, perfDirection: "lower" | "higher" = "lower") =>
  suggestionsFromEvaluations({ entries, best: best ?? entries[entries.length - 1], perfDirection, sessionId: "s1" });

describe("suggestions from the last evaluation", () => {
  it("build errors are critical, one per distinct error with its other locations", () => {
    const s = run([{ step: 1, evaluation: ev({ okBuild: false, score: 0, diagnostics: tscDiags, commands: { build: cmd(tscOut) } }) }]);
    expect(s.map((x) => [x.priority, x.category, x.file, x.line])).toEqual([
      ["critical", "build", "src/a.ts", 4],
      ["critical", "build", "src/a.ts", 7],
    ]);
    expect(s[0]!.message).toBe("TS2304 Cannot find name 'add'. (also at src/b.ts:9)");
    expect(s[0]!.action).toMatch(/Import or declare/);
    expect(s[1]!.action).toMatch(/explicit type/);
  });

  it("says since when a build error has been there", () => {
    const broken = ev({ okBuild: false, score: 0, diagnostics: tscDiags.slice(2), commands: { build: cmd(tscOut) } });
    const s = run([
      { step: 1, evaluation: broken },
      { step: 2, evaluation: broken },
    ]);
    expect(s[0]!.message).toMatch(/\(since step 1\)$/);
  });

  it("a failed build without readable diagnostics still gets a critical suggestion with the output's tail", () => {
    const s = run([{ step: 1, evaluation: ev({ okBuild: false, score: 0, commands: { build: cmd("compiling\nSegmentation fault", 139) } }) }]);
    expect(s).toEqual([
      expect.objectContaining({ priority: "critical", category: "build", message: "build command exited 139: compiling | Segmentation fault" }),
    ]);
  });

  it("a test failure absent from the previous step is new (high); one that was there is old (medium)", () => {
    const old: TestFailure = { name: "median of even length", message: "expected 2.5, got 2" };
    const fresh: TestFailure = { name: "median of odd length", message: "expected 2, got 1", file: "test/stats.test.js", line: 12 };
    const s = run([
      { step: 1, evaluation: ev({ commands: { test: cmd("") }, tests: tests([old]), score: 0.75, testsPass: false }) },
      { step: 2, evaluation: ev({ commands: { test: cmd("") }, tests: tests([old, fresh], 2), score: 0.5, testsPass: false }) },
    ]);
    const t = s.filter((x) => x.category === "test");
    expect(t.map((x) => x.priority)).toEqual(["medium", "high"]);
    expect(t[1]).toMatchObject({ file: "test/stats.test.js", line: 12, message: "test fails (new at step 2): median of odd length — expected 2, got 1" });
    expect(t[0]!.message).toMatch(/since step 1/);
  });

  it("identical failures at one place are one item with a count and the shared cause; a bare one names trm_read_log", () => {
    const same = (name: string): TestFailure => ({
      name,
      message: "TypeError: Cannot read properties of undefined (reading 'toUpperCase')",
      file: "index.js",
      line: 169,
    });
    const bare: TestFailure = { name: "(test command exited 1)" };
    const s = run([
      {
        step: 1,
        evaluation: ev({ commands: { test: cmd("") }, tests: tests(["a", "b", "c", "d", "e"].map(same).concat(bare)), score: 0.3, testsPass: false }),
      },
    ]);
    const t = s.filter((x) => x.category === "test");
    expect(t).toHaveLength(2);
    expect(t[0]).toMatchObject({ file: "index.js", line: 169 });
    expect(t[0]!.message).toMatch(/^5 tests fail with one cause at index\.js:169: TypeError: Cannot read properties/);
    expect(t[0]!.action).toMatch(/all 5 should pass together/);
    expect(t[1]!.action).toMatch(/trm_read_log \{"sessionId":"s1","at":"1","command":"test"\}/);
  });

  it("unreadable test output is a high suggestion naming the formats that are read", () => {
    const s = run([{ step: 1, evaluation: ev({ commands: { test: cmd("weird runner output") }, tests: null, score: 0 }) }]);
    expect(s[0]).toMatchObject({ priority: "high", category: "test" });
    expect(s[0]!.action).toMatch(/TAP, JUnit XML/);
  });

  it("tests skipped after a failed build say nothing more than the build error", () => {
    const s = run([
      {
        step: 1,
        evaluation: ev({
          okBuild: false,
          diagnostics: tscDiags.slice(2),
          commands: { build: cmd(tscOut), test: { ...cmd(""), exitCode: null, skipped: "build failed" } },
          tests: null,
        }),
      },
    ]);
    expect(s.every((x) => x.category === "build")).toBe(true);
  });

  it("lint problems are medium (errors) or low (warnings)", () => {
    const warn: Diagnostic = { ...eslintDiag, line: 5, severity: "warning", code: "no-console", message: "Unexpected console statement." };
    const s = run([{ step: 1, evaluation: ev({ okLint: false, diagnostics: [eslintDiag, warn] }) }]);
    expect(s.map((x) => [x.priority, x.category, x.line])).toEqual([
      ["medium", "lint", 2],
      ["low", "lint", 5],
    ]);
    expect(s[0]!.action).toMatch(/eslint --fix/);
  });

  it("a score more than 10% below the best step is a high regression; 10% or less is not", () => {
    const best = { step: 1, evaluation: ev({ score: 0.9 }) };
    expect(run([best, { step: 2, evaluation: ev({ score: 0.8 }) }], best)).toEqual([
      expect.objectContaining({ priority: "high", category: "regression", message: "score 0.800 is 11% below the best, 0.900 at step 1" }),
    ]);
    expect(run([best, { step: 2, evaluation: ev({ score: 0.81 }) }], best)).toEqual([]);
  });

  it("perf regressions follow the session's direction", () => {
    const p = (step: number, value: number) => ({ step, evaluation: ev({ perf: { value, score: 1 }, commands: { bench: cmd("", 0) } }) });
    expect(run([p(1, 100), p(2, 115)], undefined, "lower")).toEqual([
      expect.objectContaining({ category: "perf", priority: "high", message: "bench 115 is 15% slower than the best, 100 at step 1" }),
    ]);
    expect(run([p(1, 100), p(2, 115)], undefined, "higher")).toEqual([]);
    expect(run([p(1, 100), p(2, 85)], undefined, "higher")).toEqual([
      expect.objectContaining({ category: "perf", message: "bench 85 is 15% lower than the best, 100 at step 1" }),
    ]);
    expect(run([p(1, 100), p(2, 109)], undefined, "lower")).toEqual([]);
  });

  it("environment notices come first: missing dependencies are critical", () => {
    const s = run([{ step: 1, evaluation: ev({ notices: ["Dependencies not installed: the worktree has no node_modules."] }) }]);
    expect(s[0]).toMatchObject({ priority: "critical", category: "environment" });
  });
});

describe("extra checks", () => {
  it("a failed check is a high suggestion naming its output and how to read it in full", () => {
    const e = ev({
      checks: { security: false, data: true },
      commands: { "check:security": cmd("scanning\nfound AKIA-like key in src/cfg.js\n"), "check:data": cmd("ok", 0) },
    });
    const s = run([{ step: 1, evaluation: e }]);
    expect(s).toEqual([
      {
        priority: "high",
        category: "check",
        message: "check security exited 1: scanning | found AKIA-like key in src/cfg.js",
        action: 'Make the check pass; its full output: trm_read_log with command "check:security".',
      },
    ]);
  });
});

describe("classifyDiagnostics", () => {
  it("uses the command recorded on each diagnostic, without parsing outputs again", () => {
    const d1: Diagnostic = { ...eslintDiag, command: "build" };
    const d2: Diagnostic = { ...tscDiags[0]!, command: "lint" };
    const d3: Diagnostic = { ...eslintDiag, line: 9, command: "check:style" };
    // The stored outputs would say otherwise: the recorded command wins.
    const k = classifyDiagnostics(ev({ diagnostics: [d1, d2, d3], commands: { build: cmd(tscOut) } }));
    expect([k.get(d1), k.get(d2), k.get(d3)]).toEqual(["build", "lint", undefined]);
  });

  it("attributes each diagnostic to the command whose output reported it, else guesses by tool", () => {
    const lintTsc: Diagnostic = { ...tscDiags[2]!, line: 99 };
    const e = ev({
      diagnostics: [tscDiags[0]!, lintTsc, eslintDiag],
      commands: { build: cmd(tscOut), lint: cmd("src/a.ts(99,23): error TS7006: Parameter 'value' implicitly has an 'any' type.\n") },
    });
    const k = classifyDiagnostics(e);
    expect([k.get(tscDiags[0]!), k.get(lintTsc), k.get(eslintDiag)]).toEqual(["build", "lint", "lint"]);
  });
});

describe("rankSuggestions", () => {
  const s = (priority: "critical" | "high" | "medium" | "low", message: string) => ({ priority, category: "c", message, action: "a" });
  it("orders by priority, keeps producer order within one, cuts at the limit and counts the rest", () => {
    const r = rankSuggestions([s("low", "l1"), s("high", "h1"), s("critical", "c1"), s("high", "h2"), s("medium", "m1"), s("low", "l2")], 4);
    expect(r.top.map((x) => x.message)).toEqual(["c1", "h1", "h2", "m1"]);
    expect(r.omitted).toBe(2);
  });
  it("deduplicates, keeping the most severe copy", () => {
    const r = rankSuggestions([s("low", "same"), s("high", "same")]);
    expect(r.top).toEqual([s("high", "same")]);
  });
  it("is deterministic", () => {
    const input = Array.from({ length: 20 }, (_, i) => s((["critical", "high", "medium", "low"] as const)[i % 4]!, `m${i % 7}`));
    expect(rankSuggestions(input)).toEqual(rankSuggestions([...input]));
  });
});
