/**
 * Per-test names (cases) for pytest -v, go test -v / -json, cargo test and mocha's spec reporter, read
 * from real outputs of the corpus (fixtures/outputs), so that tests are tracked across steps by identity.
 */
import { describe, expect, it } from "vitest";
import { parseTests } from "../../../../src/evaluate/parsers/index.js";
import type { TestCase } from "../../../../src/evaluate/types.js";
import { CWD, loadCase } from "./corpus.js";

function casesOf(id: string): [string, TestCase["status"]][] | undefined {
  const c = loadCase(id);
  return parseTests(c.output, { cwd: CWD, ...(c.goModule !== undefined ? { goModule: c.goModule } : {}) })!.cases?.map((x) => [x.name, x.status]);
}

function fromText(text: string) {
  return parseTests({ stdout: text, stderr: "", all: text }, { cwd: CWD })!;
}

describe("pytest -v", () => {
  it("names every test by its node id, errors as failed, xfail as skipped", () => {
    expect(casesOf("pytest/pytest9-v-failing")).toEqual([
      ["tests/test_calc.py::test_add", "passed"],
      ["tests/test_calc.py::test_add_negative", "passed"],
      ["tests/test_calc.py::test_mul", "failed"],
      ["tests/test_calc.py::test_ratio_by_zero", "failed"],
      ["tests/test_calc.py::test_skipped", "skipped"],
      ["tests/test_calc.py::test_known_bug", "skipped"],
      ["tests/test_calc.py::test_with_db", "failed"],
      ["tests/test_calc.py::TestGroup::test_in_class", "passed"],
      ["tests/test_calc.py::TestGroup::test_message", "failed"],
      ["tests/test_pass.py::test_add_zero", "passed"],
      ["tests/test_pass.py::test_add_ones", "passed"],
    ]);
  });

  it("counts subtests as parts of their test (SUBPASSED / SUBFAILED lines are not tests)", () => {
    expect(casesOf("pytest/pytest9-subtests-v")).toEqual([
      ["tests/test_pass.py::test_one", "passed"],
      ["tests/test_pass.py::test_two", "passed"],
      ["tests/test_sub.py::test_plain", "passed"],
      ["tests/test_sub.py::test_doubles", "failed"],
      ["tests/test_sub.py::test_all_sub_pass", "passed"],
      ["tests/test_sub.py::test_raises", "failed"],
      ["tests/test_sub.py::test_later", "skipped"],
    ]);
  });

  it("names none without -v, or when printed output breaks the outcome lines; a teardown error after a pass is one failed test", () => {
    expect(casesOf("pytest/pytest9-q-failing")).toBeUndefined();
    const broken = "tests/t.py::test_a hello from the test\nPASSED [ 50%]\ntests/t.py::test_b PASSED [100%]\n\n==== 2 passed in 0.01s ====\n";
    expect(fromText(broken).cases).toBeUndefined();
    const teardown =
      "tests/t.py::test_a PASSED [ 50%]\ntests/t.py::test_a ERROR [ 50%]\ntests/t.py::test_b[x y] PASSED [100%]\n\n==== 2 passed, 1 error in 0.01s ====\n";
    // pytest counts the errored test in `passed` too: the names (one per test) then do not match and are not used.
    expect(fromText(teardown).cases).toBeUndefined();
    const param = "tests/t.py::test_b[x y] PASSED [ 50%]\ntests/t.py::test_c[1-2] SKIPPED (why) [100%]\n\n==== 1 passed, 1 skipped in 0.01s ====\n";
    expect(fromText(param).cases).toEqual([
      { name: "tests/t.py::test_b[x y]", status: "passed" },
      { name: "tests/t.py::test_c[1-2]", status: "skipped" },
    ]);
  });
  it("reads a crafted outcome line in linear time", () => {
    const line = `t.py::x${" PASSED (".repeat(100_000)}\n`;
    const t0 = performance.now();
    fromText(`${line.repeat(5)}\n==== 1 passed in 0.01s ====\n`);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe("go test -v and -json", () => {
  it("names every test by package, a test with subtests too (go reports it), in text and JSON alike; a package that did not build has no test of its own", () => {
    const calc: [string, TestCase["status"]][] = [
      ["example.com/sample/calc.TestAdd", "passed"],
      ["example.com/sample/calc.TestMul", "failed"],
      ["example.com/sample/calc.TestSkipped", "skipped"],
      ["example.com/sample/calc.TestTable", "failed"],
      ["example.com/sample/calc.TestTable/ones", "passed"],
      ["example.com/sample/calc.TestTable/zero", "failed"],
      ["example.com/sample/ok.TestOne", "passed"],
    ];
    expect(casesOf("go-test/verbose-failing")).toEqual(calc);
    expect(casesOf("go-test/json-failing")).toEqual([
      ...calc,
      ["example.com/sample/panics.TestFine", "passed"],
      ["example.com/sample/panics.TestOutOfRange", "failed"],
    ]);
    const errorf = [
      ["example.com/errorf/calc.TestAdd", "passed"],
      ["example.com/errorf/calc.TestMul", "failed"],
      ["example.com/errorf/calc.TestSkip", "skipped"],
    ];
    expect(casesOf("go-test/errorf-verbose")).toEqual(errorf);
    expect(casesOf("go-test/errorf-json")).toEqual(errorf);
  });

  it("names none without -v (passing tests are not printed)", () => {
    expect(casesOf("go-test/text-failing")).toBeUndefined();
    expect(casesOf("go-test/passing")).toBeUndefined();
  });
});

describe("cargo test", () => {
  it("names every test of every binary, doc tests without their line", () => {
    expect(casesOf("cargo/test-failing")).toEqual([
      ["tests::adds", "passed"],
      ["tests::slow", "skipped"],
      ["tests::multiplies", "failed"],
      ["tests::unwraps_none", "failed"],
      ["integration_adds", "passed"],
      ["integration_multiplies", "failed"],
      ["one", "passed"],
      ["src/lib.rs - add", "passed"],
      ["src/lib.rs - mul", "failed"],
    ]);
    const doc = loadCase("cargo/test-failing");
    const f = parseTests(doc.output, { cwd: CWD })!.failures.find((x) => x.name === "src/lib.rs - mul");
    expect(f).toMatchObject({ file: "src/lib.rs", line: 12 });
  });

  it("keeps a doc test's name when code above it moves it, numbers a name two binaries share, and names none when output splits a line", () => {
    const run = (line: number) =>
      `running 2 tests\ntest src/lib.rs - mul (line ${line}) ... ok\ntest src/lib.rs - add (line 3) - compile fail ... ok\n\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.1s\n`;
    expect(fromText(run(12)).cases).toEqual(fromText(run(40)).cases);
    expect(fromText(run(12)).cases!.map((c) => c.name)).toEqual(["src/lib.rs - mul", "src/lib.rs - add - compile fail"]);
    const two =
      "running 1 test\ntest it_works ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.1s\n\nrunning 1 test\ntest it_works ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.1s\n";
    expect(fromText(two).cases!.map((c) => c.name)).toEqual(["it_works", "it_works #2"]);
    const split =
      "running 1 test\ntest noisy ... printed by the test\nok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.1s\n";
    expect(fromText(split).cases).toBeUndefined();
  });
});

describe("mocha spec reporter", () => {
  it("names tests by their suites as failures are named, a failing hook included", () => {
    expect(casesOf("mocha/spec-failing")).toEqual([
      ["value reads nested field", "failed"],
      ["skipped for now", "skipped"],
      ["todo later", "skipped"],
      ['with a failing hook > "before all" hook for "is never run"', "failed"],
      ["add > adds positives", "passed"],
      ["add > adds negatives", "passed"],
      ["mul > multiplies", "failed"],
    ]);
    expect(casesOf("mocha/spec-passing-color")).toEqual([
      ["add > adds positives", "passed"],
      ["add > adds negatives", "passed"],
    ]);
  });

  it("is not misled by what tests print at the margin, and names none when the tree does not match the counts", () => {
    const out = "\n\n  outer\n    inner\nprinted by a test\n      ✔ works (120ms)\n    ✔ sits in outer\n\n\n  2 passing (130ms)\n\n";
    expect(fromText(out).cases).toEqual([
      { name: "outer > inner > works", status: "passed" },
      { name: "outer > sits in outer", status: "passed" },
    ]);
    expect(fromText(out.replace("2 passing", "3 passing")).cases).toBeUndefined();
  });

  it("does not name a tree nested so deep that every name would repeat it (hostile output), and still counts", () => {
    const deep = Array.from({ length: 2000 }, (_, i) => `${" ".repeat(2 + i)}suite title ${i}\n`).join("");
    const tests = `${" ".repeat(2003)}✔ t\n`.repeat(5000);
    const t0 = performance.now();
    const r = fromText(`${deep}${tests}\n  5000 passing (1s)\n`);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(r).toMatchObject({ passed: 5000, failed: 0 });
    expect(r.cases).toBeUndefined();
  });
});
