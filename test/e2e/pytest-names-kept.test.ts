/**
 * A right fix scores 1 under pytest -rA (real pytest, through the real server) where the names of its output
 * once failed to add up (found by a fresh-eyes attack): held at the reference's score, it could not end the
 * session. A failing parameter id holding ` - `, two skip groups at one file:line, a skip in a folder whose
 * name holds a space. (A suite past MAX_CASES tests is tracked by counts and held so too: docs/scoring.md.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { filesOf } from "../helpers/fixtures.js";
import { repoFromFiles } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});
const repoOf = (files: Record<string, string>): string => repoFromFiles(files, "trm-names-kept-");
const success = (r: Any) => r.reasons.join(" ").includes("success");
const RA = "python3 -m pytest -rA -p no:cacheprovider";

describe("pytest -rA names that add up: a right fix scores 1", () => {
  it("a failing parametrized test whose id holds ' - ' (an expression) is fixed: it is not a lost test", async () => {
    const calc = "def ev(s):\n    a, op, b = s.split()\n    return int(a) + int(b)\n";
    const fixed = "def ev(s):\n    a, op, b = s.split()\n    return int(a) + int(b) if op == '+' else int(a) - int(b)\n";
    const tests =
      "import pytest\nfrom calc import ev\n\n\n@pytest.mark.parametrize('expr,exp', [('3 - 1', 2), ('2 + 2', 4)])\ndef test_ev(expr, exp):\n    assert ev(expr) == exp\n";
    const repo = repoOf({ "calc.py": calc, "test_calc.py": tests });
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: RA, preflight: true, selectTests: false });
    expect(s.preflight.tests).toMatchObject({ passed: 1, failed: 1 });
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesOf({ "calc.py": fixed }) });
    expect(r.feedback).not.toMatch(/counted as failing/);
    expect(r.score).toBe(1);
    expect(success(r)).toBe(true);
  });

  it("the fix adds a parametrized test whose two params are skipped for different reasons (two -rA skip groups at one file:line)", async () => {
    const calc = "def add(a, b):\n    return a - b\n";
    const tests = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n";
    const repo = repoOf({ "calc.py": calc, "test_calc.py": tests });
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: RA, preflight: true, selectTests: false });
    expect(s.preflight.tests).toMatchObject({ passed: 1, failed: 1 });
    // pytest -rA: `SKIPPED [1] test_more.py:4: not on this platform` and `SKIPPED [1] test_more.py:4: needs numpy 3`.
    const more =
      "import pytest\nfrom calc import add\n\n\n@pytest.mark.parametrize('x', [1, pytest.param(2, marks=pytest.mark.skip(reason='not on this platform')), pytest.param(3, marks=pytest.mark.skip(reason='needs numpy 3'))])\ndef test_more(x):\n    assert add(x, 0) == x\n";
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "calc.py": "def add(a, b):\n    return a + b\n", "test_more.py": more }),
    });
    expect(r.tests.failed).toBe(0);
    expect(r.feedback).not.toMatch(/no longer names every test/);
    expect(r.score).toBe(1);
    expect(success(r)).toBe(true);
  });
  it("a suite in a folder with a space (its node ids are named) gains a skipped test: `SKIPPED [1] my tests/test_more.py:4: later`", async () => {
    const calc = "def add(a, b):\n    return a - b\n";
    const tests = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n";
    const repo = repoOf({
      "calc.py": calc,
      "my tests/test_calc.py": tests,
      "my tests/conftest.py": "import sys, os\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n",
    });
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: RA, preflight: true, selectTests: false });
    expect(s.preflight.tests).toMatchObject({ passed: 1, failed: 1 });
    const more = "import pytest\n\n\n@pytest.mark.skip(reason='later')\ndef test_later():\n    pass\n";
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "calc.py": "def add(a, b):\n    return a + b\n", "my tests/test_more.py": more }),
    });
    expect(r.tests.failed, r.feedback).toBe(0);
    expect(r.feedback).not.toMatch(/no longer names every test/);
    expect(r.score).toBe(1);
    expect(success(r)).toBe(true);
  });
});
