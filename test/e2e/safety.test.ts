import { existsSync, readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, textOf } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { checkoutState, g, makeMessy, makeRepo, repoFromFiles, tmpDir } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
let repo: string;
let sessionId: string;
let worktree: string;
let before: ReturnType<typeof checkoutState>;

beforeAll(async () => {
  srv = await startServer();
  repo = makeRepo("js-stats");
  makeMessy(repo, "src/stats.js");
  before = checkoutState(repo);
  const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
  sessionId = s.sessionId;
  worktree = s.worktreePath;
});
afterAll(async () => {
  await srv.close();
  expect(checkoutState(repo)).toEqual(before);
});

async function expectError(name: string, args: Any, re: RegExp) {
  const r = await srv.raw(name, args);
  expect(r.isError).toBe(true);
  expect(textOf(r)).toMatch(re);
  return textOf(r);
}

describe("bad input gets an actionable error and changes nothing", () => {
  it("start: relative, missing and non-git paths; no command; bad weights", async () => {
    await expectError("trm_start_session", { repoPath: "relative/path", testCmd: "true" }, /must be absolute/);
    await expectError("trm_start_session", { repoPath: "/nonexistent/x", testCmd: "true" }, /\/nonexistent\/x does not exist\.[\s\S]*What to do/);
    await expectError("trm_start_session", { repoPath: tmpDir(), testCmd: "true" }, /Not a git repository/);
    const bare = path.join(tmpDir(), "bare.git");
    g(path.dirname(bare), "init", "-q", "--bare", bare);
    await expectError("trm_start_session", { repoPath: bare, testCmd: "true" }, /bare repository[\s\S]*What to do/);
    // No command given and none the repository declares (js-stats' test script would be detected: docs/start.md).
    await expectError("trm_start_session", { repoPath: repoFromFiles({ "README.md": "x\n" }) }, /No evaluation command[\s\S]*testCmd/);
    await expectError("trm_start_session", { repoPath: repo, testCmd: "true", weights: { test: 0 } }, /weight 0/);
    await expectError("trm_start_session", { repoPath: repo, testCmd: "true", timeoutSec: -1 }, /timeoutSec/);
  });

  it("unknown and malformed session ids", async () => {
    await expectError("trm_get_state", { sessionId: "20200101-000000-abcd" }, /Unknown sessionId/);
    await expectError("trm_get_state", { sessionId: "../../etc" }, /Malformed sessionId/);
  });

  it.each([
    ["parent traversal", "../outside.txt", /escapes the repository/],
    ["absolute path", "/tmp/x.txt", /Absolute path/],
    [".git", ".git/hooks/pre-commit", /inside .git/],
    ["nested .git", "sub/.git/config", /inside .git/],
  ])("candidate path refused: %s", async (_n, p, re) => {
    await expectError("trm_submit_candidate", { sessionId, candidate: filesCandidate(p, "x") }, re);
  });

  it("refuses writing through a symlink that leaves the worktree", async () => {
    const outside = tmpDir("trm-outside-");
    symlinkSync(outside, path.join(worktree, "link-out"));
    await expectError("trm_submit_candidate", { sessionId, candidate: filesCandidate("link-out/pwned.txt", "x") }, /symlink/);
    expect(existsSync(path.join(outside, "pwned.txt"))).toBe(false);
  });

  it("applies all-or-nothing: one bad file means no file is written and no step recorded", async () => {
    await expectError(
      "trm_submit_candidate",
      {
        sessionId,
        candidate: {
          mode: "files",
          files: [
            { path: "good.txt", content: "g" },
            { path: "../bad.txt", content: "b" },
          ],
        },
      },
      /escapes/,
    );
    expect(existsSync(path.join(worktree, "good.txt"))).toBe(false);
    await expectError(
      "trm_submit_candidate",
      { sessionId, candidate: { mode: "create", files: [{ path: "package.json", content: "{}" }] } },
      /already exists[\s\S]*mode files/,
    );
    await expectError("trm_submit_candidate", { sessionId, candidate: { mode: "delete", paths: ["nope.js"] } }, /does not exist/);
    await expectError("trm_submit_candidate", { sessionId, candidate: { mode: "files" } }, /needs a non-empty "files"[\s\S]*Example/);
    expect((await srv.call<Any>("trm_get_state", { sessionId })).step).toBe(0);
    expect(g(worktree, "status", "--porcelain", "--untracked-files=no")).toBe("");
  });

  it("says so when a candidate writes a file git ignores, and records nothing", async () => {
    const text = await expectError(
      "trm_submit_candidate",
      { sessionId, candidate: filesCandidate("debug.log", "noise\n") },
      /will not record[\s\S]*ignored[\s\S]*What to do/,
    );
    expect(text).not.toMatch(/Unexpected error/);
    expect(existsSync(path.join(worktree, "debug.log"))).toBe(false);
    expect((await srv.call<Any>("trm_get_state", { sessionId })).step).toBe(0);
  });

  it("refuses a candidate that changes nothing", async () => {
    const content = readFileSync(path.join(worktree, "package.json"), "utf8");
    await expectError("trm_submit_candidate", { sessionId, candidate: filesCandidate("package.json", content) }, /changes nothing/);
  });

  it("bounds sizes: rationale length, number of files", async () => {
    await expectError("trm_submit_candidate", { sessionId, candidate: filesCandidate("a.txt", "a"), rationale: "x".repeat(5000) }, /rationale/);
    const many = Array.from({ length: 201 }, (_, i) => ({ path: `f${i}.txt`, content: "x" }));
    await expectError("trm_submit_candidate", { sessionId, candidate: { mode: "files", files: many } }, /limit is 200/);
  });

  it("reads files and line ranges, refusing paths outside", async () => {
    const r = await srv.call<Any>("trm_read_files", { sessionId, paths: ["src/stats.js", "missing.txt"], offset: 1, limit: 2 });
    expect(r.files[0]).toMatchObject({ path: "src/stats.js", exists: true, startLine: 1, linesReturned: 2 });
    expect(r.files[0].content.split("\n")).toHaveLength(2);
    expect(r.files[0].lineCount).toBeGreaterThan(10);
    expect(r.files[1]).toEqual({ path: "missing.txt", exists: false });
    const l = await srv.call<Any>("trm_read_lines", { sessionId, file: "src/stats.js", startLine: 2, endLine: 3 });
    expect(l.lines).toEqual(["2:   return xs.reduce((a, b) => a + b, 0);", "3: }"]);
    await expectError("trm_read_files", { sessionId, paths: ["../../config"] }, /escapes/);
    await expectError("trm_read_lines", { sessionId, file: "src/stats.js", startLine: 500, endLine: 600 }, /past the end/);
  });
});
