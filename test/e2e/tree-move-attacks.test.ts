/**
 * Attacks on undo / restore / reset moving the worktree in-process (tree-move.ts): after every move the
 * session worktree must be what git's checkout of the same commit leaves, the index clean, and the
 * session's state what a fresh server reads from git.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer } from "../helpers/client.js";
import { checkoutState, entriesBelow, g, removeTmpDirs, tmpDir } from "../helpers/repo.js";

type Any = Record<string, any>;
afterAll(removeTmpDirs);

/** The session worktree against a fresh checkout of its HEAD, its index clean. */
function expectAtHead(repo: string, wt: string) {
  const head = g(wt, "rev-parse", "HEAD").trim();
  const ref = path.join(tmpDir("trm-ref-"), "ref");
  g(repo, "worktree", "add", "-q", "--detach", ref, head);
  try {
    expect(entriesBelow(wt)).toEqual(entriesBelow(ref));
    expect(g(wt, "status", "--porcelain", "--untracked-files=all")).toBe("");
    expect(g(wt, "ls-files", "-s")).toBe(g(ref, "ls-files", "-s"));
  } finally {
    g(repo, "worktree", "remove", "--force", ref);
  }
}

describe("undo, restore and reset over committed links, executables and odd names", () => {
  it("leave what git's checkout leaves, and the state a fresh server reads", async () => {
    const parent = tmpDir("trm-mv-");
    const repo = path.join(parent, "repo");
    mkdirSync(path.join(repo, "sub"), { recursive: true });
    g(repo, "init", "-q", "-b", "main");
    writeFileSync(path.join(repo, "a.txt"), "a\n");
    writeFileSync(path.join(repo, "sub/f.txt"), "f\n");
    writeFileSync(path.join(repo, "run.sh"), "#!/bin/sh\necho run\n");
    chmodSync(path.join(repo, "run.sh"), 0o755);
    symlinkSync("a.txt", path.join(repo, "lnk"));
    symlinkSync("sub", path.join(repo, "dirlink"));
    symlinkSync("../outside", path.join(repo, "up"));
    writeFileSync(path.join(repo, "-dash.txt"), "dash\n");
    writeFileSync(path.join(repo, "sp ace [x] *.txt"), "odd\n");
    g(repo, "add", "-A");
    g(repo, "commit", "-q", "-m", "base");
    const before = checkoutState(repo);
    const srv = await startServer();
    const { sessionId, worktreePath: wt } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "true" });
    const state = () => srv.call<Any>("trm_get_state", { sessionId });
    const fresh = async () => {
      const f = await startServer();
      try {
        await f.call("trm_list_sessions", { repoPath: repo });
        return await f.call<Any>("trm_get_state", { sessionId });
      } finally {
        await f.close();
      }
    };
    const check = async () => {
      const mine = await state();
      expectAtHead(repo, wt);
      return mine;
    };

    // 1: the link `lnk` replaced by a file, a file inside the linked folder, the odd names edited.
    await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: { mode: "delete", paths: ["lnk"] } });
    await srv.call<Any>("trm_submit_candidate", {
      sessionId,
      candidate: {
        mode: "files",
        files: [
          { path: "lnk", content: "now a file\n" },
          { path: "-dash.txt", content: "dash 2\n" },
          { path: "sp ace [x] *.txt", content: "odd 2\n" },
          { path: "sub/deep/er/new.txt", content: "n\n" },
        ],
      },
    });
    await srv.call("trm_save_checkpoint", { sessionId, name: "two" });
    // 3: the executable and the linked folder go.
    await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: { mode: "delete", paths: ["run.sh"] } });
    await check();
    await srv.call<Any>("trm_undo", { sessionId });
    await check();
    await srv.call<Any>("trm_undo", { sessionId });
    await check();
    await srv.call<Any>("trm_restore_checkpoint", { sessionId, name: "two" });
    await check();
    await srv.call<Any>("trm_reset_to_baseline", { sessionId });
    await check();
    await srv.call<Any>("trm_restore_checkpoint", { sessionId, name: "two" });
    const mine = await check();
    expect(await fresh()).toEqual(mine);
    await srv.close();
    expect(existsSync(path.join(parent, "outside"))).toBe(false);
    expect(checkoutState(repo)).toEqual(before);
  }, 60_000);
});

describe("restoring a checkpoint the session left, after a lazy preflight", () => {
  it("gives the history and best a fresh server reads from git", async () => {
    const { makeRepo } = await import("../helpers/repo.js");
    const repo = makeRepo("js-stats");
    const srv = await startServer();
    const { sessionId, worktreePath: wt } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test test/" });
    const stats = readFileSync(path.join(repo, "src/stats.js"), "utf8");
    await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: { mode: "files", files: [{ path: "src/stats.js", content: stats + "\n// one\n" }] } });
    await srv.call("trm_save_checkpoint", { sessionId, name: "one" });
    await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: { mode: "files", files: [{ path: "src/stats.js", content: stats + "\n// two\n" }] } });
    await srv.call("trm_save_checkpoint", { sessionId, name: "two" });
    await srv.call<Any>("trm_reset_to_baseline", { sessionId });
    // A step that changes a test file at the baseline: the baseline's commands run first (step 0).
    const t = readFileSync(path.join(repo, "test/stats.test.js"), "utf8");
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId,
      candidate: { mode: "files", files: [{ path: "test/stats.test.js", content: t + "\n// more\n" }] },
    });
    expect(r.step).toBe(1);
    expect((await srv.call<Any>("trm_get_state", { sessionId })).history.map((h: Any) => h.step)).toEqual([0, 1]);
    for (const name of ["two", "one", "two"]) {
      await srv.call<Any>("trm_restore_checkpoint", { sessionId, name });
      const mine = await srv.call<Any>("trm_get_state", { sessionId });
      expectAtHead(repo, wt);
      const f = await startServer();
      await f.call("trm_list_sessions", { repoPath: repo });
      expect(await f.call<Any>("trm_get_state", { sessionId })).toEqual(mine);
      await f.close();
    }
    await srv.close();
  }, 120_000);
});

describe("a session branch moved by a person onto commits that add a .gitattributes", () => {
  it("moves the worktree as git's checkout does (eol conversion included)", async () => {
    const parent = tmpDir("trm-mv-attr-");
    const repo = path.join(parent, "repo");
    mkdirSync(repo);
    g(repo, "init", "-q", "-b", "main");
    writeFileSync(path.join(repo, "a.txt"), "a\n");
    g(repo, "add", "-A");
    g(repo, "commit", "-q", "-m", "base");
    const srv = await startServer();
    const { sessionId, worktreePath: wt, branch } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "true" });
    // One step in-process: the session's eligibility is read while no .gitattributes is tracked.
    const s1 = await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: { mode: "files", files: [{ path: "a.txt", content: "b\n" }] } });
    // A person adds two commits on the session branch: the attributes, then a new text file.
    const side = path.join(tmpDir("trm-side-"), "side");
    g(repo, "worktree", "add", "-q", "--detach", side, s1.commit);
    writeFileSync(path.join(side, ".gitattributes"), "*.txt eol=crlf\n");
    g(side, "add", "-A");
    g(side, "commit", "-q", "-m", "attrs");
    writeFileSync(path.join(side, "new.txt"), "line\n");
    g(side, "add", "-A");
    g(side, "commit", "-q", "-m", "new");
    const p2 = g(side, "rev-parse", "HEAD").trim();
    g(repo, "worktree", "remove", "--force", side);
    g(repo, "update-ref", `refs/heads/${branch.replace(/^refs\/heads\//, "")}`, p2);
    await srv.call("trm_save_checkpoint", { sessionId, name: "p2" });
    await srv.call<Any>("trm_undo", { sessionId });
    expect(existsSync(path.join(wt, "new.txt"))).toBe(false);
    await srv.call<Any>("trm_restore_checkpoint", { sessionId, name: "p2" });
    await srv.call<Any>("trm_get_state", { sessionId });
    // What `git reset --hard` writes for the new file (a.txt, unchanged, git leaves as it was).
    expect(readFileSync(path.join(wt, "new.txt"), "utf8")).toBe("line\r\n");
    expect(g(wt, "status", "--porcelain", "--untracked-files=all")).toBe("");
    await srv.close();
  }, 60_000);
});
