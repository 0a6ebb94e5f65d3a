/**
 * A score you can trust (issue 15): evaluations measure the candidate's own code (workspace links,
 * editable installs, bytecode), and a candidate cannot raise its score by skipping, deleting or
 * editing tests. Every scenario checks the score, the wording, and that the checkout is untouched.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, textOf } from "../helpers/client.js";
import { filesCandidate, MEDIAN_RIGHT, statsWith } from "../helpers/fixtures.js";
import { checkoutState, g, makeRepo, repoFromFiles } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
const made: string[] = [];
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function repoFrom(fixture: string): string {
  const repo = makeRepo(fixture);
  made.push(path.dirname(repo));
  return repo;
}

/** A repository from files, committed on main. */
const repoOf = (files: Record<string, string>): string => repoFromFiles(files, "trm-trust-");

const TEST_FILE = "test/stats.test.js";

// These cases test the reference rules across full runs: every step runs the whole suite (selectTests: false);
// the same rules on partial runs are tested in failing-first.test.ts.
describe("candidates cannot game the tests", () => {
  it("skipping the failing test scores like failing it, and says so", async () => {
    const repo = repoFrom("js-stats");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, selectTests: false, testCmd: "node --test", preflight: true });
    expect(s.preflight.score).toBe(0.75);
    const src = readFileSync(path.join(repo, TEST_FILE), "utf8");
    const skipped = src.replace('test("median of even length", () => {', 'test.skip("median of even length", () => {');
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate(TEST_FILE, skipped) });
    expect(r.score).toBe(0.75);
    expect(r.shouldHalt).toBe(false);
    expect(r.tests).toMatchObject({ passed: 3, failed: 1, skipped: 0, total: 4 });
    expect(r.feedback).toMatch(/note: this step changed test files: test\/stats.test.js \(modified\)/);
    expect(r.feedback).toMatch(
      /1 test that ran at an earlier step is now skipped or missing and counts as failing: .*median of even length \(skipped at step 1\)/,
    );
    const st = await srv.call<Any>("trm_get_state", { sessionId: s.sessionId });
    expect(st.history.at(-1).testFiles).toEqual(["test/stats.test.js (modified)"]);
    // Derivable from git alone: a new server reads the same from the step's record.
    const other = await startServer({ stateDir: srv.stateDir });
    try {
      const again = await other.call<Any>("trm_get_state", { sessionId: s.sessionId });
      expect(again.history.at(-1)).toMatchObject({ testFiles: ["test/stats.test.js (modified)"], tests: "3/4" });
      expect(again.last.notices[0]).toMatch(/median of even length \(skipped at step 1\)/);
      expect(again.score).toBe(0.75);
    } finally {
      await other.close();
    }
    expect(checkoutState(repo)).toEqual(before);
  });

  it("deleting the failing test, then its file, leaves the score down and names what went missing", async () => {
    const repo = repoFrom("js-stats");
    writeFileSync(path.join(repo, "test/extra.test.js"), 'import { test } from "node:test";\ntest("extra", () => {});\n');
    g(repo, "add", "-A");
    g(repo, "commit", "-qm", "another test file");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, selectTests: false, testCmd: "node --test", preflight: true });
    const src = readFileSync(path.join(repo, TEST_FILE), "utf8");
    const without = src.replace(/test\("median of even length"[\s\S]*$/, "");
    const r1 = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate(TEST_FILE, without) });
    // Today's bug: 3/3 = 1.000 and "success: all tests pass".
    expect(r1.score).toBe(0.8);
    expect(r1.reasons.join(" ")).not.toMatch(/success/);
    expect(r1.feedback).toMatch(/median of even length \(went missing at step 1\)/);
    const r2 = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: { mode: "delete", paths: [TEST_FILE] } });
    expect(r2.feedback).toMatch(/this step changed test files: test\/stats.test.js \(deleted\)/);
    expect(r2.feedback).toMatch(/went missing at step 1\)/);
    expect(r2.feedback).toMatch(/went missing at step 2\)/);
    expect(r2.tests).toMatchObject({ passed: 1, failed: 4, total: 5 });
    expect(r2.score).toBe(0.2);
    // After an undo the history is one step shorter and the judgement follows it.
    const u = await srv.call<Any>("trm_undo", { sessionId: s.sessionId });
    expect(u.score).toBe(0.8);
    // Without any test file the output is unreadable: no test is invented as missing, the score is 0.
    const r3 = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: { mode: "delete", paths: [TEST_FILE, "test/extra.test.js"] } });
    expect(r3.feedback).not.toMatch(/went missing/);
    expect(checkoutState(repo)).toEqual(before);
  });

  it("protectTests refuses a candidate that edits a protected test, applying nothing", async () => {
    const repo = repoFrom("js-stats");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, selectTests: false, testCmd: "node --test", protectTests: ["test/**"] });
    const src = readFileSync(path.join(repo, TEST_FILE), "utf8");
    const cand = {
      mode: "files",
      files: [
        { path: "src/stats.js", content: statsWith(repo, MEDIAN_RIGHT) },
        { path: TEST_FILE, content: src.replace("2.5", "1") },
      ],
    };
    const v = await srv.call<Any>("trm_validate_candidate", { sessionId: s.sessionId, candidate: cand });
    expect(v.valid).toBe(false);
    const res = await srv.raw("trm_submit_candidate", { sessionId: s.sessionId, candidate: cand });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/protects \(protectTests\): test\/stats.test.js \(modified, matches test\/\*\*\)\. Nothing was applied/);
    const st = await srv.call<Any>("trm_get_state", { sessionId: s.sessionId });
    expect(st.step).toBe(0);
    expect(readFileSync(path.join(st.worktreePath, TEST_FILE), "utf8")).toBe(src);
    expect(readFileSync(path.join(st.worktreePath, "src/stats.js"), "utf8")).toBe(readFileSync(path.join(repo, "src/stats.js"), "utf8"));
    // The code fix alone is fine.
    const ok = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)),
    });
    expect(ok.score).toBe(1);
    expect(checkoutState(repo)).toEqual(before);
  });

  it("protectTests also holds through a link inside the repository (t -> test)", async () => {
    const repo = repoFrom("js-stats");
    symlinkSync("test", path.join(repo, "t"));
    g(repo, "add", "t");
    g(repo, "commit", "-qm", "link to the tests");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, selectTests: false, testCmd: "node --test", protectTests: ["test/**"] });
    const viaLink = TEST_FILE.replace(/^test\//, "t/");
    const cand = { mode: "files", files: [{ path: viaLink, content: "// emptied\n" }] };
    expect((await srv.call<Any>("trm_validate_candidate", { sessionId: s.sessionId, candidate: cand })).valid).toBe(false);
    const res = await srv.raw("trm_submit_candidate", { sessionId: s.sessionId, candidate: cand });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/protects \(protectTests\): test\/stats.test.js \(modified, matches test\/\*\*\)/);
    expect((await srv.call<Any>("trm_get_state", { sessionId: s.sessionId })).step).toBe(0);
    expect(checkoutState(repo)).toEqual(before);
  });

  it("a candidate that makes the test output unreadable does not pass on the exit code", async () => {
    const repo = repoFrom("js-stats");
    writeFileSync(path.join(repo, "run-tests.sh"), "node --test\n");
    g(repo, "add", "run-tests.sh");
    g(repo, "commit", "-qm", "test script");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, selectTests: false, testCmd: "sh run-tests.sh", preflight: true });
    expect(s.preflight.score).toBeLessThan(1);
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("run-tests.sh", "echo all fine\n") });
    expect(r.score).toBe(0);
    expect(r.reasons.join(" ")).not.toMatch(/success/);
    expect(r.feedback).toMatch(/The test output can no longer be read, although step 0 reported \d+ tests/);
    expect(checkoutState(repo)).toEqual(before);
  });

  it("a test skipped at the baseline does not keep the fix from 1.0", async () => {
    const repo = repoFrom("js-stats");
    const src = readFileSync(path.join(repo, TEST_FILE), "utf8");
    writeFileSync(path.join(repo, TEST_FILE), `${src}\ntest("not yet", { skip: "later" }, () => {});\n`);
    g(repo, "commit", "-qam", "skip one");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, selectTests: false, testCmd: "node --test", preflight: true });
    expect(s.preflight.tests).toMatchObject({ passed: 3, failed: 1, skipped: 1, total: 5 });
    expect(s.preflight.score).toBe(0.75);
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)) });
    expect(r.tests).toMatchObject({ passed: 4, failed: 0, skipped: 1, total: 5 });
    expect(r.score).toBe(1);
    expect(r.reasons.join(" ")).toMatch(/success: all tests pass/);
    expect(r.feedback).not.toMatch(/counts as failing|changed test files/);
    expect(checkoutState(repo)).toEqual(before);
  });
});

describe("tests tracked by name for go test -v", () => {
  it("deleting the failing Go test counts it as failing (go test -v names its tests)", async () => {
    const calcTest =
      'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Errorf("Add(2, 3) = %d", Add(2, 3))\n\t}\n}\n\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Errorf("Mul(2, 3) = %d", Mul(2, 3))\n\t}\n}\n';
    const repo = repoOf({
      "go.mod": "module example.com/calc\n\ngo 1.19\n",
      "calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Mul(a, b int) int { return a + b }\n",
      "calc_test.go": calcTest,
    });
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, selectTests: false, testCmd: "go test -v ./...", preflight: true });
    expect(s.preflight.tests).toMatchObject({ passed: 1, failed: 1 });
    const without = calcTest.replace(/\nfunc TestMul[\s\S]*$/, "");
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("calc_test.go", without) });
    // Before go test -v was read by name: 1/1 = 1.000 and "success".
    expect(r.score).toBe(0.5);
    expect(r.reasons.join(" ")).not.toMatch(/success/);
    expect(r.feedback).toMatch(/example\.com\/calc\.TestMul \(went missing at step 1\)/);
    expect(checkoutState(repo)).toEqual(before);
  });
});

describe("tests a candidate adds do not raise the score (padding)", () => {
  const PAD = "test/pad.test.js";
  const padding = (n: number, name = "trivially true") =>
    `import { test } from "node:test";\n${Array.from({ length: n }, (_, i) => `test("${name} ${i}", () => {});`).join("\n")}\n`;

  it("97 trivial new tests leave the score at the reference's, at that step and every later one", async () => {
    const repo = repoFrom("js-stats");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, selectTests: false, testCmd: "node --test", preflight: true });
    expect(s.preflight.score).toBe(0.75);
    // Without the reference: 100 passed / 101 = 0.990, and the failing median test is still there.
    const r1 = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate(PAD, padding(97)) });
    expect(r1.score).toBe(0.75);
    expect(r1.tests).toMatchObject({ passed: 3, failed: 1 });
    expect(r1.feedback).toMatch(
      /97 new tests since step 0: 97 pass; tests that did not run at step 0 count toward the score only while they fail \(trivially true 0, /,
    );
    // The padding of step 1 is not the reference of step 2: an unrelated change still scores 0.75.
    const r2 = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("src/note.js", "export const note = 1;\n") });
    expect(r2.score).toBe(0.75);
    expect(r2.feedback).toMatch(/97 new tests since step 0: 97 pass/);
    // The real fix is what moves it.
    const r3 = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)),
    });
    expect(r3.score).toBe(1);
    expect(r3.reasons.join(" ")).toMatch(/success: all tests pass/);
    expect(checkoutState(repo)).toEqual(before);
  });

  it("a new test written before its fix lowers the score while it fails and costs nothing once it passes", async () => {
    const repo = repoFrom("js-stats");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, selectTests: false, testCmd: "node --test", preflight: true });
    const red = `import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { median } from "../src/stats.js";\ntest("median of two", () => assert.equal(median([1, 2]), 1.5));\n`;
    const r1 = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("test/two.test.js", red) });
    expect(r1.tests).toMatchObject({ passed: 3, failed: 2 });
    expect(r1.score).toBe(0.6);
    expect(r1.feedback).toMatch(/1 new test since step 0: 1 fails;.*\(median of two\)/);
    const r2 = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)),
    });
    expect(r2.tests).toMatchObject({ passed: 4, failed: 0 });
    expect(r2.score).toBe(1);
    expect(r2.reasons.join(" ")).toMatch(/success: all tests pass/);
    expect(checkoutState(repo)).toEqual(before);
  });

  it("counts-only output (unittest without -v): passes beyond the reference's test count are not counted, and it says so", async () => {
    const repo = repoOf({
      "calc.py": "def add(a, b):\n    return a - b\n",
      "test_calc.py":
        "import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n",
    });
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, selectTests: false, testCmd: "python3 -m unittest", preflight: true });
    expect(s.preflight.score).toBe(0.5);
    const pad = `import unittest\n\n\nclass P(unittest.TestCase):\n${Array.from({ length: 20 }, (_, i) => `    def test_p${i}(self):\n        pass\n`).join("\n")}`;
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("test_pad.py", pad) });
    // Without the cap: 21 / 22 = 0.955.
    expect(r.score).toBe(0.5);
    expect(r.tests).toMatchObject({ passed: 1, failed: 1 });
    expect(r.feedback).toMatch(/20 passes beyond the 2 tests that ran at step 0 are not counted: the output names only the failing tests/);
    expect(checkoutState(repo)).toEqual(before);
  });
});

describe("evaluations run the candidate's own code", () => {
  it("npm workspaces: a fix in packages/a is tested from packages/b against the worktree's a", async () => {
    const repo = repoOf({
      ".gitignore": "node_modules\n",
      "package.json": JSON.stringify({ name: "mono", private: true, workspaces: ["packages/*"] }),
      "packages/a/package.json": JSON.stringify({ name: "a", version: "1.0.0", main: "index.js", bin: { "a-cli": "cli.js" } }),
      "packages/a/index.js": "exports.double = (x) => x + x + 1;\n",
      "packages/a/cli.js": "#!/usr/bin/env node\nconsole.log(require('./index.js').double(21));\n",
      "packages/b/package.json": JSON.stringify({ name: "@scope/b", version: "1.0.0", dependencies: { a: "1.0.0" } }),
      "packages/b/test/b.test.js":
        "const test = require('node:test');\nconst assert = require('node:assert');\nconst { double } = require('a');\ntest('b doubles through a', () => assert.strictEqual(double(2), 4));\n",
    });
    // node_modules exactly as `npm install` (npm 11.19.1, offline) lays out this workspace: relative links.
    mkdirSync(path.join(repo, "node_modules/.bin"), { recursive: true });
    mkdirSync(path.join(repo, "node_modules/@scope"));
    symlinkSync("../packages/a", path.join(repo, "node_modules/a"));
    symlinkSync("../../packages/b", path.join(repo, "node_modules/@scope/b"));
    symlinkSync("../a/cli.js", path.join(repo, "node_modules/.bin/a-cli"));
    execFileSync("chmod", ["+x", path.join(repo, "packages/a/cli.js")]);
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", {
      repoPath: repo,
      testCmd: "cd packages/b && node --test",
      checks: [{ name: "cli", cmd: 'test "$(node_modules/.bin/a-cli)" = 42', weight: 0.1 }],
      preflight: true,
    });
    expect(s.notes.join("\n")).toMatch(/node_modules\/a -> packages\/a/);
    expect(s.preflight.tests).toMatchObject({ passed: 0, failed: 1 });
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesCandidate("packages/a/index.js", "exports.double = (x) => x + x;\n"),
    });
    expect(r.tests).toMatchObject({ passed: 1, failed: 0 });
    expect(r.score).toBe(1);
    expect(r.feedback).not.toMatch(/YOUR CHECKOUT/);
    // The layer is the worktree's, untracked and never committed.
    const wt = s.worktreePath as string;
    expect(g(wt, "ls-tree", "-r", "--name-only", "HEAD")).not.toMatch(/node_modules/);
    // The worktree's index follows after the reply; the next operation waits for it.
    await srv.call("trm_get_state", { sessionId: s.sessionId });
    expect(g(wt, "status", "--porcelain")).toBe("");
    expect(checkoutState(repo)).toEqual(before);
    await srv.call("trm_end_session", { sessionId: s.sessionId });
    expect(existsSync(path.join(repo, "node_modules/a/index.js"))).toBe(true);
    expect(checkoutState(repo)).toEqual(before);
  });

  function pythonRepo(): string {
    const repo = repoOf({
      ".gitignore": ".venv/\n",
      "src/pkg/__init__.py": "",
      "src/pkg/core.py": "def add(a, b):\n    return a + c\n",
      "tests/__init__.py": "",
      "tests/test_core.py":
        "import unittest\nfrom pkg.core import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n",
    });
    // A venv with an editable install as pip writes one for a src layout (a .pth naming the checkout's src).
    execFileSync("python3", ["-m", "venv", "--without-pip", path.join(repo, ".venv")]);
    const lib = path.join(repo, ".venv/lib");
    const sp = path.join(lib, readdirSync(lib).find((d) => d.startsWith("python"))!, "site-packages");
    writeFileSync(path.join(sp, "_pkg.pth"), `${path.join(repo, "src")}\n`);
    mkdirSync(path.join(sp, "pkg-0.1.dist-info"));
    writeFileSync(path.join(sp, "pkg-0.1.dist-info/direct_url.json"), JSON.stringify({ url: `file://${repo}`, dir_info: { editable: true } }));
    return repo;
  }

  it("Python editable install in a linked venv: the worktree's src comes first, no bytecode in the checkout", async () => {
    const repo = pythonRepo();
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", {
      repoPath: repo,
      selectTests: false,
      testCmd: ".venv/bin/python -m unittest -v",
      linkPaths: [".venv"],
      preflight: true,
    });
    expect(s.notes.join("\n")).toMatch(/editable install in \.venv points into your checkout \(src\)/);
    expect(s.preflight.score).toBe(0);
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesCandidate("src/pkg/core.py", "def add(a, b):\n    return a + b\n"),
    });
    expect(r.score).toBe(1);
    expect(r.feedback).not.toMatch(/YOUR CHECKOUT/);
    expect(checkoutState(repo)).toEqual(before);
    expect(execFileSync("find", [repo, "-name", "__pycache__", "-not", "-path", "*/.git/*"], { encoding: "utf8" })).toBe("");
  });

  it("says prominently when the output shows the checkout's code ran, and explains a missing ignored path", async () => {
    const repo = pythonRepo();
    const before = checkoutState(repo);
    // A command that points at the checkout by absolute path: the traceback names the checkout's file.
    const s = await srv.call<Any>("trm_start_session", {
      repoPath: repo,
      testCmd: `PYTHONPATH=${repo}/src .venv/bin/python -m unittest -v`,
      linkPaths: [".venv"],
      preflight: true,
    });
    expect(s.feedback).toMatch(
      /note: THESE RESULTS CAME PARTLY FROM YOUR CHECKOUT, NOT FROM THE CANDIDATE: the test output names files of your checkout outside the worktree \(src\/pkg\/core\.py\)/,
    );
    // No linkPaths: the ignored venv is not in the worktree.
    const s2 = await srv.call<Any>("trm_start_session", { repoPath: repo, selectTests: false, testCmd: ".venv/bin/python -m unittest -v", preflight: true });
    expect(s2.preflight.commands[0].exitCode).toBe(127);
    expect(s2.feedback).toMatch(
      /Dependency missing in the worktree: ".venv\/bin\/python -m unittest -v" uses \.venv\/bin\/python.*linkPaths: \["\.venv"\] or create it with setupCmd/,
    );
    expect(checkoutState(repo)).toEqual(before);
    expect(execFileSync("find", [repo, "-name", "__pycache__", "-not", "-path", "*/.git/*"], { encoding: "utf8" })).toBe("");
  });
});
