/**
 * Python's bytecode under sandbox: true (python-env.ts): no PYTHONPYCACHEPREFIX, so the installed bytecode
 * of the standard library and the packages is read instead of everything being compiled again at every
 * command (the prefix, in the hidden state folder, lasted one command); the worktree's own bytecode goes
 * with each step's leftovers, so a candidate written in the same second as the last run, at the same size,
 * is still tested as its new code.
 */
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { checkoutState, repoFromFiles } from "../helpers/repo.js";

type Any = Record<string, any>;
const hasBwrap = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0;
const sandboxTests = hasBwrap || process.env.CI === "true" ? describe : describe.skip;

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const CALC = "def add(a, b):\n    return a - b\n";
const TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n";

sandboxTests("Python bytecode in the sandbox", () => {
  it("uses no prefix, and a same-size fix right after the run is tested as written", async () => {
    const repo = repoFromFiles({ "calc.py": CALC, "tests/test_calc.py": TESTS, "pytest.ini": "[pytest]\npythonpath = .\n" }, "trm-sbpyc-");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", {
      repoPath: repo,
      sandbox: true,
      selectTests: false,
      testCmd: "python3 -c 'import sys; print(\"PREFIX\", sys.pycache_prefix)' && python3 -m pytest -rA",
      preflight: true,
    });
    expect(s.preflight.tests).toMatchObject({ passed: 1, failed: 1 });
    // `a - b` -> `a + b`: the same size, written within the second of the run before.
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("calc.py", CALC.replace("-", "+")) });
    expect(r.tests).toMatchObject({ passed: 2, failed: 0 });
    expect(r.score).toBe(1);
    const log = await srv.call<Any>("trm_read_log", { sessionId: s.sessionId, command: "test" });
    expect(JSON.stringify(log)).toMatch(/PREFIX None/);
    expect(checkoutState(repo)).toEqual(before);
  });
});

sandboxTests("a __pycache__ setupCmd made in a tracked folder", () => {
  const OPS = "def mul(a, b):\n    return a + b\n";
  const CALC2 = "from lib.ops import mul\n\n\ndef add(a, b):\n    return a + b\n";
  const TESTS2 =
    "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n";
  /**
   * calc.py that, once imported, writes lib/ops.py's bytecode as a right mul, stamped with the mtime and size
   * of the source on disk: Python then trusts it for as long as lib/ops.py is not written again.
   */
  const FORGE = [
    CALC2,
    "import importlib.util as _u, importlib._bootstrap_external as _be, os as _os",
    '_src = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "lib", "ops.py")',
    "_st = _os.stat(_src)",
    '_code = compile("def mul(a, b):\\n    return a * b\\n", _src, "exec")',
    'open(_u.cache_from_source(_src), "wb").write(_be._code_to_timestamp_pyc(_code, _st.st_mtime, _st.st_size))',
    "",
  ].join("\n");

  it("is not kept: a .pyc a run forged there for an unchanged source does not pass a later no-fix", async () => {
    const repo = repoFromFiles(
      { "calc.py": CALC2, "lib/__init__.py": "", "lib/ops.py": OPS, "tests/test_calc.py": TESTS2, "pytest.ini": "[pytest]\npythonpath = .\n" },
      "trm-sbpyc-",
    );
    const s = await srv.call<Any>("trm_start_session", {
      repoPath: repo,
      sandbox: true,
      selectTests: false,
      // Setup imports the project once (as a version read from the package, or a compileall, would).
      setupCmd: "python3 -c 'import lib.ops'",
      testCmd: "python3 -m pytest -rA",
      preflight: true,
    });
    expect(s.preflight.score).toBeCloseTo(2 / 3, 3);
    const one = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, rationale: "refactor", candidate: filesCandidate("calc.py", FORGE) });
    expect(one.score).toBeCloseTo(2 / 3, 3);
    const two = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      rationale: "comment",
      candidate: filesCandidate("calc.py", `# mul is still wrong\n${CALC2}`),
    });
    expect(two.tests).toMatchObject({ passed: 2, failed: 1 });
    expect(two.score).toBeCloseTo(2 / 3, 3);
  });
});
