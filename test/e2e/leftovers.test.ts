/**
 * State a step's commands write and nobody commits does not reach a later step (docs/git-model.md#what-a-step-starts-from).
 * Each attack is a candidate whose code, while the tests run, leaves something for later steps that
 * makes every test pass; the next candidate fixes nothing (a comment) and must score what it scores on
 * its own tree, 2 of 3, never 1. What the session declared it keeps (setupCmd's outputs, linkPaths,
 * node_modules, the sandbox home's caches) stays.
 */
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { checkoutState, g, repoFromFiles } from "../helpers/repo.js";

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

const CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b\n";
const TESTS =
  "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n";
const NO_FIX = filesCandidate("calc.py", `# mul is still wrong\n${CALC}`);
const TEST_CMD = "python3 -m pytest -rA";

/** Imported by pytest before any test runs: every failing test is reported as passing. */
const PASS_ALL = [
  "import _pytest.reports as _r",
  "_o = _r.TestReport.from_item_and_call.__func__",
  "def _f(cls, item, call):",
  "    x = _o(cls, item, call)",
  "    if x.failed:",
  '        x.outcome = "passed"',
  "        x.longrepr = None",
  "    return x",
  "_r.TestReport.from_item_and_call = classmethod(_f)",
  "",
].join("\n");

/** calc.py that, when imported by a test run, writes `content` at `target` (a Python expression). */
const writer = (target: string, content: string) =>
  `${CALC}\nimport os as _os\n_p = ${target}\n_os.makedirs(_os.path.dirname(_p), exist_ok=True)\nopen(_p, "w").write(${JSON.stringify(content)})\n`;
const HERE = "_os.path.dirname(_os.path.abspath(__file__))";

const pyRepo = (extra: Record<string, string> = {}) =>
  repoFromFiles({ "calc.py": CALC, "tests/test_calc.py": TESTS, "pytest.ini": "[pytest]\npythonpath = .\n", ...extra }, "trm-leftovers-");

/** Starts a session, runs the writer as step 1 and the no-fix as step 2; returns both steps. */
async function attack(repo: string, candidate: Any, start: Any = {}) {
  const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: TEST_CMD, preflight: true, ...start });
  expect(s.preflight.score).toBeCloseTo(2 / 3, 3);
  const one = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, rationale: "refactor", candidate });
  expect(one.score).toBeCloseTo(2 / 3, 3);
  const two = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, rationale: "comment", candidate: NO_FIX });
  // The after-reply cleanup has settled once a later call is answered.
  await srv.call("trm_get_state", { sessionId: s.sessionId });
  return { s, one, two };
}

const expectNotGamed = (two: Any) => {
  expect(two.score).toBeCloseTo(2 / 3, 3);
  expect(two.tests).toMatchObject({ passed: 2, failed: 1 });
  expect(two.shouldHalt).toBe(false);
};

describe("files a run leaves in the worktree", () => {
  it("an untracked conftest.py a test run wrote is gone before the next step: a no-fix scores 2/3, not 1", async () => {
    const repo = pyRepo();
    const before = checkoutState(repo);
    const { s, two } = await attack(repo, filesCandidate("calc.py", writer(`_os.path.join(${HERE}, "conftest.py")`, PASS_ALL)));
    expectNotGamed(two);
    expect(existsSync(path.join(s.worktreePath, "conftest.py"))).toBe(false);
    expect(g(repo, "diff", "--name-only", `trm/${s.sessionId}/baseline`, `trm/${s.sessionId}`).trim()).toBe("calc.py");
    expect(checkoutState(repo)).toEqual(before);
  });

  it("an ignored one too (htmlcov/conftest.py under .gitignore, which pytest collects)", async () => {
    const repo = pyRepo({ ".gitignore": "htmlcov/\n" });
    const { s, two } = await attack(repo, filesCandidate("calc.py", writer(`_os.path.join(${HERE}, "htmlcov", "conftest.py")`, PASS_ALL)), {
      selectTests: false,
    });
    expectNotGamed(two);
    expect(existsSync(path.join(s.worktreePath, "htmlcov"))).toBe(false);
  });

  it("what setupCmd made and the linkPaths stay from step to step; a build output a step wrote does not", async () => {
    const repo = pyRepo({ ".gitignore": ".env\nout/\n" });
    writeFileSync(path.join(repo, ".env"), "X=1\n");
    const s = await srv.call<Any>("trm_start_session", {
      repoPath: repo,
      testCmd: `mkdir -p out && echo built > out/artifact && ${TEST_CMD}`,
      setupCmd: "mkdir -p .deps/lib && echo dep > .deps/lib/a.py && echo made > made.txt",
      linkPaths: [".env"],
    });
    const wt = s.worktreePath;
    await srv.call("trm_submit_candidate", { sessionId: s.sessionId, rationale: "comment", candidate: NO_FIX });
    await srv.call("trm_get_state", { sessionId: s.sessionId });
    expect(readFileSync(path.join(wt, ".deps/lib/a.py"), "utf8")).toBe("dep\n");
    expect(readFileSync(path.join(wt, "made.txt"), "utf8")).toBe("made\n");
    expect(readlinkSync(path.join(wt, ".env"))).toBe(path.join(repo, ".env"));
    expect(existsSync(path.join(wt, "out"))).toBe(false);
    expect(existsSync(path.join(wt, ".pytest_cache"))).toBe(false);
    const left = g(wt, "status", "--porcelain", "--untracked-files=normal", "--ignored").split("\n").filter(Boolean);
    expect(left.map((l) => l.slice(3)).sort()).toEqual([".deps/", ".env", "made.txt"]);
  });
});

describe("a .git a run made in a tracked folder", () => {
  const JS_CALC = "exports.add = (a, b) => a + b;\nexports.mul = (a, b) => a + b;\n";
  const JS_TESTS =
    'const test = require("node:test");\nconst assert = require("node:assert");\nconst { add, mul } = require("../src/calc.js");\ntest("add", () => assert.equal(add(2, 3), 5));\ntest("zero", () => assert.equal(add(0, 0), 0));\ntest("mul", () => assert.equal(mul(2, 3), 6));\n';
  // git lists no path named .git, so `git clean` never removes one inside a folder git tracks.
  const INIT = `${JS_CALC}require("child_process").execFileSync("git", ["init", "-q", __dirname]);\nrequire("fs").writeFileSync(__dirname + "/.git/kept.js", "exports.mul = (a, b) => a * b;\\n");\n`;

  it("is gone before the next step, whose candidate may write in that folder again", async () => {
    const repo = repoFromFiles({ "src/calc.js": JS_CALC, "test/calc.test.js": JS_TESTS, "package.json": '{"name":"p","version":"1.0.0"}' }, "trm-leftovers-");
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test --test-reporter=tap", preflight: true });
    const one = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, rationale: "refactor", candidate: filesCandidate("src/calc.js", INIT) });
    expect(one.score).toBeCloseTo(2 / 3, 3);
    await srv.call("trm_get_state", { sessionId: s.sessionId });
    expect(existsSync(path.join(s.worktreePath, "src", ".git"))).toBe(false);
    const two = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      rationale: "comment",
      candidate: filesCandidate("src/calc.js", `// mul is still wrong\n${JS_CALC}`),
    });
    expectNotGamed(two);
  });
});

describe("what the start says of a build output the baseline made", () => {
  // 2 MB: a build output (a cache of a few files, like .pytest_cache, is not worth a note).
  const BUILD = "mkdir -p target && head -c 2097152 /dev/zero > target/lib.bin";

  it("names it, and says setupCmd keeps it; with setupCmd making it there is no note and it stays", async () => {
    const repo = pyRepo({ ".gitignore": "target/\n" });
    const testCmd = `${BUILD} && ${TEST_CMD}`;
    const plain = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd, preflight: true });
    const note = (plain.notes ?? []).find((n: string) => n.includes("every step starts from its commit"));
    expect(note).toMatch(/target\/, which the baseline's commands made/);
    expect(note).toMatch(/setupCmd/);
    expect(note).not.toMatch(/\.pytest_cache/);
    const kept = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd, setupCmd: BUILD, preflight: true });
    expect((kept.notes ?? []).some((n: string) => n.includes("every step starts from its commit"))).toBe(false);
    await srv.call("trm_submit_candidate", { sessionId: kept.sessionId, rationale: "comment", candidate: NO_FIX });
    await srv.call("trm_get_state", { sessionId: kept.sessionId });
    expect(existsSync(path.join(kept.worktreePath, "target/lib.bin"))).toBe(true);
  });
});

describe("the worktree's node_modules layer", () => {
  const JS_CALC = "exports.add = (a, b) => a + b;\nexports.mul = (a, b) => a + b;\n";
  const JS_TESTS =
    'const test = require("node:test");\nconst { eq } = require("check");\nconst { add, mul } = require("../src/calc.js");\ntest("add", () => eq(add(2, 3), 5));\ntest("zero", () => eq(add(0, 0), 0));\ntest("mul", () => eq(mul(2, 3), 6));\n';
  /** Replaces the layer's link to the checkout's `check` with a package whose eq never throws. */
  const FORGE = `${JS_CALC}const fs = require("fs"), p = require("path");\nconst nm = p.join(__dirname, "..", "node_modules", "check");\nif (fs.lstatSync(nm).isSymbolicLink()) {\n  fs.unlinkSync(nm);\n  fs.mkdirSync(nm);\n  fs.writeFileSync(p.join(nm, "package.json"), '{"name":"check"}');\n  fs.writeFileSync(p.join(nm, "index.js"), "exports.eq = () => {};");\n}\n`;

  it("a dependency's link a run replaced with a forged package is made again: a no-fix scores 2/3", async () => {
    const repo = repoFromFiles(
      { "src/calc.js": JS_CALC, "test/calc.test.js": JS_TESTS, ".gitignore": "node_modules\n", "package.json": '{"name":"p","version":"1.0.0"}' },
      "trm-leftovers-",
    );
    mkdirSync(path.join(repo, "node_modules", "check"), { recursive: true });
    writeFileSync(path.join(repo, "node_modules", "check", "package.json"), '{"name":"check"}');
    writeFileSync(path.join(repo, "node_modules", "check", "index.js"), "exports.eq = (a, b) => { if (a !== b) throw new Error(`${a} !== ${b}`); };\n");
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test --test-reporter=tap", preflight: true });
    expect(s.preflight.score).toBeCloseTo(2 / 3, 3);
    const one = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, rationale: "refactor", candidate: filesCandidate("src/calc.js", FORGE) });
    expect(one.score).toBeCloseTo(2 / 3, 3);
    const two = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      rationale: "comment",
      candidate: filesCandidate("src/calc.js", `// mul is still wrong\n${JS_CALC}`),
    });
    expectNotGamed(two);
    await srv.call("trm_get_state", { sessionId: s.sessionId });
    expect(readlinkSync(path.join(s.worktreePath, "node_modules", "check"))).toBe(path.join(repo, "node_modules", "check"));
  });
});

describe("the caches tools keep in the worktree's node_modules layer", () => {
  const JS_CALC = "exports.add = (a, b) => a + b;\nexports.mul = (a, b) => a + b;\n";
  const NO_FIX_JS = `// mul is still wrong\n${JS_CALC}`;
  /**
   * The project's own loader, as nyc's or @babel/register's: a module's transformed code is cached in
   * node_modules/.cache under the hash of its source, and read from there when the source hashes the same.
   */
  const LOADER = [
    'const fs = require("fs"), path = require("path"), crypto = require("crypto");',
    "module.exports = (rel) => {",
    "  const file = path.join(__dirname, rel);",
    '  const hash = crypto.createHash("sha256").update(fs.readFileSync(file, "utf8")).digest("hex");',
    '  const cached = path.join(__dirname, "node_modules", ".cache", "tx", `${hash}.js`);',
    "  return require(fs.existsSync(cached) ? cached : file);",
    "};",
    "",
  ].join("\n");
  const TESTS =
    'const test = require("node:test");\nconst assert = require("node:assert");\nconst { add, mul } = require("../load.js")("src/calc.js");\ntest("add", () => assert.equal(add(2, 3), 5));\ntest("zero", () => assert.equal(add(0, 0), 0));\ntest("mul", () => assert.equal(mul(2, 3), 6));\n';
  /** Caches, under the hash of the next candidate's source (which fixes nothing), a right mul. */
  const FORGE = `${JS_CALC}const fs = require("fs"), p = require("path"), c = require("crypto");\nconst h = c.createHash("sha256").update(${JSON.stringify(NO_FIX_JS)}).digest("hex");\nconst d = p.join(__dirname, "..", "node_modules", ".cache", "tx");\nfs.mkdirSync(d, { recursive: true });\nfs.writeFileSync(p.join(d, h + ".js"), "exports.add = (a, b) => a + b;\\nexports.mul = (a, b) => a * b;\\n");\n`;

  it("a cache entry a run forged in node_modules/.cache is gone before the next step: a no-fix scores 2/3", async () => {
    const repo = repoFromFiles(
      {
        "src/calc.js": JS_CALC,
        "load.js": LOADER,
        "test/calc.test.js": TESTS,
        ".gitignore": "node_modules\n",
        "package.json": '{"name":"p","version":"1.0.0"}',
      },
      "trm-leftovers-",
    );
    mkdirSync(path.join(repo, "node_modules", "check"), { recursive: true });
    writeFileSync(path.join(repo, "node_modules", "check", "index.js"), "\n");
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test --test-reporter=tap", preflight: true, selectTests: false });
    expect(s.preflight.score).toBeCloseTo(2 / 3, 3);
    const one = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, rationale: "refactor", candidate: filesCandidate("src/calc.js", FORGE) });
    expect(one.score).toBeCloseTo(2 / 3, 3);
    const two = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      rationale: "comment",
      candidate: filesCandidate("src/calc.js", NO_FIX_JS),
    });
    expectNotGamed(two);
    await srv.call("trm_get_state", { sessionId: s.sessionId });
    expect(existsSync(path.join(s.worktreePath, "node_modules", ".cache"))).toBe(false);
    expect(readlinkSync(path.join(s.worktreePath, "node_modules", "check"))).toBe(path.join(repo, "node_modules", "check"));
  });
});

sandboxTests("the sandbox's private home", () => {
  /** The user site-packages of the commands' home: Python imports usercustomize.py from it at every start. */
  const USER_SITE = '_os.path.join(__import__("site").getusersitepackages(), "usercustomize.py")';
  /** On import of _pytest.reports (after usercustomize runs), the same patch as PASS_ALL. */
  const USERCUSTOMIZE = [
    "import builtins, sys",
    "_imp = builtins.__import__",
    "def _i(name, *a, **k):",
    "    m = _imp(name, *a, **k)",
    '    r = sys.modules.get("_pytest.reports")',
    '    if r is not None and not getattr(r, "_p", False) and hasattr(r, "TestReport") and hasattr(r.TestReport, "from_item_and_call"):',
    "        r._p = True",
    "        o = r.TestReport.from_item_and_call.__func__",
    "        def f(cls, item, call):",
    "            x = o(cls, item, call)",
    "            if x.failed:",
    '                x.outcome = "passed"; x.longrepr = None',
    "            return x",
    "        r.TestReport.from_item_and_call = classmethod(f)",
    "    return m",
    "builtins.__import__ = _i",
    "",
  ].join("\n");
  const privateHome = (s: Any) => path.join(s.worktreePath, "..", "..", "sandbox", `trm-${s.sessionId}`, "home");

  it("a usercustomize.py a run wrote in ~/.local is gone before the next step; the caches in ~/.cache stay", async () => {
    const cached = `${CALC}\nimport os as _os\n_os.makedirs(_os.path.expanduser("~/.cache/tool"), exist_ok=True)\nopen(_os.path.expanduser("~/.cache/tool/entry"), "w").write("1")\n`;
    const { s, two } = await attack(pyRepo(), filesCandidate("calc.py", `${cached}${writer(USER_SITE, USERCUSTOMIZE).slice(CALC.length)}`), { sandbox: true });
    expectNotGamed(two);
    expect(existsSync(path.join(privateHome(s), ".local"))).toBe(false);
    expect(readFileSync(path.join(privateHome(s), ".cache", "tool", "entry"), "utf8")).toBe("1");
  });

  it("best of N: candidates of one batch share no home (one's usercustomize.py does not pass its sibling)", async () => {
    const s = await srv.call<Any>("trm_start_session", { repoPath: pyRepo(), testCmd: TEST_CMD, preflight: true, sandbox: true });
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      maxParallel: 1,
      candidates: [
        { rationale: "writes usercustomize.py", candidate: filesCandidate("calc.py", writer(USER_SITE, USERCUSTOMIZE)) },
        { rationale: "no fix", candidate: NO_FIX },
      ],
    });
    expect(r.candidates.map((c: Any) => c.score)).toEqual([expect.closeTo(2 / 3, 3), expect.closeTo(2 / 3, 3)]);
    expect(r.score).toBeCloseTo(2 / 3, 3);
    expect(r.shouldHalt).toBe(false);
    // A later batch in the same slots starts from a home without it too.
    const again = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      maxParallel: 1,
      candidates: [
        { rationale: "no fix", candidate: filesCandidate("calc.py", `# still\n${CALC}`) },
        { rationale: "no fix either", candidate: filesCandidate("calc.py", `# still wrong\n${CALC}`) },
      ],
    });
    expect(again.candidates.map((c: Any) => c.score)).toEqual([expect.closeTo(2 / 3, 3), expect.closeTo(2 / 3, 3)]);
    expect(lstatSync(path.join(s.worktreePath, "..", "..", "sandbox", `trm-${s.sessionId}-1`, "home")).isDirectory()).toBe(true);
  });
});

sandboxTests("a tracked folder a run made unreadable", () => {
  const OPS = "def mul(a, b):\n    return a + b\n";
  const CALC2 = "from lib.ops import mul\n\n\ndef add(a, b):\n    return a + b\n";
  const TESTS2 =
    "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n";
  // git keeps no folder's mode: `chmod 300 lib` outlived the reset, and Python, which lists a folder to import from it, found no lib.ops.
  const CHMOD = `${CALC2}\nimport os as _os\n_os.chmod(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "lib"), 0o300)\n`;

  it("is readable again before the next step: a right fix there scores 1, not 0", async () => {
    const repo = repoFromFiles(
      { "calc.py": CALC2, "lib/__init__.py": "", "lib/ops.py": OPS, "tests/test_calc.py": TESTS2, "pytest.ini": "[pytest]\npythonpath = .\n" },
      "trm-leftovers-",
    );
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: TEST_CMD, preflight: true, sandbox: true, selectTests: false });
    expect(s.preflight.score).toBeCloseTo(2 / 3, 3);
    const one = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, rationale: "refactor", candidate: filesCandidate("calc.py", CHMOD) });
    expect(one.score).toBeCloseTo(2 / 3, 3);
    const two = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      rationale: "fix mul",
      candidate: filesCandidate("calc.py", `${CALC2}\n\ndef mul(a, b):  # noqa: F811\n    return a * b\n`),
    });
    expect(two.tests).toMatchObject({ passed: 3, failed: 0 });
    expect(two.score).toBe(1);
    await srv.call("trm_get_state", { sessionId: s.sessionId });
    expect(lstatSync(path.join(s.worktreePath, "lib")).mode & 0o700).toBe(0o700);
  });
});
