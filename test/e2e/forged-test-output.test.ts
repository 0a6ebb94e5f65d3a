/**
 * A candidate that swaps the failing test for a new passing one and makes the output lie about it, through the
 * real server with real pytest and unittest (found by a fresh-eyes attack): a short summary printed after
 * pytest's own, a "full" failing-first run that ran no test, names dropped on purpose so that counts alone
 * judge, and an `ok` line beyond unittest's `Ran`. None may reach 1.0 or success.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { filesOf } from "../helpers/fixtures.js";
import { checkoutState, repoFromFiles } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const repoOf = (files: Record<string, string>): string => repoFromFiles(files, "trm-attack-");
const success = (r: Any) => r.reasons.join(" ").includes("success");

const PY_TESTS =
  "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n";
const CALC_PY = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b\n";
const RA = "python3 -m pytest -rA -p no:cacheprovider";

describe("pytest -rA names: output after pytest's own summary", () => {
  it("code under test that prints a -rA short summary at exit (atexit) does not hide the swapped-out failing test", async () => {
    const repo = repoOf({ "calc.py": CALC_PY, "test_calc.py": PY_TESTS });
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: RA, preflight: true, selectTests: false });
    expect(s.preflight.tests).toMatchObject({ passed: 2, failed: 1 });
    // The swap of trust-gaming.test.ts, plus code under test (no test file) that prints, at interpreter
    // exit, after pytest's real summary, a short summary naming the reference's tests and a summary line
    // with as many failures (0) as pytest's: of tied summaries the last is read, and its names.
    const swapped = PY_TESTS.replace(/def test_mul[\s\S]*$/, "def test_mul_is_callable():\n    assert callable(mul)\n");
    const forger =
      CALC_PY +
      "\n\nimport atexit, sys\n\n\ndef _at_exit():\n    sys.stdout.write('=== short test summary info ===\\nPASSED test_calc.py::test_add\\nPASSED test_calc.py::test_zero\\nPASSED test_calc.py::test_mul\\n=== 3 passed in 0.01s ===\\n')\n\n\natexit.register(_at_exit)\n";
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesOf({ "test_calc.py": swapped, "calc.py": forger }) });
    expect(r.score).toBeLessThan(1);
    expect(success(r)).toBe(false);
    // The forged names are not used, and counts alone cannot rule the swap out.
    expect(r.feedback).toMatch(/The test output no longer names every test/);
    expect(checkoutState(repo)).toEqual(before);
  });
  it("failing first: a selected run that ran no test (`not found`, exit 4) is not the step's full run because output printed after pytest's names every test", async () => {
    const repo = repoOf({ "calc.py": CALC_PY, "test_calc.py": PY_TESTS });
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: RA, preflight: true });
    expect(s.preflight.tests).toMatchObject({ passed: 2, failed: 1 });
    const swapped = PY_TESTS.replace(/def test_mul[\s\S]*$/, "def test_mul_is_callable():\n    assert callable(mul)\n");
    // At exit: the reference's names, a tied summary, and exit status 0 (pytest's was 4: the selection matched nothing).
    const forger =
      CALC_PY +
      "\n\nimport atexit, os, sys\n\n\ndef _at_exit():\n    sys.stdout.write('=== short test summary info ===\\nPASSED test_calc.py::test_add\\nPASSED test_calc.py::test_zero\\nPASSED test_calc.py::test_mul\\n=== 3 passed in 0.01s ===\\n')\n    sys.stdout.flush()\n    os._exit(0)\n\n\natexit.register(_at_exit)\n";
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesOf({ "test_calc.py": swapped, "calc.py": forger }) });
    // The selected run (`pytest -rA test_calc.py::test_mul`) collected nothing: it ran no test of the suite.
    expect(r.feedback).not.toMatch(/That run is this step's full run/);
    expect(r.score).toBeLessThan(1);
    expect(success(r)).toBe(false);
    expect(checkoutState(repo)).toEqual(before);
  });
});

describe("pytest -rA names: a step whose names do not reconcile is judged by counts against a named reference", () => {
  it("an XPASS test in a folder with a space (its id fails NODE_ID) drops the names, so the swapped-out failing test is not missing", async () => {
    const repo = repoOf({ "calc.py": CALC_PY, "test_calc.py": PY_TESTS });
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: RA, preflight: true, selectTests: false });
    expect(s.preflight.tests).toMatchObject({ passed: 2, failed: 1 });
    const swapped = PY_TESTS.replace(/def test_mul[\s\S]*$/, "def test_mul_is_callable():\n    assert callable(mul)\n");
    // `XPASS my tests/test_pad.py::test_p` is counted in "passed" but its id has a space, so it is not named:
    // 4 passed, 3 names, the step is read by counts (3 ran at the reference, the 4th pass capped): 3 of 3.
    const pad = "import pytest\n\n\n@pytest.mark.xfail(reason='pad')\ndef test_p():\n    pass\n";
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "test_calc.py": swapped, "my tests/test_pad.py": pad }),
    });
    expect(r.score).toBeLessThan(1);
    expect(success(r)).toBe(false);
    expect(r.feedback).toMatch(/test_calc\.py::test_mul\b/);
    expect(checkoutState(repo)).toEqual(before);
  });
});

describe("unittest -v: outcome lines beyond `Ran`", () => {
  const UT =
    "import unittest\nfrom calc import add, mul\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n\n    def test_mul(self):\n        self.assertEqual(mul(2, 3), 6)\n";
  it("code under test that prints `test_mul (test_calc.T.test_mul) ... ok` is not a 4th passing test of `Ran 3 tests`", async () => {
    const repo = repoOf({ "calc.py": CALC_PY, "test_calc.py": UT });
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "python3 -m unittest -v", preflight: true, selectTests: false });
    expect(s.preflight.tests).toMatchObject({ passed: 2, failed: 1 });
    const swapped = UT.replace(/    def test_mul[\s\S]*$/, "    def test_mul_is_callable(self):\n        self.assertTrue(callable(mul))\n");
    // unittest does not capture: the line goes to stderr with its own. `Ran 3 tests`, OK, but 4 names,
    // taken as Python 3.12's decorator-skipped tests left out of Ran (though none is skipped).
    const forger = `import sys\nsys.stderr.write("test_mul (test_calc.T.test_mul) ... ok\\n")\n\n\n${CALC_PY}`;
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesOf({ "test_calc.py": swapped, "calc.py": forger }) });
    expect(r.tests.passed).toBeLessThanOrEqual(3);
    expect(r.score).toBeLessThan(1);
    expect(success(r)).toBe(false);
    expect(checkoutState(repo)).toEqual(before);
  });
});
