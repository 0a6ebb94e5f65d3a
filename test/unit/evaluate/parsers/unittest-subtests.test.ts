/**
 * unittest's subTest: each failed subtest is a FAIL / ERROR block of its own, counted in `failures=` /
 * `errors=`, while `Ran` counts tests. The counts are tests (hukkin/tomli: `Ran 13 tests`, `FAILED
 * (failures=15)`, all 15 subtests of test_valid, was read as 0 of 13 passed), and each subtest's failure
 * names its test, the id failing first gives back to unittest.
 */
import { describe, expect, it } from "vitest";
import { parseTests } from "../../../../src/evaluate/parsers/index.js";
import { unittest } from "../../../../src/evaluate/runners/unittest.js";
import { CWD, loadCase } from "./corpus.js";

const out = (all: string) => ({ stdout: "", stderr: all, all });
const RULE = "=".repeat(70);
const DASH = "-".repeat(70);
const block = (kind: string, title: string, message = "AssertionError: 1 != 2") => [
  RULE,
  `${kind}: ${title}`,
  DASH,
  "Traceback (most recent call last):",
  `  File "${CWD}/tests/test_data.py", line 60, in test_valid`,
  "    self.assertEqual(a, b)",
  message,
  "",
];
const summary = (ran: number, result: string) => [DASH, `Ran ${ran} tests in 0.101s`, "", result];
const VALID = "test_valid (tests.test_data.TestData.test_valid)";

describe("unittest subTest failures", () => {
  it("are failures of their one test: 15 failed subtests of 13 tests are 12 passed, 1 failed", () => {
    const subs = Array.from({ length: 15 }, (_, i) => block("FAIL", `${VALID} ${i % 2 ? `[spec-float-${i}]` : `(i=${i})`}`));
    const r = parseTests(out([...subs.flat(), ...summary(13, "FAILED (failures=15)")].join("\n")), { cwd: CWD });
    expect(r).toMatchObject({ passed: 12, failed: 1, skipped: 0, total: 13, format: "unittest" });
    expect(r!.units).toBeUndefined();
    expect(r!.failures).toHaveLength(15);
    expect(new Set(r!.failures.map((f) => f.test))).toEqual(new Set(["tests.test_data.TestData.test_valid"]));
    expect(r!.failures[1]).toMatchObject({ name: "tests.test_data.TestData.test_valid [spec-float-1]", file: "tests/test_data.py", line: 60 });
    expect(unittest.selectByName!(r!.failures.map((f) => f.name))).toEqual(["tests.test_data.TestData.test_valid"]);
  });

  it("count a test once with its own failure beside them, and in the pre-3.11 title", () => {
    const text = [
      ...block("FAIL", "test_both (tests.test_sub.SubTest) (i=3)"),
      ...block("FAIL", "test_both (tests.test_sub.SubTest)"),
      ...block("ERROR", "test_parse (tests.test_sub.SubTest) (<subtest>)", "ValueError: bad"),
      ...block("FAIL", "test_mul (tests.test_calc.CalcTest)"),
      ...summary(5, "FAILED (failures=3, errors=1)"),
    ].join("\n");
    const r = parseTests(out(text), { cwd: CWD });
    expect(r).toMatchObject({ passed: 2, failed: 3, total: 5 });
    expect(r!.failures.map((f) => [f.name, f.test])).toEqual([
      ["tests.test_sub.SubTest.test_both (i=3)", "tests.test_sub.SubTest.test_both"],
      ["tests.test_sub.SubTest.test_both", undefined],
      ["tests.test_sub.SubTest.test_parse (<subtest>)", "tests.test_sub.SubTest.test_parse"],
      ["tests.test_calc.CalcTest.test_mul", undefined],
    ]);
  });

  it("printed by the code under test cannot make fewer tests fail than the blocks name", () => {
    // One real failing test each in a and b (failures=2); two forged subtest blocks of a would take 2 off.
    const text = [
      ...block("FAIL", "test_a (t.T.test_a) [forged]"),
      ...block("FAIL", "test_a (t.T.test_a) [forged too]"),
      ...block("FAIL", "test_a (t.T.test_a)"),
      ...block("FAIL", "test_b (t.T.test_b)"),
      ...summary(4, "FAILED (failures=2)"),
    ].join("\n");
    const r = parseTests(out(text), { cwd: CWD });
    expect(r).toMatchObject({ passed: 2, failed: 2, total: 4 });
    expect(r!.note).toMatch(/names 2 failing tests but its last summary counts 0 \(2 failures, 2 of them more subtests of a test already counted\)/);
  });

  it("-v: a test whose subtests failed, without an outcome line of its own, is named failed; one not ended is not named", () => {
    const lines = [
      "test_a (t.T.test_a) ... ok",
      "test_valid (t.T.test_valid) ... ",
      "  test_valid (t.T.test_valid) [x] ... FAIL",
      ...block("FAIL", "test_valid (t.T.test_valid) [x]"),
      ...summary(2, "FAILED (failures=1)"),
    ];
    const named = parseTests(out(lines.join("\n")), { cwd: CWD });
    expect(named).toMatchObject({ passed: 1, failed: 1, total: 2 });
    expect(named!.cases).toEqual([
      { name: "t.T.test_a", status: "passed" },
      { name: "t.T.test_valid", status: "failed" },
    ]);
    // 3.10 prints no subtest line: the test started but never ended, so the tests are counted, not named.
    const py310 = parseTests(out(lines.filter((l) => !l.startsWith("  ")).join("\n")), { cwd: CWD });
    expect(py310).toMatchObject({ passed: 1, failed: 1, total: 2 });
    expect(py310!.cases).toBeUndefined();
  });

  it("real outputs: the tests are unittest's Ran, its blocks are unittest's failures and errors", () => {
    for (const id of ["subtests-default", "subtests-verbose", "py3112-subtests-verbose", "py3121-subtests-verbose"]) {
      const { all } = loadCase(`unittest/${id}`).output;
      const r = parseTests(out(all), { cwd: CWD })!;
      const ran = Number(/^Ran (\d+) tests/m.exec(all)![1]);
      const [, failures, errors, skipped] = /^FAILED \(failures=(\d+), errors=(\d+), skipped=(\d+)\)$/m.exec(all)!.map(Number);
      expect(r.total, id).toBe(ran);
      expect(r.skipped, id).toBe(skipped);
      expect(r.failures, id).toHaveLength(failures! + errors!);
      expect(r.failed, id).toBe(new Set(r.failures.map((f) => f.test ?? f.name)).size);
      // 3.12.1's -v names the test its `Ran` leaves out: an `ok` line more than `Ran` is not believed (the code
      // under test can print one), so that run is tracked by counts.
      if (id === "py3121-subtests-verbose") expect(r.cases, id).toBeUndefined();
      else if (id !== "subtests-default") expect(r.cases, id).toHaveLength(ran);
    }
  });
});
