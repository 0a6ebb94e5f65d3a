/**
 * Python's bytecode outside the sandbox goes to the session's prefix (python-env.ts), and Python trusts a
 * cached .pyc whose source has the same size and the same mtime second. Files the session writes other than
 * the candidate's (an undo, a move, a pool slot's reset) can bring back a source of the size of the code
 * last run within its second: that run's bytecode would then be tested in its place. The prefix of every
 * .py file that differs from the tree last run in the worktree is dropped before the next run.
 */
import { readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { checkoutState, commitAll, repoFromFiles } from "../helpers/repo.js";

type Any = Record<string, any>;

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const CALC = "def add(a, b):\n    return a - b\n";
const TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n";

/** Every file under `dir` whose name matches `re`. */
const find = (dir: string, re: RegExp): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? find(path.join(dir, e.name), re) : re.test(e.name) ? [path.join(dir, e.name)] : [],
  );

/**
 * The session prefix's one bytecode of calc, stamped with its source's mtime second (as if written within the
 * second of the run that compiled it); the source, which holds `a - b` again, is returned.
 */
function stampWithSource(repo: string, sessionId: string): string {
  const prefix = path.join(repo, ".git", "trm", "pycache", sessionId);
  const pycs = find(prefix, /^calc\..*\.pyc$/);
  expect(pycs).toHaveLength(1);
  const pyc = pycs[0]!;
  // The prefix mirrors the source's absolute folder.
  const src = path.join("/", path.relative(prefix, path.dirname(pyc)), "calc.py");
  expect(readFileSync(src, "utf8")).toBe(CALC);
  const bytes = readFileSync(pyc);
  bytes.writeUInt32LE(Math.floor(statSync(src).mtimeMs / 1000) >>> 0, 8);
  writeFileSync(pyc, bytes);
  return src;
}

describe("Python bytecode in the session's prefix", () => {
  it("is not trusted for a source an undo brought back within the second of the last run, at the same size", async () => {
    const repo = repoFromFiles({ "calc.py": CALC, "tests/test_calc.py": TESTS, "pytest.ini": "[pytest]\npythonpath = .\n" }, "trm-pycstale-");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, selectTests: false, testCmd: "python3 -m pytest -rA", preflight: true });
    expect(s.preflight.tests).toMatchObject({ passed: 1, failed: 1 });
    // `a - b` -> `a + b`: the same size.
    const fix = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("calc.py", CALC.replace("-", "+")) });
    expect(fix.tests).toMatchObject({ passed: 2, failed: 0 });
    await srv.call("trm_undo", { sessionId: s.sessionId });
    // The undo wrote `a - b` back. Within the same second as the fix's run, the fix's bytecode would carry
    // the source's mtime: made so here, whatever the clock did.
    stampWithSource(repo, s.sessionId);
    // A step that changes no Python file: the code under test is `a - b`.
    const next = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("NOTES.md", "notes\n") });
    expect(next.tests).toMatchObject({ passed: 1, failed: 1 });
    expect(checkoutState(repo)).toEqual(before);
  });

  it("is not trusted for a module imported through a symbolic link whose target an undo brought back", async () => {
    // `mypkg -> src/mypkg`: Python caches the module under the link's path, while the trees differ in the target's.
    const repo = repoFromFiles(
      {
        "src/mypkg/__init__.py": "",
        "src/mypkg/calc.py": CALC,
        "tests/test_calc.py": TESTS.replace("from calc", "from mypkg.calc"),
        "pytest.ini": "[pytest]\npythonpath = .\n",
      },
      "trm-pycstale-link-",
    );
    symlinkSync("src/mypkg", path.join(repo, "mypkg"));
    commitAll(repo, "link");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, selectTests: false, testCmd: "python3 -m pytest -rA", preflight: true });
    expect(s.preflight.tests).toMatchObject({ passed: 1, failed: 1 });
    const fix = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("src/mypkg/calc.py", CALC.replace("-", "+")) });
    expect(fix.tests).toMatchObject({ passed: 2, failed: 0 });
    await srv.call("trm_undo", { sessionId: s.sessionId });
    // Within the second of the fix's run, as in the test above: made so.
    const src = stampWithSource(repo, s.sessionId);
    expect(src.endsWith("/mypkg/calc.py") && !src.endsWith("/src/mypkg/calc.py")).toBe(true);
    const next = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("NOTES.md", "notes\n") });
    expect(next.tests).toMatchObject({ passed: 1, failed: 1 });
    expect(checkoutState(repo)).toEqual(before);
  });
});

/**
 * A generator in the test command: when REWRITE says `yes` it rewrites calc.py (`a - b` -> `a + b`, the same
 * size), a tracked file, as a formatter or a code generator does. Then, standing in for the clock, it stamps
 * the bytecode of calc in the session's prefix with calc.py's mtime second, as if the file had been written
 * within the second of the run that compiled that bytecode.
 */
const GEN = `import glob, os
if open("REWRITE").read().startswith("yes"):
    with open("calc.py") as f:
        src = f.read()
    with open("calc.py", "w") as f:
        f.write(src.replace("a - b", "a + b"))
prefix = os.environ.get("PYTHONPYCACHEPREFIX")
if prefix:
    for pyc in glob.glob(os.path.join(prefix, os.path.abspath(".").lstrip("/"), "calc.*.pyc")):
        with open(pyc, "r+b") as f:
            f.seek(8)
            f.write(int(os.stat("calc.py").st_mtime).to_bytes(4, "little"))
`;

describe("Python bytecode of a pool worktree", () => {
  it("is not trusted after the last candidate's commands rewrote a tracked file there and the slot's reset wrote it back", async () => {
    const repo = repoFromFiles(
      { "calc.py": CALC, "tests/test_calc.py": TESTS, "pytest.ini": "[pytest]\npythonpath = .\n", "gen.py": GEN, REWRITE: "no\n" },
      "trm-pycstale-pool-",
    );
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", {
      repoPath: repo,
      selectTests: false,
      testCmd: "python3 gen.py && python3 -m pytest -rA",
      preflight: true,
    });
    expect(s.preflight.tests).toMatchObject({ passed: 1, failed: 1 });
    const batch = (tag: string) =>
      srv.call<Any>("trm_submit_candidate", {
        sessionId: s.sessionId,
        maxParallel: 2,
        candidates: [1, 2].map((k) => ({ candidate: filesCandidate("REWRITE", `${tag}\n${k}\n`), rationale: `${tag} ${k}` })),
      });
    // Both slots run the generator: `a + b` is compiled there and both candidates pass.
    const first = await batch("yes");
    expect(first.candidates.map((c: Any) => c.score)).toEqual([1, 1]);
    // Neither rewrites: each slot's reset wrote `a - b` back, the code under test.
    const second = await batch("no");
    expect(second.candidates.map((c: Any) => c.score)).toEqual([s.preflight.score, s.preflight.score]);
    expect(second.candidates[0].score).toBeLessThan(1);
    expect(checkoutState(repo)).toEqual(before);
  });
});
