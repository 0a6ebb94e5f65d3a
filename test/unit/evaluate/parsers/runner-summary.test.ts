/**
 * The counts equal the runner's own summary, read here from the same real output by the runner's own
 * words (issue 22: real projects run by their runners, fixtures/outputs README), and every failure is
 * named with its message, at a place where the output gives one.
 */
import { describe, expect, it } from "vitest";
import { parseTests } from "../../../../src/evaluate/parsers/index.js";
import type { TestCounts } from "../../../../src/evaluate/types.js";
import { CWD, loadCase } from "./corpus.js";

function read(id: string): { text: string; r: TestCounts; xml?: string } {
  const c = loadCase(id);
  const r = parseTests(c.output, {
    cwd: CWD,
    ...(c.junitXml !== undefined ? { junitXml: c.junitXml } : {}),
    ...(c.goModule !== undefined ? { goModule: c.goModule } : {}),
  });
  expect(r, id).not.toBeNull();
  return { text: c.output.all, r: r!, ...(c.junitXml !== undefined ? { xml: c.junitXml } : {}) };
}

/** `N word` on the runner's own summary line(s), 0 when the runner leaves it out (as it does for 0). */
function said(text: string, re: RegExp): number {
  let n = 0;
  for (const m of text.matchAll(new RegExp(re.source, `${re.flags.replace("g", "")}g`))) n = Number(m[1]);
  return n;
}

describe("pytest 9, unittest subTest (hukkin/tomli)", () => {
  it.each(["tomli-bug-default", "tomli-bug-q", "tomli-bug-v", "tomli-wrong-default", "tomli-wrong-q", "tomli-fixed-default", "tomli-fixed-q", "tomli-fixed-v"])(
    "%s",
    (name) => {
      const { text, r } = read(`pytest/${name}`);
      const summary = text.trimEnd().split("\n").pop()!;
      expect(r.passed, summary).toBe(said(summary, /(\d+) passed/));
      expect(r.failed, summary).toBe(said(summary, /(\d+) failed/));
      // Each SUBFAILED line is a failure of its own, at the assertion, named by its test and subtest.
      const sub = [...text.matchAll(/^SUBFAILED(\[[^\]]*\]) (\S+)/gm)].map((m) => `${m[2]} ${m[1]}`);
      expect(new Set(r.failures.map((f) => f.name))).toEqual(new Set(sub));
      for (const f of r.failures)
        expect(f, f.name).toMatchObject({ message: expect.stringMatching(/^AssertionError: /), file: "tests/test_data.py", line: 47 });
    },
  );

  it("the JUnit report: its failures attribute, one failed test case", () => {
    const { r, xml } = read("pytest/tomli-bug-junit");
    expect(r.failed).toBe(Number(/failures="(\d+)"/.exec(xml!)![1]));
    expect(r).toMatchObject({ passed: 15, failed: 24, testsRan: 16 });
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0]!.message).toMatch(/\(24 failures in this test case, as its subtests'; the first is shown\)$/);
  });
});

describe("AVA 6, known failures and todo (sindresorhus/query-string, a sample)", () => {
  it.each(["query-string-known-failures", "query-string-unexpected-pass", "query-string-fixed", "known-failing"])("%s", (name) => {
    const { text, r } = read(`ava/${name}`);
    const failed = said(text, /^ {2}(\d+) tests? failed$/m);
    expect(r.failed).toBe(failed);
    // AVA prints the passed count only when no test failed; its lines (✔, not `[expected fail]`) otherwise.
    expect(r.passed).toBe(failed === 0 ? said(text, /^ {2}(\d+) tests? passed$/m) : [...text.matchAll(/^ {2}✔ (?!\[expected fail\])/gm)].length);
    expect(r.skipped).toBe(said(text, /^ {2}(\d+) known failures?$/m) + said(text, /^ {2}(\d+) tests? skipped$/m) + said(text, /^ {2}(\d+) tests? todo$/m));
    expect(r.failures).toHaveLength(failed);
    for (const f of r.failures) expect(f.message, f.name).toBeTruthy();
  });

  it("the sample's failures: an unexpected pass with AVA's reason, a wrong value at its assertion", () => {
    expect(read("ava/known-failing").r.failures).toEqual([
      { name: "add marked failing but passes", message: "Test was expected to fail, but succeeded, you should stop marking the test as failing" },
      { name: "mul by one", message: "Difference (- actual, + expected):\n- 4\n+ 3", file: "test/known.test.js", line: 9 },
    ]);
  });
});

describe("mocha 10 (micromatch/picomatch)", () => {
  it.each(["picomatch-bug-dot", "picomatch-bug-spec", "picomatch-wrong-dot", "picomatch-wrong-spec", "picomatch-fixed-dot", "picomatch-fixed-spec"])(
    "%s",
    (name) => {
      const { text, r } = read(`mocha/${name}`);
      expect(r.passed).toBe(said(text, /^ {2}(\d+) passing/m));
      expect(r.failed).toBe(said(text, /^ {2}(\d+) failing$/m));
      expect(r.skipped).toBe(said(text, /^ {2}(\d+) pending$/m));
      expect(r.failures).toHaveLength(r.failed!);
      for (const f of r.failures) expect(f, f.name).toMatchObject({ message: expect.stringMatching(/^AssertionError/), file: "test/options.js", line: 28 });
    },
  );
});

describe("vitest 4 (unjs/defu)", () => {
  it.each([
    "defu-bug-default",
    "defu-bug-verbose",
    "defu-wrong-default",
    "defu-wrong-verbose",
    "defu-fixed-default",
    "defu-fixed-verbose",
    "defu-file-errors-default",
  ])("%s", (name) => {
    const { text, r } = read(`vitest/${name}`);
    const tests = /^\s+Tests\s+(.*)$/m.exec(text)![1]!;
    // A file that fails to load is one failure more than the tests' ("Test Files  2 failed").
    const files = said(/^\s+Test Files\s+(.*)$/m.exec(text)![1]!, /(\d+) failed/);
    const fileErrors = /Failed Suites/.test(text) ? files : 0;
    expect(r.passed).toBe(said(tests, /(\d+) passed/));
    expect(r.failed).toBe(said(tests, /(\d+) failed/) + fileErrors);
    expect(r.failures).toHaveLength(r.failed!);
    for (const f of r.failures) expect(f.file, f.name).toMatch(/^test\/\w+\.test\.ts$/);
    for (const f of r.failures) expect(f.message, f.name).toBeTruthy();
  });

  it.each(["defu-bug-json", "defu-file-errors-json"])("%s: the JSON report's own numbers", (name) => {
    const { text, r } = read(`vitest/${name}`);
    const doc = JSON.parse(text.slice(text.indexOf('{"numTotalTestSuites"'))) as Record<string, number>;
    expect(r.passed).toBe(doc.numPassedTests);
    // numFailedTests counts tests; a file that failed to load has none (numFailedTestSuites counts its suite).
    expect(r.failed).toBe(doc.numFailedTests! + (name.includes("file-errors") ? 2 : 0));
  });
});

describe("tape 5 (ljharb/qs)", () => {
  it.each(["qs-bug", "qs-wrong", "qs-fixed"])("%s", (name) => {
    const { text, r } = read(`tape/${name}`);
    // tape counts a skipped assertion (`ok … # SKIP`) in `# pass`; it did not pass, and is counted skipped.
    const skips = [...text.matchAll(/^ok \d+ .* # SKIP\b/gm)].length;
    expect(r.passed! + skips).toBe(said(text, /^# pass\s+(\d+)$/m));
    expect(r.failed).toBe(said(text, /^# fail\s+(\d+)$/m));
    expect(r.skipped).toBe(skips);
    expect(r.total).toBe(said(text, /^# tests\s+(\d+)$/m));
    // A failing test is named by its comment, with its first failing assertion's message and place.
    for (const f of r.failures)
      expect(f, f.name).toMatchObject({
        message: expect.stringMatching(/^(should be strictly equal|without: as expected)\nexpected: /),
        file: "test/stringify.js",
      });
  });
});

describe("go test 1.19 (spf13/pflag)", () => {
  const pkg = "github.com/spf13/pflag";
  // go prints no total: its own count is one result per test, a test with subtests included
  // (`--- PASS: TestBoolFuncUsage` above its two subtests' lines; one -json pass/fail/skip event each).
  it.each(["pflag-bug-verbose", "pflag-wrong2-verbose"])("%s: one test per result line", (name) => {
    const { text, r } = read(`go-test/${name}`);
    const results = (word: string) => [...text.matchAll(new RegExp(`^\\s*--- ${word}: (\\S+) \\(`, "gm"))].map((m) => `${pkg}.${m[1]}`);
    expect(r).toMatchObject({ passed: results("PASS").length, failed: results("FAIL").length, skipped: results("SKIP").length, total: 185 });
    expect(r.failures.map((f) => f.name).sort()).toEqual(results("FAIL").sort());
  });

  it("pflag-wrong2-json: one test per -json result, a failing subtest's parent named with the subtest", () => {
    const { text, r } = read("go-test/pflag-wrong2-json");
    const events = text
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { Action: string; Test?: string });
    const results = (action: string) => events.filter((e) => e.Test !== undefined && e.Action === action).map((e) => `${pkg}.${e.Test}`);
    expect(r).toMatchObject({ passed: results("pass").length, failed: results("fail").length, skipped: results("skip").length, total: 7 });
    expect(r.failures.map((f) => f.name).sort()).toEqual(results("fail").sort());
    // The parent prints nothing of its own: it says which subtest failed, at that subtest's place.
    const parent = r.failures.find((f) => f.name === `${pkg}.TestBoolFuncUsage`);
    expect(parent).toMatchObject({ message: "1 subtest failed: TestBoolFuncUsage/func_flag_with_placeholder_name", file: "bool_func_test.go", line: 73 });
    expect(r.failures.find((f) => f.name.endsWith("/func_flag_with_placeholder_name"))).toMatchObject({ file: "bool_func_test.go", line: 73 });
  });
});
