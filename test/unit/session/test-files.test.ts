import { describe, expect, it } from "vitest";
import type { FileOp } from "../../../src/candidate/types.js";
import { RUNNERS } from "../../../src/evaluate/runners/index.js";
import type { TestCounts } from "../../../src/evaluate/types.js";
import { assertTestsUntouched, describeTestChanges, failingTestFiles, isProse, isTestPath, testFileChanges } from "../../../src/session/test-files.js";
import { matchesGlob } from "../../../src/util/glob.js";

const w = (path: string, create = false): FileOp => ({ op: "write", path, content: Buffer.from("x"), create });

describe("matchesGlob", () => {
  it("matches the shapes people write for test folders", () => {
    expect(matchesGlob("test/a.test.js", "test/**")).toBe(true);
    expect(matchesGlob("test/deep/x/a.js", "test/**")).toBe(true);
    expect(matchesGlob("src/test/a.js", "test/**")).toBe(false);
    expect(matchesGlob("test/a.js", "test/")).toBe(true);
    expect(matchesGlob("test/a.js", "test")).toBe(true);
    expect(matchesGlob("testdata/a.js", "test")).toBe(false);
    expect(matchesGlob("src/x/util.test.ts", "*.test.ts")).toBe(true);
    expect(matchesGlob("src/x/util.test.ts", "src/*.test.ts")).toBe(false);
    expect(matchesGlob("src/x/util.spec.tsx", "**/*.{test,spec}.{ts,tsx}")).toBe(true);
    expect(matchesGlob("tests/test_calc.py", "tests/test_?alc.py")).toBe(true);
    expect(matchesGlob("pkg/a_test.go", "**/*_test.go")).toBe(true);
    expect(matchesGlob("pkg/a.go", "**/*_test.go")).toBe(false);
  });

  it("stays fast on a hostile pattern", () => {
    const t = performance.now();
    expect(matchesGlob(`${"a/".repeat(60)}b`, `${"**/".repeat(40)}c`)).toBe(false);
    expect(matchesGlob("a".repeat(200), `${"*a".repeat(50)}b`)).toBe(false);
    expect(performance.now() - t).toBeLessThan(1000);
  });
});

describe("test files of a candidate", () => {
  it("recognises test files by the runners' conventions", () => {
    for (const p of ["test/a.js", "tests/test_x.py", "src/__tests__/a.ts", "src/a.test.ts", "src/a.spec.mjs", "pkg/a_test.go", "conftest.py", "lib/x_test.py"])
      expect(isTestPath(p), p).toBe(true);
    // AVA's defaults (a root `test.js`: sindresorhus/slugify; `test-*.js`), mocha's `*-test.js`, Django's `tests.py` (AVA's `src/test.js` is its descriptor's).
    for (const p of ["test.js", "tests.ts", "test-parse.js", "lib/parse-test.js", "app/tests.py", "test.py"]) expect(isTestPath(p), p).toBe(true);
    // node --test's `*_test.js`, `*_spec.js`, `a.tests.js`, tsd, Cypress, Rust's tests.rs, Ruby, PHPUnit, XCTest, JUnit ITs;
    // snapshots, golden files and mocks (found by fresh-eyes attacks: editing them made a failing test pass unflagged).
    for (const p of [
      "math_test.js",
      "lib/a_test.mts",
      "a_spec.js",
      "a.tests.js",
      "index.test-d.ts",
      "src/a.cy.tsx",
      "src/calc/tests.rs",
      "lib/foo_test.rb",
      "FooTest.php",
      "Sources/FooTests.swift",
      "FooIT.java",
      "src/__snapshots__/fmt.test.js.snap",
      "a.snap",
      "pkg/testdata/golden.txt",
      "src/__mocks__/fs.js",
    ])
      expect(isTestPath(p), p).toBe(true);
    // Code under test that only looks like a test (a fix confined to it must not count as a test edit).
    for (const p of [
      "src/a.ts",
      "src/testing.ts",
      "contest.py",
      "latest/a.js",
      "attest.js",
      "src/test-utils.py",
      "latest.js",
      "src/latest_version.js",
      "inspect.js",
      "snapshot.js",
      "mylib/testing.py",
      "mylib/testing/__init__.py",
      "tester.py",
      "src/spec.ts",
      "src/api-spec.ts",
      "src/rust.rs",
    ])
      expect(isTestPath(p), p).toBe(false);
    expect(isTestPath("checks/a.js", ["checks/**"])).toBe(true);
  });

  it("since the one list (evaluate/test-paths.ts): what coverage and review knew, and test-*.js only at the root", () => {
    // Gained: Detox's .e2e.js, ExUnit's *_test.exs, JUnit names in Scala, SwiftPM's and Symfony's Tests/ folder.
    for (const p of ["src/login.e2e.ts", "e2e/a.e2e.js", "math_test.exs", "src/CalcTest.scala", "src/CalcIT.scala", "Tests/AppTests/Helpers.swift"])
      expect(isTestPath(p), p).toBe(true);
    // Lost: test-*.ts below the root names a module about tests (this project's own; Stryker's src/test-runner/).
    for (const p of ["src/session/test-files.ts", "src/evaluate/test-strength.ts", "src/test-runner/test-runner.ts", "lib/test-utils.js"])
      expect(isTestPath(p), p).toBe(false);
    // Kept: AVA's root test-*.js and anything in a test folder; not Symfony's Test/ helpers nor the other cases review had.
    for (const p of ["test-parse.js", "test/test-utils.js", "src/__tests__/test-x.ts"]) expect(isTestPath(p), p).toBe(true);
    // Not a folder named fixtures alone (a library may be: testing-cabal/fixtures, h28); C's tests by name.
    for (const p of ["src/FrameworkBundle/Test/WebTestCase.php", "E2E/login.ts", "Latest.java", "lib/ab_test.ex", "bench/a.js", "fixtures/_fixtures/a.py"])
      expect(isTestPath(p), p).toBe(false);
    for (const p of ["test/fixtures/out.txt", "calc_test.c", "src/parse_unittest.cc"]) expect(isTestPath(p), p).toBe(true);
    expect(isTestPath("src/session/test-files.ts", ["src/session/**"])).toBe(true);
  });

  it("says which test files a step added, modified or deleted", () => {
    const ch = testFileChanges([w("src/a.js"), w("test/a.test.js"), w("test/new.test.js", true), { op: "delete", path: "test/b.test.js" }]);
    expect(ch).toEqual([
      { path: "test/a.test.js", change: "modified" },
      { path: "test/new.test.js", change: "added" },
      { path: "test/b.test.js", change: "deleted" },
    ]);
    expect(describeTestChanges(ch)).toBe("this step changed test files: test/a.test.js (modified), test/new.test.js (added), test/b.test.js (deleted)");
    expect(describeTestChanges([])).toBeUndefined();
  });

  it("protectTests refuses a candidate that touches a protected file, naming it and the glob", () => {
    expect(() => assertTestsUntouched([w("src/a.js"), { op: "delete", path: "test/b.test.js" }], ["test/**"])).toThrow(
      /test\/b.test.js \(deleted, matches test\/\*\*\).*Nothing was applied/,
    );
    expect(() => assertTestsUntouched([w("src/a.js")], ["test/**"])).not.toThrow();
    expect(() => assertTestsUntouched([w("test/a.js")], [])).not.toThrow();
  });
});

describe("the files the reference's failing tests are declared in", () => {
  const failing = (names: string[], format = "pytest"): TestCounts => ({
    passed: 1,
    failed: names.length,
    skipped: 0,
    total: names.length + 1,
    format,
    failures: names.map((name) => ({ name })),
  });
  const byId = (...ids: string[]) => RUNNERS.filter((r) => ids.includes(r.id));

  it("by the runners' names: unittest's module, pytest's doctest files and test modules (h24)", () => {
    expect(failingTestFiles(failing(["testcalc.TestCalc.test_div", "tests.test_broken"], "unittest"), byId("unittest"))).toEqual([
      "testcalc.py",
      "tests/test_broken.py",
    ]);
    expect(failingTestFiles(failing(["test_calc.txt::test_calc.txt", "docs/usage.rst::usage.rst", "checks/calc_tests.py::test_div"]), byId("pytest"))).toEqual([
      "test_calc.txt",
      "docs/usage.rst",
      "checks/calc_tests.py",
    ]);
    // A report's own test file, where its name says test.
    expect(failingTestFiles({ ...failing([]), failures: [{ name: "adds", testFile: "spec/adds_test.cjs" }] }, byId("jest"))).toEqual(["spec/adds_test.cjs"]);
    // Jest's default testMatch runs `spec.js` and `*.spec.js` anywhere (h27 repro-4 B), RSpec-like `_spec` too.
    const reported = (...files: string[]) => ({ ...failing([]), failures: files.map((testFile) => ({ name: "adds", testFile })) });
    expect(failingTestFiles(reported("src/sum/spec.js", "src/a.spec.ts", "lib/sum_spec.js"), byId("jest"))).toEqual([
      "src/sum/spec.js",
      "src/a.spec.ts",
      "lib/sum_spec.js",
    ]);
    // Words that only contain it are code: `inspect.js`, `aspect.js`, `specials.js`.
    expect(failingTestFiles(reported("src/inspect.js", "src/aspect.js", "src/specials.js"), byId("jest"))).toEqual([]);
  });

  it("not the code under test: a module's doctest, a module holding code and tests, a path outside", () => {
    expect(failingTestFiles(failing(["src/calc.py::calc.div"]), byId("pytest"))).toEqual([]);
    expect(failingTestFiles(failing(["calc.TestCalc.test_div"], "unittest"), byId("unittest"))).toEqual([]);
    expect(failingTestFiles(failing(["calc.py::test_div", "checks/verify_calc.py::test_div"]), byId("pytest"))).toEqual([]);
    // h28: Vitest's in-source tests (the report names the source file), a doctest item of a package named test-like,
    // inline tests in `latest.py` (not a test name), pytest-cython's code.
    expect(failingTestFiles({ ...failing([]), failures: [{ name: "sum > adds", testFile: "src/sum.js" }] }, byId("vitest"))).toEqual([]);
    expect(
      failingTestFiles(failing(["testkit/testcase.py::testkit.testcase.TestCase", "versions/latest.py::test_x", "calc.pyx::calc.div"]), byId("pytest")),
    ).toEqual([]);
    expect(failingTestFiles(failing(["../x/test_a.py::test_b", "/abs/test_a.py::test_b"]), byId("pytest"))).toEqual([]);
    expect(failingTestFiles(null, byId("pytest"))).toEqual([]);
  });
});

describe("prose beside a test change", () => {
  it("READMEs, changelogs, NEWS and news fragments at the root's fragment folders (h29); not code named alike", () => {
    for (const f of [
      "README.md",
      "docs/guide.rst",
      "NEWS",
      "NEWS.txt",
      "CHANGES",
      "newsfragments/123.bugfix",
      "CHANGES/1234.feature",
      "changelog.d/20.fixed.md",
      "news/+abc.misc",
      "changes/1.doc.rst",
    ])
      expect([f, isProse(f)]).toEqual([f, true]);
    for (const f of ["src/history.js", "src/news.py", "news/models.py", "news/v2.py", "lib/newsfragments/1.bugfix", "changes/apply.go", "src/license.js"])
      expect([f, isProse(f)]).toEqual([f, false]);
  });
});

describe("data of the tests in a fixtures folder", () => {
  it("is a test's expectation (a golden file, h29); code in such a folder is code (testing-cabal/fixtures, h28)", () => {
    for (const f of ["fixtures/expected.txt", "fixture/out.json", "src/__fixtures__/page.html", "pkg/fixtures/data/a.csv"])
      expect([f, isTestPath(f)]).toEqual([f, true]);
    for (const f of ["fixtures/__init__.py", "fixtures/_fixtures/mockpatch.py", "src/fixture.js", "lib/fixtures.ts", "fixtures.json"])
      expect([f, isTestPath(f)]).toEqual([f, false]);
  });
});
