import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, textOf } from "../helpers/client.js";
import { filesOf } from "../helpers/fixtures.js";
import { repoFromFiles } from "../helpers/repo.js";

/**
 * A CI step that runs the docs' doctests from docs/ (`cd docs && python -m pytest --doctest-glob='*.rst' .`)
 * was carried as `... '--doctest-glob=*.rst' .` run from the checkout's root (found by a fresh-eyes attack
 * on d9cbbab), where the docs' example reading a file beside it fails at every step: the right fix never
 * scored 1. A pytest line after a `cd` is not carried now; the detected pytest runs the tests alone.
 */
type Any = Record<string, any>;
let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

describe("doctests detected from a CI step that changes directory first", () => {
  it("the right fix scores 1: the step's `.` is docs/, not the checkout's root", async () => {
    const repo = repoFromFiles(
      {
        "calc.py": "def add(a, b):\n    return a - b\n",
        "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n",
        "tests/conftest.py": "import os, sys\n\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n",
        "pytest.ini": "[pytest]\ntestpaths = tests\n",
        "docs/example.json": '{"x": 1}\n',
        "docs/usage.rst": 'Usage\n=====\n\n>>> import json\n>>> json.load(open("example.json"))["x"]\n1\n',
        ".github/workflows/ci.yml":
          "on: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: python -m pytest\n  docs:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: cd docs && python -m pytest --doctest-glob='*.rst' .\n",
      },
      "trm-doctests-cd-",
    );
    const raw = await srv.raw("trm_start_session", { repoPath: repo, preflight: true, selectTests: false });
    expect(raw.isError, textOf(raw)).toBeFalsy();
    const s = raw.structuredContent as Any;
    expect(s.detected.commands).toEqual({ testCmd: "python3 -m pytest -rA" });
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesOf({ "calc.py": "def add(a, b):\n    return a + b\n" }) });
    expect(r.score, `${JSON.stringify(s.detected)}\n${r.feedback}`).toBe(1);
    expect(r.shouldHalt).toBe(true);
  });
});
