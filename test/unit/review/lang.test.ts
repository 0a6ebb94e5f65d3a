import { describe, expect, it } from "vitest";
import { fileKind, isTestPath } from "../../../src/review/lang.js";

describe("review's test files: the one list (evaluate/test-paths.ts) and fixtures", () => {
  it("gains the runners' names it lacked", () => {
    for (const p of [
      "test.js",
      "lib/parse-test.js",
      "lib/parse_test.ts",
      "a_spec.js",
      "a.tests.js",
      "src/a.cy.tsx",
      "index.test-d.ts",
      "test-parse.js",
      "app/tests.py",
      "src/calc/tests.rs",
      "FooTest.php",
      "FooIT.java",
      "src/__snapshots__/a.test.ts.snap",
    ])
      expect(isTestPath(p), p).toBe(true);
  });

  it("keeps its fixtures, in any case, and what it had", () => {
    for (const p of [
      "fixtures/a.js",
      "test/fixture/b.py",
      "src/__fixtures__/c.ts",
      "Fixtures/d.php",
      "tests/x.py",
      "Tests/x.swift",
      "a.e2e.ts",
      "foo_test.exs",
    ])
      expect(isTestPath(p), p).toBe(true);
    for (const p of ["FooTest.kt", "FooTests.cs", "FooTest.scala", "calc_test.go", "spec/foo_spec.rb", "conftest.py"]) expect(isTestPath(p), p).toBe(true);
  });

  it("no longer lower-cases: names and folders the runners would not take for tests are code", () => {
    // Latest.java ended in "test"; PodSpec.java is a Kubernetes model; Symfony's Test/ ships helpers; ExUnit runs only .exs.
    for (const p of ["Latest.java", "src/Contest.kt", "src/PodSpec.java", "src/FrameworkBundle/Test/WebTestCase.php", "Spec/a.rb", "lib/ab_test.ex"])
      expect(isTestPath(p), p).toBe(false);
    // .test. / .spec. are JavaScript's names: an OpenAPI spec or a test environment's settings are data the code reads.
    for (const p of ["api.spec.yaml", "config.test.json", "src/a.test.py"]) expect(isTestPath(p), p).toBe(false);
    for (const p of ["src/session/test-files.ts", "src/testing.ts", "src/spec.ts"]) expect(isTestPath(p), p).toBe(false);
  });

  it("is what fileKind says, so the rules see it", () => {
    expect(fileKind("lib/parse-test.js").isTest).toBe(true);
    expect(fileKind("Latest.java").isTest).toBe(false);
  });
});
