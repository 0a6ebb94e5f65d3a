/**
 * The evaluator on real captured outputs replayed by small scripts: chained runners read part by part,
 * unknown counts following the exit code, the quick gate with {files}, concurrency and its opt-out.
 */

import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { splitAndChain } from "../../../src/evaluate/chain.js";
import { evaluate } from "../../../src/evaluate/evaluate.js";
import { judgeEvaluation } from "../../../src/evaluate/judge.js";
import { base, cleanWorktrees, worktree } from "./replay.js";

afterEach(cleanWorktrees);

describe("chained test commands", () => {
  it("splits only a plain top-level && list", () => {
    expect(splitAndChain("xo && ava && tsd")).toEqual(["xo", "ava", "tsd"]);
    expect(splitAndChain(`echo "a && b" && (cd x && y) && z`)).toEqual([`echo "a && b"`, "(cd x && y)", "z"]);
    expect(splitAndChain("a && b || c")).toBeNull();
    expect(splitAndChain("a | b && c")).toBeNull();
    expect(splitAndChain("a; b && c")).toBeNull();
    expect(splitAndChain("ava")).toBeNull();
    expect(splitAndChain("xo 2>&1 && ava >&2")).toEqual(["xo 2>&1", "ava >&2"]);
    expect(splitAndChain("xo & ava && tsd")).toBeNull();
    expect(splitAndChain("a && 'b")).toBeNull();
    // A test expression is not a chain: split, it became a syntax error on which bash -c exits 0.
    expect(splitAndChain("[[ -d test && -f package.json ]] && node --test")).toBeNull();
  });

  it("reads each runner of xo && ava && uvu and attributes the failures to it", async () => {
    const cwd = worktree({ xo: { exit: 0, text: "" }, ava: { file: "ava/default-failing.txt", exit: 0 }, uvu: { file: "uvu/default-failing.txt", exit: 1 } });
    const { evaluation: ev, logs } = await evaluate(base(cwd, { test: "bin/xo && bin/ava && bin/uvu" }));
    expect(ev.tests).toMatchObject({ passed: 8, failed: 6, skipped: 2, total: 16, format: "ava+uvu" });
    expect(ev.tests!.failures.map((f) => f.name)).toContain("ava: lib › mul multiplies");
    expect(ev.tests!.failures.find((f) => f.name === "uvu: shout without name")).toMatchObject({ file: "lib.js", line: 5 });
    // The markers never reach what is stored or shown.
    expect(logs.test).not.toMatch(/@@trm-part/);
    expect(ev.commands.test!.output).not.toMatch(/@@trm-part/);
    expect(ev.commands.test!.cmd).toBe("bin/xo && bin/ava && bin/uvu");
  });

  it("names a failing non-runner part, and a later runner that never ran adds nothing", async () => {
    const cwd = worktree({
      ava: { file: "ava/default-passing.txt", exit: 0 },
      tsd: { exit: 1, text: "index.d.ts:3:1\n  ✖  3:1  Type error\n" },
      uvu: { file: "uvu/default-failing.txt", exit: 1 },
    });
    const { evaluation: ev } = await evaluate(base(cwd, { test: "bin/ava && bin/tsd && bin/uvu" }));
    expect(ev.tests).toMatchObject({ passed: 2, failed: 1, total: 3 });
    expect(ev.tests!.failures[0]!.name).toBe("(tsd exited 1)");
    expect(ev.testsPass).toBe(false);
  });

  it("a chain stopped before uvu by a failing AVA scores below the step where AVA passed and uvu failed (0.692 < 0.885, was 0.9)", async () => {
    const cmd = "bin/ava && bin/uvu";
    const a = worktree({ ava: { file: "ava/many-passing.txt", exit: 0 }, uvu: { file: "uvu/default-failing.txt", exit: 1 } });
    const { evaluation: stepA } = await evaluate(base(a, { test: cmd }));
    expect(stepA.tests).toMatchObject({ passed: 23, failed: 3 });
    const b = worktree({ ava: { file: "ava/many-2-failing.txt", exit: 1 }, uvu: { file: "uvu/default-failing.txt", exit: 1 } });
    const { evaluation: stepB } = await evaluate(base(b, { test: cmd }));
    expect(stepB.tests).toMatchObject({ passed: 18, failed: 2, notRun: ["bin/uvu"] });
    // Named after their runner whichever parts ran, so a test keeps its identity across steps.
    expect(stepB.tests!.failures[0]!.name).toBe("ava: double(0)");
    const W = base(a, {}).weights;
    const ja = judgeEvaluation(stepA, 1, [], W, []);
    const jb = judgeEvaluation(stepB, 2, [{ step: 1, evaluation: ja }], W, []);
    expect(ja.score).toBeCloseTo(23 / 26, 6);
    expect(jb.score).toBeCloseTo(18 / 26, 6);
    expect(jb.notices[0]).toMatch(
      /^6 fewer tests ran than the 26 at step 1, since step 2 \(the test command stopped before `bin\/uvu`: an earlier part failed\)/,
    );
  });

  it("runs a command with a [[ ... && ... ]] test as typed, so its failing tests are read", async () => {
    const cwd = worktree({ uvu: { file: "uvu/default-failing.txt", exit: 1 } });
    const { evaluation: ev } = await evaluate(base(cwd, { test: "[[ -d bin && -x bin/uvu ]] && bin/uvu" }));
    expect(ev.commands.test!.exitCode).toBe(1);
    expect(ev.tests!.failed).toBeGreaterThan(0);
    expect(ev.testsPass).toBe(false);
  });

  it("reads a chain whose parts print one report between them as a whole", async () => {
    const cwd = worktree({});
    const { evaluation: ev, logs } = await evaluate(base(cwd, { test: "true && echo 'ok 1 - a' && echo '1..1'" }));
    expect(ev.tests).toMatchObject({ passed: 1, total: 1, format: "tap" });
    expect(logs.test).toBe("ok 1 - a\n1..1\n");
  });

  it("names the tests of a chain when every runner names them, as their failures are named", async () => {
    const cwd = worktree({
      gotest: { file: "go-test/errorf-verbose.txt", exit: 1 },
      mocha: { file: "mocha/spec-passing-color.txt", exit: 0 },
      pytest: { file: "pytest/pytest9-q-failing.txt", exit: 1 },
    });
    const { evaluation: ev } = await evaluate(base(cwd, { test: "bin/mocha && cd tests && ../bin/gotest" }));
    expect(ev.tests!.cases).toEqual([
      { name: "mocha: add > adds positives", status: "passed" },
      { name: "mocha: add > adds negatives", status: "passed" },
      { name: "gotest: example.com/errorf/calc.TestAdd", status: "passed" },
      { name: "gotest: example.com/errorf/calc.TestMul", status: "failed" },
      { name: "gotest: example.com/errorf/calc.TestSkip", status: "skipped" },
    ]);
    expect(ev.tests!.failures.map((f) => f.name)).toEqual(["gotest: example.com/errorf/calc.TestMul"]);
    // One runner that prints counts only (pytest -q): the chain is tracked by counts.
    const { evaluation: counted } = await evaluate(base(cwd, { test: "bin/mocha && bin/pytest" }));
    expect(counted.tests).toMatchObject({ passed: 7, failed: 4 });
    expect(counted.tests!.cases).toBeUndefined();
  });

  it("resolves paths printed after `cd tests` against tests/, not the worktree root", async () => {
    const cwd = worktree({ pytest: { file: "pytest/pytest9-cd-tests.txt", exit: 1 } });
    const { evaluation: ev } = await evaluate(base(cwd, { test: "cd tests && ../bin/pytest" }));
    // pytest's own count: "3 failed, 4 passed, 1 skipped" (a failed subtest beside its test).
    expect(ev.tests).toMatchObject({ passed: 4, failed: 3, skipped: 1, units: "subtests", testsRan: 6 });
    expect(ev.tests!.failures.map((f) => `${f.name} ${f.file}:${f.line}`)).toEqual([
      "test_sub.py::test_doubles [double] (i=3) tests/test_sub.py:15",
      "test_sub.py::test_doubles tests/test_sub.py:15",
      "test_sub.py::test_raises tests/test_sub.py:25",
    ]);
  });
});

describe("counts the output does not show", () => {
  it("a passing run whose output cannot be read scores as passing, with the fix for the runner", async () => {
    const cwd = worktree({ ava: { exit: 0, text: "all good\n" } });
    writeFileSync(path.join(cwd, "package.json"), JSON.stringify({ scripts: { test: "xo && ava" } }));
    const { evaluation: ev } = await evaluate(base(cwd, { test: "npm test --silent 2>/dev/null || bin/ava" }));
    expect(ev.tests).toBeNull();
    expect(ev.components.test).toBe(1);
    expect(ev.testsPass).toBe(true);
    expect(ev.notices.join("\n")).toMatch(/could not be read.*follows the exit code \(0: pass\).*AVA: run it as npx ava/s);
  });

  it("go test without -v: passed is unknown, and the signal follows the exit code", async () => {
    const cwd = worktree({ go: { file: "go-test/passing.txt", exit: 0 } });
    const { evaluation: ev } = await evaluate(base(cwd, { test: "bin/go" }));
    expect(ev.tests).toMatchObject({ passed: null, failed: 0, total: null });
    expect(ev.components.test).toBe(1);
    expect(ev.notices.join("\n")).toMatch(/partly unknown/);
  });

  it("tape: a test.skip prints nothing, so only the skipped count is unknown and the counts still score", async () => {
    const cwd = worktree({ tape: { file: "tape/finished-failing.txt", exit: 1 }, passing: { file: "tape/skip-passing.txt", exit: 0 } });
    const { evaluation: ev } = await evaluate(base(cwd, { test: "bin/tape" }));
    // tape's own count, assertions: "# pass  4", "# fail  4" (3 of its 7 tests pass).
    expect(ev.tests).toMatchObject({ passed: 4, failed: 4, skipped: null, total: null, units: "assertions", testsRan: 7 });
    expect(ev.components.test).toBeCloseTo(4 / 8);
    expect(ev.notices.join("\n")).toMatch(
      /partly unknown \(tape prints nothing for test\.skip, so the skipped count is unknown\); the test score uses the 4 passed and 4 failed\./,
    );
    expect(ev.notices.join("\n")).not.toMatch(/follows the exit code/);
    const { evaluation: passing } = await evaluate(base(cwd, { test: "bin/passing" }));
    expect(passing).toMatchObject({ testsPass: true, components: { test: 1 } });
    expect(passing.notices.filter((n) => n.includes("test.skip"))).toHaveLength(1);
  });

  it("a run whose tests all pass but exits 1 for coverage invents no failing test", async () => {
    const cwd = worktree({ tap: { file: "tap21/coverage-passing.txt", exit: 1 } });
    const { evaluation: ev } = await evaluate(base(cwd, { test: "bin/tap" }));
    expect(ev.tests).toMatchObject({ passed: 2, failed: 0, total: 2 });
    expect(ev.testsPass).toBe(false);
    expect(ev.notices.join("\n")).toMatch(/All 2 tests passed.*coverage/);
  });
});

describe("diagnostics", () => {
  it("a compile error reported by both go build and go vet is one diagnostic", async () => {
    const cwd = worktree({ build: { file: "go/build-errors.stderr.txt", exit: 2 }, vet: { file: "go/vet-all.stderr.txt", exit: 2 } });
    const { evaluation: ev } = await evaluate(base(cwd, { build: "bin/build", lint: "bin/vet" }));
    const at = ev.diagnostics.filter((d) => d.file === "cmd/app/main.go" && d.line === 9);
    expect(at).toHaveLength(1);
    expect(at[0]!.command).toBe("build");
    expect(ev.diagnostics.some((d) => d.command === "lint" && d.file === "lib/lib.go")).toBe(true);
  });
});

describe("quick gate and concurrency", () => {
  it("a failing quickTestCmd skips the suite, scores it failing and sees the changed files shell-quoted", async () => {
    const cwd = worktree({ ava: { file: "ava/default-passing.txt", exit: 0 } });
    const quick = `printf '%s\\n' {files} > seen.txt; exit 1`;
    const { evaluation: ev } = await evaluate(base(cwd, { test: "bin/ava", quickTest: quick }, { changedFiles: ["a b.js", "it's.js"] }));
    expect(readFileSync(path.join(cwd, "seen.txt"), "utf8")).toBe("a b.js\nit's.js\n");
    expect(ev.commands.test!.skipped).toBe("quickTestCmd failed");
    expect(ev.commands.quickTest!.exitCode).toBe(1);
    expect(ev.components.test).toBe(0);
    expect(ev.testsPass).toBe(false);
  });

  it("a failing quick gate whose output is readable fails the test signal (not 5/8 = 0.625) and keeps its failures", async () => {
    const cwd = worktree({ ava: { file: "ava/many-passing.txt", exit: 0 }, quick: { file: "ava/default-failing.txt", exit: 1 } });
    const { evaluation: ev } = await evaluate(base(cwd, { test: "bin/ava", quickTest: "bin/quick" }));
    expect(ev.commands.test!.skipped).toBe("quickTestCmd failed");
    expect(ev.tests).toMatchObject({ passed: 5, failed: 3 });
    expect(ev.tests!.failures.map((f) => f.name)).toContain("lib › mul multiplies");
    expect(ev.components.test).toBe(0);
    expect(ev.score).toBe(0);
    expect(ev.testsPass).toBe(false);
    expect(ev.notices).toContain(
      "quickTestCmd failed (tests 5/9 passed, 3 failed, 1 skipped), so the full test command was skipped and the test signal counts as failing.",
    );
  });

  it("a passing quick gate lets the suite run", async () => {
    const cwd = worktree({ ava: { file: "ava/default-passing.txt", exit: 0 } });
    const { evaluation: ev } = await evaluate(base(cwd, { test: "bin/ava", quickTest: "true {files}" }, { changedFiles: ["x.js"] }));
    expect(ev.tests).toMatchObject({ passed: 2, failed: 0 });
    expect(ev.testsPass).toBe(true);
  });

  const stamp = (name: string) => `echo start $(date +%s%N) > ${name}.t; sleep 0.6; echo end $(date +%s%N) >> ${name}.t`;
  const interval = (cwd: string, name: string) =>
    readFileSync(path.join(cwd, `${name}.t`), "utf8")
      .match(/\d+/g)!
      .map(Number) as [number, number];

  it("runs test, lint and checks at the same time after the build, and one after another with parallel: false", async () => {
    for (const parallel of [true, false]) {
      const cwd = worktree({});
      const { evaluation: ev } = await evaluate(
        base(
          cwd,
          { build: "true", test: stamp("test"), lint: stamp("lint") },
          { checks: [{ name: "c", cmd: stamp("c"), weight: 1 }], ...(parallel ? {} : { parallel: false }) },
        ),
      );
      const [t, l, c] = ["test", "lint", "c"].map((n) => interval(cwd, n));
      const overlap = t![0] < l![1] && l![0] < t![1] && c![0] < t![1];
      expect(overlap, `parallel ${parallel}`).toBe(parallel);
      // The record keeps the configured order whatever finished first.
      expect(Object.keys(ev.commands)).toEqual(["build", "test", "lint", "check:c"]);
    }
  });
});
