import { describe, expect, it } from "vitest";
import { isTestFile } from "../../../src/evaluate/coverage/changed-lines.js";
import { RUNNERS } from "../../../src/evaluate/runners/index.js";
import { isTestByName } from "../../../src/evaluate/test-paths.js";
import { isTestPath as isReviewTest } from "../../../src/review/lang.js";
import { isTestPath as isSessionTest } from "../../../src/session/test-files.js";

// Tests by name, and files that only look like tests, in every language the list knows.
const TESTS = [
  "test/a.js",
  "src/__tests__/a.ts",
  "specs/a.js",
  "Tests/AppTests/Helpers.swift",
  "pkg/testdata/golden.go",
  "src/__mocks__/fs.js",
  "src/__snapshots__/fmt.test.js.snap",
  "src/a.test.ts",
  "src/a.spec.mjs",
  "src/a.e2e.ts",
  "src/a.cy.tsx",
  "index.test-d.ts",
  "a.tests.js",
  "lib/parse-test.js",
  "lib/parse_test.ts",
  "a_spec.js",
  "test.js",
  "test.py",
  "test-parse.js",
  "tests/test_calc.py",
  "pkg/calc_test.py",
  "app/tests.py",
  "conftest.py",
  "calc_test.go",
  "lib/foo_test.rb",
  "spec/foo_spec.rb",
  "math_test.exs",
  "src/calc/tests.rs",
  "FooTest.java",
  "FooIT.kt",
  "src/FooTests.scala",
  "FooTests.cs",
  "FooTest.php",
  "Sources/FooTests.swift",
];
const CODE = [
  "src/a.ts",
  "src/testing.ts",
  "mylib/testing/__init__.py",
  "src/Symfony/Bundle/FrameworkBundle/Test/WebTestCase.php",
  "contest.py",
  "latest/a.js",
  "tester.py",
  "src/spec.ts",
  "src/api-spec.ts",
  "src/session/test-files.ts",
  "src/test-runner/test-runner.ts",
  "Latest.java",
  "src/PodSpec.java",
  "lib/ab_test.ex",
  "api.spec.yaml",
  "config.test.json",
  "E2E/login.ts",
  // h29: modules named test (werkzeug's test client, mocha's Test class).
  "src/werkzeug/test.py",
  "lib/test.js",
  // h28: a Jest project's module (AVA's own src/test.js is its descriptor's: runners/ava.ts).
  "src/test.mjs",
];

describe("test files by name: one list (evaluate/test-paths.ts)", () => {
  it("knows the runners' test names, the union of what the session, coverage and review each had", () => {
    for (const p of TESTS) expect(isTestByName(p), p).toBe(true);
  });

  it("leaves out code under test that only looks like a test", () => {
    for (const p of CODE) expect(isTestByName(p), p).toBe(false);
  });

  it("AVA's and node --test's test-*.js is a test at the root and in a test folder only", () => {
    expect(isTestByName("test-parse.js")).toBe(true);
    expect(isTestByName("test/test-utils.js")).toBe(true);
    expect(isTestByName("lib/test-parse.js")).toBe(false);
    expect(isTestByName("src/evaluate/test-strength.ts")).toBe(false);
  });

  it("AVA's src/test.js and source/test.js are AVA's own (its descriptor), not every runner's", () => {
    const ava = RUNNERS.find((r) => r.id === "ava")!;
    for (const f of ["src/test.js", "source/test.mjs"]) expect([f, isTestByName(f), ava.testFileNames!.test(f)]).toEqual([f, false, true]);
    expect(ava.testFileNames!.test("lib/test.js")).toBe(false);
  });

  it("is every caller's list: the session, coverage and review agree on it, outside their own extras", () => {
    for (const p of [...TESTS, ...CODE]) {
      expect(isSessionTest(p), `session: ${p}`).toBe(isTestByName(p));
      expect(isTestFile(p), `coverage: ${p}`).toBe(isTestByName(p));
      expect(isReviewTest(p), `review: ${p}`).toBe(isTestByName(p));
    }
  });
});
