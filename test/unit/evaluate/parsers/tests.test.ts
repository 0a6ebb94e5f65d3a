/** Edge cases of parseTests that the corpus does not cover on its own. */
import { describe, expect, it } from "vitest";
import { KNOWN_TEST_FORMATS, parseTests } from "../../../../src/evaluate/parsers/index.js";
import type { CommandOutput } from "../../../../src/evaluate/types.js";
import { CWD, loadCase } from "./corpus.js";

const out = (all: string, extra: Partial<CommandOutput> = {}): CommandOutput => ({ stdout: all, stderr: "", all, ...extra });

describe("parseTests: nothing to read", () => {
  it("returns null for empty and blank output", () => {
    expect(parseTests(out(""))).toBeNull();
    expect(parseTests(out(" \n\n\t\n"))).toBeNull();
    expect(parseTests({ stdout: "", stderr: "", all: "" }, { junitXml: "" })).toBeNull();
  });

  it("returns null for output that is not a test report", () => {
    expect(parseTests(out("> build\nCompiled 12 files in 1.2s\nDone.\n"))).toBeNull();
    expect(parseTests(out(loadCase("tsc/plain-errors").output.all))).toBeNull();
    expect(parseTests(out(loadCase("eslint/stylish").output.all))).toBeNull();
    // "ok" at the start of a line is not TAP without a plan, nor go test without a package.
    expect(parseTests(out("ok\nok 1\nall good\n"))).toBeNull();
  });

  it("names the formats it reads, for the could-not-read message, each reporter the corpus captures included", () => {
    const joined = KNOWN_TEST_FORMATS.join("; ");
    const captured = [
      ...["vitest --reporter=junit", "node --test --test-reporter=junit", "pytest --junitxml", "mocha --reporter xunit"],
      ...["node --test --test-reporter=tap", "tap --reporter=tap", "tape", "ava --tap", "mocha --reporter tap", "vitest --reporter=tap or tap-flat"],
      ...["node --test spec", "Vitest (default, verbose and JSON", "Jest (default, verbose and --json", "Mocha (spec, dot, JSON)"],
      ...[
        "AVA default",
        "uvu default",
        "Jasmine default",
        "bun test default",
        "pytest (default, -q, -v, -rA)",
        "unittest (default and -v)",
        "go test (text, -v and -json)",
        "cargo test",
      ],
    ];
    for (const name of captured) expect(joined).toContain(name);
  });
});

describe("parseTests: a name filter that matched no test", () => {
  it("reads bun's `matched 0 tests` (no summary printed) as no test run, and nothing else of its kind", () => {
    // bun 1.4.5, `bun test -t '^(?:clamp above falls to hi)$'` in a project whose tests were renamed (exit 1, on stderr).
    const none = `bun test v1.4.5 (a7733435c)\ntest/clamp.test.js:\n\nerror: regex "^(?:clamp above falls to hi)$" matched 0 tests. Searched 1 file (skipping 2 tests) [322.00ms]\n`;
    expect(parseTests(out(none))).toMatchObject({ format: "bun", passed: 0, failed: 0, skipped: 0, total: 0, failures: [] });
    expect(parseTests(out(none.replace("matched 0 tests", "matched no tests")))).toBeNull();
  });
});

describe("parseTests: streams", () => {
  it("reads a JSON report from stdout even when stderr, interleaved in `all`, carries a text summary", () => {
    const json = loadCase("jest/json-failing").output.stdout;
    const noise = "Tests:       0 failed, 99 passed, 99 total\nTest Suites: 1 passed, 1 total\n";
    const r = parseTests({ stdout: json, stderr: noise, all: `${noise}${json}` }, { cwd: CWD });
    expect(r?.format).toBe("jest-json");
    expect(r?.failed).toBe(3);
  });

  it("reads the streams when the caller left `all` empty", () => {
    const jest = loadCase("jest/default-failing").output;
    const r = parseTests({ stdout: "", stderr: jest.stderr, all: "" });
    expect(r?.format).toBe("jest");
    expect(r?.failed).toBe(3);
  });

  it("finds a JSON report surrounded by other lines on stdout", () => {
    const json = loadCase("vitest/json-failing").output.stdout.trim();
    const r = parseTests(out(`> npm test\nsome console output {not json}\n${json}\ntrailing line\n`));
    expect(r?.format).toBe("vitest-json");
    expect(r?.total).toBe(9);
  });

  it("gives the same result with and without colour codes and carriage returns", () => {
    const plain = loadCase("cargo/test-failing").output;
    const coloured = plain.all
      .split("\n")
      .map((l) => (l.startsWith("test ") ? `\u001b[1m\u001b[32m${l}\u001b[0m\r` : l))
      .join("\r\n");
    expect(parseTests(out(coloured), { cwd: CWD })).toEqual(parseTests(plain, { cwd: CWD }));
  });

  it("keeps absolute paths when the worktree is not given", () => {
    const r = parseTests(loadCase("unittest/default-failing").output);
    expect(r?.failures.find((f) => f.name.endsWith("test_mul"))?.file).toBe("/WORKTREE/tests/test_calc.py");
  });
});

describe("parseTests: JUnit XML", () => {
  it("prefers the report file over the command output", () => {
    const c = loadCase("vitest/junit-failing");
    const r = parseTests(out("running...\n"), { junitXml: c.junitXml! });
    expect(r?.format).toBe("junit");
    expect(r?.total).toBe(9);
  });

  it("falls back to the output when the report is not valid XML", () => {
    const c = loadCase("pytest/pytest7-failing");
    const r = parseTests(c.output, { junitXml: "<testsuite><testcase name=" });
    expect(r?.format).toBe("pytest");
  });

  it("walks nested suites, qualifies names by class, and counts errors as failures", () => {
    const xml = `<?xml version="1.0"?>
<testsuites>
  <testsuite name="outer">
    <testsuite name="inner" file="spec/a_spec.rb">
      <testcase classname="Calc" name="adds"/>
      <testcase classname="Calc" name="Calc.divides"><error message="ZeroDivisionError: divided by 0">spec/a_spec.rb:9:in 'divide'</error></testcase>
      <testcase classname="Calc" name="waits"><skipped/></testcase>
    </testsuite>
    <testcase classname="Other" name="fails"><failure message="expected 1, got 2"/></testcase>
  </testsuite>
</testsuites>`;
    const r = parseTests(out(""), { junitXml: xml });
    expect(r).toMatchObject({ passed: 1, failed: 2, skipped: 1, total: 4, format: "junit" });
    // Cases of a suite come before those of its child suites (not interleaved in document order).
    expect(r?.failures.map((f) => f.name).sort()).toEqual(["Calc.divides", "Other.fails"]);
    expect(r?.failures.find((f) => f.name === "Other.fails")?.message).toBe("expected 1, got 2");
    expect(r?.failures.find((f) => f.name === "Calc.divides")).toMatchObject({ message: "ZeroDivisionError: divided by 0", file: "spec/a_spec.rb" });
  });

  it("reads a JUnit report printed to stdout", () => {
    const xml = loadCase("vitest/junit-failing").junitXml!;
    expect(parseTests(out(xml))?.failed).toBe(3);
  });
});

describe("parseTests: TAP", () => {
  it("counts leaves, names nested tests by their suites, and treats a failing TODO as not run", () => {
    const tap = [
      "TAP version 13",
      "# Subtest: outer",
      "    # Subtest: inner",
      "        # Subtest: deep",
      "        not ok 1 - deep",
      "          ---",
      "          error: 'boom'",
      "          location: '/WORKTREE/a.test.mjs:3:5'",
      "          ...",
      "        # Subtest: fine",
      "        ok 2 - fine",
      "        1..2",
      "    not ok 1 - inner",
      "    ok 2 - sibling",
      "    1..2",
      "not ok 1 - outer",
      "not ok 2 - later # TODO not yet",
      "ok 3 - skipped one # SKIP",
      "1..3",
    ].join("\n");
    const r = parseTests(out(tap), { cwd: CWD });
    expect(r).toMatchObject({ passed: 2, failed: 1, skipped: 2, total: 5, format: "tap" });
    // node's `location`: where the test was declared, the file failing first gives node to run.
    expect(r?.failures).toEqual([{ name: "outer > inner > deep", message: "boom", file: "a.test.mjs", line: 3, testFile: "a.test.mjs" }]);
  });

  it("counts a suite that fails on its own (a hook) when all its tests passed", () => {
    const tap = [
      "TAP version 13",
      "    ok 1 - a",
      "    ok 2 - b",
      "    1..2",
      "not ok 1 - suite",
      "  ---",
      "  error: 'before hook failed'",
      "  ...",
      "1..1",
    ].join("\n");
    const r = parseTests(out(tap));
    expect(r).toMatchObject({ passed: 2, failed: 1, total: 3 });
    expect(r?.failures[0]).toMatchObject({ name: "suite", message: "before hook failed" });
  });

  it("keeps exact counts but caps the failure list", () => {
    const lines = ["TAP version 13"];
    for (let i = 1; i <= 1000; i++) lines.push(`not ok ${i} - case ${i}`);
    lines.push("1..1000");
    const r = parseTests(out(lines.join("\n")));
    expect(r?.failed).toBe(1000);
    expect(r?.failures.length).toBe(200);
  });
});

describe("parseTests: node --test spec reporter", () => {
  it("names a failing nested test by its suite path and reads node's totals", () => {
    const spec = [
      "▶ math",
      "  ▶ mul",
      "    ✖ multiplies (1.2ms)",
      "      AssertionError [ERR_ASSERTION]: 7 !== 6",
      "          at TestContext.<anonymous> (file:///WORKTREE/test/m.test.mjs:9:12)",
      "  ✖ mul (2ms)",
      "  ✔ adds (0.1ms)",
      "✖ math (3ms)",
      "ℹ tests 2",
      "ℹ suites 2",
      "ℹ pass 1",
      "ℹ fail 1",
      "ℹ cancelled 0",
      "ℹ skipped 0",
      "ℹ todo 0",
    ].join("\n");
    const r = parseTests(out(spec), { cwd: CWD });
    expect(r).toMatchObject({ passed: 1, failed: 1, skipped: 0, total: 2, format: "node-spec" });
    expect(r?.failures).toEqual([{ name: "math > mul > multiplies", message: "AssertionError [ERR_ASSERTION]: 7 !== 6", file: "test/m.test.mjs", line: 9 }]);
  });

  it("counts cancelled tests as failed", () => {
    const r = parseTests(out("ℹ tests 3\nℹ pass 1\nℹ fail 1\nℹ cancelled 1\nℹ skipped 0\nℹ todo 0\n"));
    expect(r).toMatchObject({ passed: 1, failed: 2, total: 3 });
  });
});

describe("parseTests: vitest and jest text", () => {
  it("counts vitest's unhandled errors as failures", () => {
    const text = [
      " ✓ test/a.test.ts (2 tests) 3ms",
      "",
      " Test Files  1 passed (1)",
      "      Tests  2 passed (2)",
      "     Errors  1 error",
      "Vitest caught 1 unhandled error during the test run.",
    ].join("\n");
    const r = parseTests(out(text));
    expect(r).toMatchObject({ passed: 2, failed: 1, total: 3, format: "vitest" });
  });

  it("reads a vitest run where every file failed to load (no Tests line)", () => {
    const text = [
      "⎯⎯⎯⎯⎯⎯ Failed Suites 1 ⎯⎯⎯⎯⎯⎯⎯",
      "",
      " FAIL  test/a.test.ts [ test/a.test.ts ]",
      "SyntaxError: Unexpected token '}'",
      " ❯ test/a.test.ts:4:1",
      "",
      " Test Files  1 failed (1)",
      "      Tests  no tests",
    ].join("\n");
    const r = parseTests(out(text));
    expect(r).toMatchObject({ passed: 0, failed: 1, total: 1 });
    expect(r?.failures[0]).toEqual({
      name: "test/a.test.ts",
      message: "SyntaxError: Unexpected token '}'",
      file: "test/a.test.ts",
      line: 4,
      testFile: "test/a.test.ts",
    });
  });

  it("ignores jest's console blocks and its repeated summary of failures", () => {
    const text = [
      "FAIL src/a.test.js",
      "  ● Console",
      "",
      "    console.log",
      "      hello",
      "",
      "  ● adds",
      "",
      "    expect(received).toBe(expected)",
      "",
      "      at Object.toBe (src/a.test.js:3:20)",
      "",
      "Summary of all failing tests",
      "FAIL src/a.test.js",
      "  ● adds",
      "",
      "Tests:       1 failed, 1 total",
      "Test Suites: 1 failed, 1 total",
    ].join("\n");
    const r = parseTests(out(text));
    expect(r).toMatchObject({ passed: 0, failed: 1, total: 1, format: "jest" });
    expect(r?.failures).toEqual([{ name: "adds", message: "expect(received).toBe(expected)", file: "src/a.test.js", line: 3, testFile: "src/a.test.js" }]);
  });
});

describe("parseTests: pytest and unittest", () => {
  it("reads -q summaries, xpassed, deselected and no tests ran", () => {
    expect(parseTests(out("..\n2 passed in 0.01s\n"))).toMatchObject({ passed: 2, failed: 0, total: 2, format: "pytest" });
    expect(parseTests(out("1 passed, 1 xpassed, 3 deselected, 2 warnings in 0.20s\n"))).toMatchObject({ passed: 2, skipped: 0, total: 2 });
    expect(parseTests(out("============ no tests ran in 0.01s ============\n"))).toMatchObject({ passed: 0, failed: 0, total: 0, format: "pytest" });
  });

  it("names unittest tests in the pre-3.11 format by their full id", () => {
    const text = [
      "F.",
      "======================================================================",
      "FAIL: test_mul (tests.test_calc.CalcTest)",
      "----------------------------------------------------------------------",
      "Traceback (most recent call last):",
      '  File "/WORKTREE/tests/test_calc.py", line 14, in test_mul',
      "    self.assertEqual(mul(2, 3), 6)",
      "AssertionError: 7 != 6",
      "",
      "----------------------------------------------------------------------",
      "Ran 2 tests in 0.001s",
      "",
      "FAILED (failures=1)",
    ].join("\n");
    const r = parseTests(out(text), { cwd: CWD });
    expect(r).toMatchObject({ passed: 1, failed: 1, total: 2, format: "unittest" });
    expect(r?.failures).toEqual([{ name: "tests.test_calc.CalcTest.test_mul", message: "AssertionError: 7 != 6", file: "tests/test_calc.py", line: 14 }]);
  });

  it("unittest -v: an outcome glued to what a test wrote without a newline, unless one follows on a line of its own", () => {
    const SEP = "-".repeat(70);
    const block = (t: string) => ["=".repeat(70), `FAIL: ${t} (m.T.${t})`, SEP, "AssertionError: 1 != 2", ""];
    const run = (lines: string[], summary: string) =>
      parseTests(out([...lines, SEP, `Ran ${lines.filter((l) => l.startsWith("test_")).length} tests in 0.001s`, "", summary, ""].join("\n")))?.cases?.map(
        (c) => `${c.status} ${c.name}`,
      );
    // A progress line written with \r: each segment is read as a line, so the name before it is kept (h24 repro-4 B).
    expect(
      run(["test_a (m.T.test_a) ... \rdividing 100%ok", "test_b (m.T.test_b) ... progress: 50%FAIL", "", ...block("test_b")], "FAILED (failures=1)"),
    ).toEqual(["passed m.T.test_a", "failed m.T.test_b"]);
    // A line that happens to end in "ok", then the outcome alone: the outcome alone counts.
    expect(run(["test_a (m.T.test_a) ... look", "FAIL", "test_b (m.T.test_b) ... ok", "", ...block("test_a")], "FAILED (failures=1)")).toEqual([
      "failed m.T.test_a",
      "passed m.T.test_b",
    ]);
    // A glued "ok" on a test with a FAIL block does not agree with the blocks: no names, the counts stand.
    expect(run(["test_a (m.T.test_a) ... lookok", "test_b (m.T.test_b) ... ok", "", ...block("test_a")], "FAILED (failures=1)")).toBeUndefined();
  });

  it("counts unittest's unexpected successes as failures and expected failures as skipped", () => {
    const r = parseTests(
      out(
        "...\n----------------------------------------------------------------------\nRan 3 tests in 0.000s\n\nFAILED (expected failures=1, unexpected successes=1)\n",
      ),
    );
    expect(r).toMatchObject({ passed: 1, failed: 1, skipped: 1, total: 3 });
  });

  describe("-rA names (the default pytest command)", () => {
    const RULE = "=========================== short test summary info ============================";
    const names = (text: string) => parseTests(out(text), { cwd: CWD })?.cases?.map((c) => `${c.status} ${c.name}`);

    it("are read after pytest's last summary rule only: a test's captured output in PASSES cannot add one", () => {
      const text = [
        "==================================== PASSES ====================================",
        "___________________________________ test_a ___________________________________",
        "----------------------------- Captured stdout call -----------------------------",
        RULE,
        "PASSED tests/test_x.py::test_forged",
        RULE,
        "PASSED tests/test_x.py::test_a",
        "FAILED tests/test_x.py::test_b - assert 1 == 2",
        "========================= 1 failed, 1 passed in 0.01s ==========================",
      ].join("\n");
      expect(names(text)).toEqual(["passed tests/test_x.py::test_a", "failed tests/test_x.py::test_b"]);
    });

    it("name skipped tests by their place, one per test each group counts, and an XFAIL by its id", () => {
      const text = [
        RULE,
        "PASSED tests/test_x.py::test_a",
        "SKIPPED [2] tests/test_x.py:12: no database",
        // Two groups at one place (two reasons), in a folder whose name holds a space.
        "SKIPPED [1] my tests/test_y.py:4: not on this platform",
        "SKIPPED [1] my tests/test_y.py:4: needs numpy 3",
        "XFAIL tests/test_x.py::test_c - known bug",
        "=================== 1 passed, 4 skipped, 1 xfailed in 0.01s ====================",
      ].join("\n");
      expect(names(text)).toEqual([
        "passed tests/test_x.py::test_a",
        "skipped skipped at tests/test_x.py:12 #1",
        "skipped skipped at tests/test_x.py:12 #2",
        "skipped skipped at my tests/test_y.py:4 #1",
        "skipped skipped at my tests/test_y.py:4 #2",
        "skipped tests/test_x.py::test_c",
      ]);
    });

    it("leave the suite to its counts where they do not account for it, or a group's number is past the names kept", () => {
      // A test that passed and errored in teardown is in both tallies (real pytest 9 output).
      expect(parseTests(loadCase("pytest/pytest9-rA-teardown").output, { cwd: CWD })?.cases).toBeUndefined();
      const t0 = performance.now();
      const huge = [RULE, "PASSED tests/test_x.py::test_a", "SKIPPED [999999999] tests/test_x.py:12: r", "=== 1 passed, 999999999 skipped in 0.01s ==="];
      expect(names(huge.join("\n"))).toBeUndefined();
      expect(performance.now() - t0).toBeLessThan(1000);
      // A group pytest did not print (a skip line cut by a capped output): counts only.
      expect(names([RULE, "PASSED tests/test_x.py::test_a", "=== 1 passed, 1 skipped in 0.01s ==="].join("\n"))).toBeUndefined();
    });

    it("cut a failure's id before its message outside the brackets of its parameters (`3 - 1` is a parameter)", () => {
      const text = [
        RULE,
        "PASSED test_calc.py::test_ev[2 + 2-4]",
        "FAILED test_calc.py::test_ev[3 - 1-2] - assert 4 == 2",
        "========================= 1 failed, 1 passed in 0.01s ==========================",
      ].join("\n");
      expect(names(text)).toEqual(["passed test_calc.py::test_ev[2 + 2-4]", "failed test_calc.py::test_ev[3 - 1-2]"]);
      expect(parseTests(out(text), { cwd: CWD })?.failures).toEqual([
        { name: "test_calc.py::test_ev[3 - 1-2]", message: "assert 4 == 2", file: "test_calc.py" },
      ]);
    });

    it("come from -v lines first, which name skipped tests by their ids", () => {
      const text = [
        "tests/test_x.py::test_a PASSED                                           [ 50%]",
        "tests/test_x.py::test_s SKIPPED (no database)                            [100%]",
        RULE,
        "PASSED tests/test_x.py::test_a",
        "SKIPPED [1] tests/test_x.py:12: no database",
        "=================== 1 passed, 1 skipped in 0.01s ====================",
      ].join("\n");
      expect(names(text)).toEqual(["passed tests/test_x.py::test_a", "skipped tests/test_x.py::test_s"]);
    });
  });
});

describe("parseTests: go test", () => {
  it("reads go 1.24 build failures reported as JSON events", () => {
    const events = [
      { Action: "build-output", ImportPath: "example.com/m/p [example.com/m/p.test]", Output: "# example.com/m/p [example.com/m/p.test]\n" },
      { Action: "build-output", ImportPath: "example.com/m/p [example.com/m/p.test]", Output: "p/p_test.go:6:11: undefined: Twice\n" },
      { Action: "build-fail", ImportPath: "example.com/m/p [example.com/m/p.test]" },
      { Action: "start", Package: "example.com/m/q" },
      { Action: "run", Package: "example.com/m/q", Test: "TestQ" },
      { Action: "pass", Package: "example.com/m/q", Test: "TestQ", Elapsed: 0 },
      { Action: "pass", Package: "example.com/m/q", Elapsed: 0 },
    ];
    const r = parseTests(out(events.map((e) => JSON.stringify(e)).join("\n")));
    expect(r).toMatchObject({ passed: 1, failed: 1, total: 2, format: "go-json" });
    expect(r?.failures).toEqual([{ name: "example.com/m/p", message: "p/p_test.go:6:11: undefined: Twice", file: "p/p_test.go", line: 6 }]);
  });

  it("counts a failing parent without failing subtests once, and passing subtests as tests", () => {
    const text = [
      "=== RUN   TestParent",
      "=== RUN   TestParent/a",
      "=== RUN   TestParent/b",
      "    p_test.go:20: cleanup failed",
      "--- FAIL: TestParent (0.00s)",
      "    --- PASS: TestParent/a (0.00s)",
      "    --- PASS: TestParent/b (0.00s)",
      "FAIL",
      "FAIL\texample.com/m/p\t0.003s",
    ].join("\n");
    const r = parseTests(out(text));
    expect(r).toMatchObject({ passed: 2, failed: 1, total: 3, format: "go" });
    expect(r?.failures[0]?.name).toBe("example.com/m/p.TestParent");
    expect(r?.note).toBeUndefined();
  });
});

describe("parseTests: cargo test", () => {
  it("sums the results of several test binaries", () => {
    const text = [
      "     Running unittests src/lib.rs (target/debug/deps/a-1)",
      "test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s",
      "     Running tests/it.rs (target/debug/deps/it-2)",
      "test it_fails ... FAILED",
      "test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s",
      "   Doc-tests a",
      "test result: ok. 4 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.30s",
    ].join("\n");
    const r = parseTests(out(text));
    expect(r).toMatchObject({ passed: 9, failed: 1, skipped: 3, total: 13, format: "cargo" });
    // No `---- it_fails stdout ----` section: the name still comes from its result line.
    expect(r?.failures).toEqual([{ name: "it_fails" }]);
  });

  it("reads panics in the format of Rust before 1.73", () => {
    const text = [
      "test t ... FAILED",
      "",
      "failures:",
      "",
      "---- t stdout ----",
      "thread 't' panicked at 'assertion failed: `(left == right)`', src/lib.rs:8:5",
      "",
      "test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out",
    ].join("\n");
    expect(parseTests(out(text))?.failures).toEqual([{ name: "t", message: "assertion failed: `(left == right)`", file: "src/lib.rs", line: 8 }]);
  });
});

describe("parseTests: failure messages", () => {
  it("bounds long messages to a few lines and characters", () => {
    const long = "x".repeat(5000);
    const text = [
      "TAP version 13",
      "not ok 1 - long",
      "  ---",
      `  error: '${long}'`,
      "  ...",
      "not ok 2 - many",
      "  ---",
      "  error: |-",
      ...Array.from({ length: 50 }, (_, i) => `    line ${i}`),
      "  ...",
      "1..2",
    ].join("\n");
    const r = parseTests(out(text));
    expect(r?.failures[0]?.message?.length).toBeLessThanOrEqual(500);
    expect(r?.failures[1]?.message?.split("\n").length).toBeLessThanOrEqual(6);
    expect(r?.failures[1]?.message?.startsWith("line 0")).toBe(true);
  });

  it("does not mistake a message starting with 'at' for a stack frame", () => {
    const tap = ["TAP version 13", "not ok 1 - t", "  ---", "  error: |-", "    at least 3 items expected", "    got 2", "  ...", "1..1"].join("\n");
    expect(parseTests(out(tap))?.failures[0]?.message).toBe("at least 3 items expected\ngot 2");
  });
});
