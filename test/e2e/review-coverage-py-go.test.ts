import { cpSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findCoveragePy } from "../../src/evaluate/coverage/python.js";
import { startServer, type TestServer } from "../helpers/client.js";
import { checkoutState, commitAll, g, ROOT, repoFromFiles } from "../helpers/repo.js";

/**
 * trm_review_pr with mutate on Python (coverage.py, started in every Python process by a sitecustomize;
 * mutants from Python's own ast) and Go (go test -coverprofile, coverage only): the added lines no test
 * runs are reported, one comment per hunk, and a Python line whose mutant every test passes, in
 * temporary checkouts; the user's checkout is left as it was.
 * Fixtures: fixtures/coverage/<language>/{base,untested,tested,weak}.
 */

type Any = Record<string, any>;

const files = (dir: string, rel = ""): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const name of readdirSync(path.join(dir, rel))) {
    const p = path.join(rel, name);
    if (statSync(path.join(dir, p)).isDirectory()) Object.assign(out, files(dir, p));
    else out[p] = readFileSync(path.join(dir, p), "utf8");
  }
  return out;
};

/** main: the fixture's base; `untested` and `tested`: its folders laid over base, one commit each. */
function fixture(lang: "python" | "go"): string {
  const src = path.join(ROOT, "fixtures/coverage", lang);
  const repo = repoFromFiles(files(path.join(src, "base")));
  for (const branch of lang === "python" ? ["untested", "tested", "weak"] : ["untested", "tested"]) {
    g(repo, "checkout", "-q", "-b", branch, "main");
    cpSync(path.join(src, branch), repo, { recursive: true });
    commitAll(repo, branch);
  }
  g(repo, "checkout", "-q", "main");
  return repo;
}

const findings = (r: Any) =>
  (r.comments as Any[]).filter((c) => c.rule === "untested-change" || c.rule === "surviving-mutant").map((c) => [c.file, c.line, c.rule]);

let srv: TestServer;
let pythonReady = false;
beforeAll(async () => {
  srv = await startServer();
  pythonReady = (await findCoveragePy()) !== null;
  if (!pythonReady && process.env.CI) throw new Error("coverage.py is not installed: apt-get install python3-coverage (.ci/run does)");
});
afterAll(async () => {
  await srv?.close();
});

const PYTEST = "python3 -m pytest -q";

describe("coverage of a Python change (coverage.py)", () => {
  it("reports the branch no test takes and the module no test imports, and leaves the user's checkout as it was", async (ctx) => {
    if (!pythonReady) ctx.skip();
    const repo = fixture("python");
    const before = checkoutState(repo);
    const r = await srv.call<Any>("trm_review_pr", { repoPath: repo, base: "main", head: "untested", mutate: true, testCmd: PYTEST });
    // No test goes above hi: line 7 never runs, and `if x > hi:` → `if False:` (the case undone) survives.
    expect(findings(r), r.notes.join("\n")).toEqual([
      ["calc/clamp.py", 5, "surviving-mutant"],
      ["calc/clamp.py", 7, "untested-change"],
      ["calc/stats.py", 1, "untested-change"],
    ]);
    const [clamp, stats] = (r.comments as Any[]).filter((c) => c.rule === "untested-change");
    expect(clamp.message).toBe("No test runs line 7 of this change (1 added code line).");
    expect(stats.message).toMatch(/^No test loads `calc\/stats\.py`: lines 1-2 of this change/);
    // The docstring and the comment of the hunk are not statements: 4 of clamp's added lines, 2 of stats'.
    expect(r.notes.join("\n")).toMatch(/Coverage of the change: 3 of 6 added code lines ran/);
    expect(r.notes.join("\n")).toMatch(/Mutants of the covered added lines: 3 of 3 run in \d+ s, 2 killed, 1 survived/);
    expect(checkoutState(repo)).toEqual(before);
    expect(g(repo, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
  }, 180_000);

  it("reports nothing on a change whose tests take every branch and fail on every mutant", async (ctx) => {
    if (!pythonReady) ctx.skip();
    const repo = fixture("python");
    const r = await srv.call<Any>("trm_review_pr", { repoPath: repo, base: "main", head: "tested", mutate: true, testCmd: PYTEST });
    expect(findings(r)).toEqual([]);
    expect(r.notes.join("\n")).toMatch(/Coverage of the change: 4 of 4 added code lines ran/);
    expect(r.notes.join("\n")).toMatch(/Mutants of the covered added lines: 4 of 4 run in \d+ s, 4 killed, 0 survived/);
  }, 180_000);

  it("reports the surviving mutant of a line every test runs and none checks, with its diff, and leaves the user's checkout as it was", async (ctx) => {
    if (!pythonReady) ctx.skip();
    const repo = fixture("python");
    const before = checkoutState(repo);
    const r = await srv.call<Any>("trm_review_pr", { repoPath: repo, base: "main", head: "weak", mutate: true, testCmd: PYTEST });
    // The test above hi runs both lines and checks nothing: the case undone and its value dropped both pass.
    expect(findings(r), r.notes.join("\n")).toEqual([
      ["calc/clamp.py", 5, "surviving-mutant"],
      ["calc/clamp.py", 7, "surviving-mutant"],
    ]);
    const [cond, ret] = (r.comments as Any[]).filter((c) => c.rule === "surviving-mutant");
    expect(cond.suggestion).toBe("A test that fails on this mutant:\n```diff\n-    if x > hi:\n+    if False:\n```");
    expect(ret.message).toMatch(
      /^Surviving mutant \(ReturnValue\): with this change to line 7 every test still passes \(`python3 -m pytest -q`: 3 tests passed\)/,
    );
    expect(ret.suggestion).toBe("A test that fails on this mutant:\n```diff\n-        return hi\n+        return None\n```");
    expect(r.notes.join("\n")).toMatch(/Mutants of the covered added lines: 4 of 4 run in \d+ s, 2 killed, 2 survived/);
    expect(checkoutState(repo)).toEqual(before);
    expect(g(repo, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
  }, 180_000);

  it("reports nothing as untested when no test process could be measured (a command that replaces PYTHONPATH), and says why", async (ctx) => {
    if (!pythonReady) ctx.skip();
    const repo = fixture("python");
    const r = await srv.call<Any>("trm_review_pr", { repoPath: repo, base: "main", head: "untested", mutate: true, testCmd: `PYTHONPATH=. ${PYTEST}` });
    expect(findings(r)).toEqual([]);
    expect(r.notes.join("\n")).toMatch(/No Python process of the tests started coverage\.py \(a command that sets PYTHONPATH must keep/);
  }, 180_000);

  it("testStrength in the loop: a step whose tests pass is told the Python lines no test runs", async (ctx) => {
    if (!pythonReady) ctx.skip();
    const repo = fixture("python");
    const before = checkoutState(repo);
    const { sessionId } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: PYTEST, testStrength: true });
    const src = path.join(ROOT, "fixtures/coverage/python/untested");
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId,
      candidate: {
        mode: "files",
        files: ["calc/clamp.py", "calc/stats.py", "tests/test_clamp.py"].map((p) => ({ path: p, content: readFileSync(path.join(src, p), "utf8") })),
      },
    });
    expect(r.shouldHalt).toBe(true);
    expect(r.feedback).toContain("testStrength: calc/clamp.py:7 No test runs line 7 of this change");
    expect(r.feedback).toContain("testStrength: calc/stats.py:1 No test loads `calc/stats.py`");
    await srv.call("trm_end_session", { sessionId });
    expect(checkoutState(repo)).toEqual(before);
  }, 180_000);
  it("testStrength in the loop: a step whose tests pass is told the Python mutant they all pass, with its diff", async (ctx) => {
    if (!pythonReady) ctx.skip();
    const repo = fixture("python");
    const before = checkoutState(repo);
    const { sessionId } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: PYTEST, testStrength: true });
    const src = path.join(ROOT, "fixtures/coverage/python/weak");
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId,
      candidate: { mode: "files", files: ["calc/clamp.py", "tests/test_clamp.py"].map((p) => ({ path: p, content: readFileSync(path.join(src, p), "utf8") })) },
    });
    expect(r.shouldHalt).toBe(true);
    expect(r.feedback).toContain("testStrength: calc/clamp.py:7 Surviving mutant (ReturnValue)");
    expect(r.feedback).toContain("-        return hi\n+        return None");
    await srv.call("trm_end_session", { sessionId });
    expect(checkoutState(repo)).toEqual(before);
  }, 180_000);
});

describe("coverage of a Go change (go test -coverprofile)", () => {
  it("reports the branch no test takes, not its comment or braces, and leaves the user's checkout as it was", async () => {
    const repo = fixture("go");
    const before = checkoutState(repo);
    const r = await srv.call<Any>("trm_review_pr", { repoPath: repo, base: "main", head: "untested", mutate: true, testCmd: "go test ./..." });
    expect(findings(r), r.notes.join("\n")).toEqual([["clamp.go", 10, "untested-change"]]);
    expect(r.notes.join("\n")).toMatch(/Coverage of the change: 3 of 4 added code lines ran under "go test \.\/\.\.\. '-coverprofile=/);
    expect(checkoutState(repo)).toEqual(before);
    expect(g(repo, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
  }, 180_000);

  it("reports nothing on a change whose tests take every branch", async () => {
    const repo = fixture("go");
    const r = await srv.call<Any>("trm_review_pr", { repoPath: repo, base: "main", head: "tested", mutate: true, testCmd: "go test ./..." });
    expect(findings(r)).toEqual([]);
    expect(r.notes.join("\n")).toMatch(/Coverage of the change: 4 of 4 added code lines ran/);
  }, 180_000);
});
