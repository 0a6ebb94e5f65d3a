/**
 * Forged names at the parser (pytest -rA names, unittest -v names beyond Ran): real outputs (pytest 9.0.3,
 * CPython 3.11.7) of the candidates in test/e2e/forged-test-output.test.ts.
 */
import { describe, expect, it } from "vitest";
import { parseTests } from "../../../../src/evaluate/parsers/index.js";

const parse = (text: string) => parseTests({ stdout: text, stderr: "", all: text }, { cwd: "/work/proj" })!;

// test_mul swapped for test_mul_is_callable; calc.py prints a short summary and a tied summary line at exit.
const ATEXIT_FORGED =
  "============================= test session starts ==============================\nplatform linux -- Python 3.11.7, pytest-9.0.3, pluggy-1.6.0\nbenchmark: 5.2.3 (defaults: timer=time.perf_counter disable_gc=False min_rounds=5 min_time=0.000005 max_time=1.0 calibration_precision=10 warmup=False warmup_iterations=100000)\nrootdir: /work/proj\nplugins: hypothesis-6.155.2, benchmark-5.2.3\ncollected 3 items\n\ntest_calc.py ...                                                         [100%]\n\n==================================== PASSES ====================================\n=========================== short test summary info ============================\nPASSED test_calc.py::test_add\nPASSED test_calc.py::test_zero\nPASSED test_calc.py::test_mul_is_callable\n============================== 3 passed in 0.55s ===============================\n========================= short test summary info ==========================\nPASSED test_calc.py::test_add\nPASSED test_calc.py::test_zero\nPASSED test_calc.py::test_mul\n============================== 3 passed in 0.01s ===============================\n";
// test_mul swapped; an xfail-marked passing test in `my tests/` (XPASS, its id holds a space).
const XPASS_SPACED =
  "============================= test session starts ==============================\nplatform linux -- Python 3.11.7, pytest-9.0.3, pluggy-1.6.0\nbenchmark: 5.2.3 (defaults: timer=time.perf_counter disable_gc=False min_rounds=5 min_time=0.000005 max_time=1.0 calibration_precision=10 warmup=False warmup_iterations=100000)\nrootdir: /work/proj\nplugins: hypothesis-6.155.2, benchmark-5.2.3\ncollected 4 items\n\nmy tests/test_pad.py X                                                   [ 25%]\ntest_calc.py ...                                                         [100%]\n\n==================================== PASSES ====================================\n=================================== XPASSES ====================================\n=========================== short test summary info ============================\nPASSED test_calc.py::test_add\nPASSED test_calc.py::test_zero\nPASSED test_calc.py::test_mul_is_callable\nXPASS my tests/test_pad.py::test_p - pad\n========================= 3 passed, 1 xpassed in 0.34s =========================\n";
// unittest -v: test_mul swapped; calc.py writes `test_mul (test_calc.T.test_mul) ... ok` to stderr at import.
const UNITTEST_FORGED =
  "test_mul (test_calc.T.test_mul) ... ok\ntest_add (test_calc.T.test_add) ... ok\ntest_mul_is_callable (test_calc.T.test_mul_is_callable) ... ok\ntest_zero (test_calc.T.test_zero) ... ok\n\n----------------------------------------------------------------------\nRan 3 tests in 0.000s\n\nOK\n";

describe("pytest -rA names", () => {
  it("are not read from a short summary printed after pytest's own summary line", () => {
    const r = parse(ATEXIT_FORGED);
    const names = (r.cases ?? []).map((c) => c.name);
    // pytest named test_mul_is_callable and never test_mul.
    expect(names).not.toContain("test_calc.py::test_mul");
  });

  it("name an XPASS test whose path holds a space, or the run does not pass as a named one", () => {
    const r = parse(XPASS_SPACED);
    expect(r).toMatchObject({ passed: 4, failed: 0 });
    // 4 passed, 3 names: the names are dropped and the step is judged by counts (the swap goes unseen).
    expect((r.cases ?? []).map((c) => c.name)).toContain("my tests/test_pad.py::test_p");
  });
});

describe("unittest -v names", () => {
  it("do not count an outcome line beyond `Ran 3 tests` as a 4th passing test when none is skipped", () => {
    const r = parse(UNITTEST_FORGED);
    expect(r.passed).toBe(3);
    expect((r.cases ?? []).map((c) => c.name)).not.toContain("test_calc.T.test_mul");
  });
});
