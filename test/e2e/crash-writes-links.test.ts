import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startServer } from "../helpers/client.js";
import { checkoutState, g, makeRepo, tmpDir } from "../helpers/repo.js";

type Any = Record<string, any>;

describe("a server killed after a candidate wrote new files through links inside the worktree", () => {
  it("the next server removes them where they landed, not only under the names the candidate used", async () => {
    const repo = makeRepo("js-stats");
    mkdirSync(path.join(repo, "lib"));
    writeFileSync(path.join(repo, "lib", "k.js"), "k\n");
    symlinkSync(".", path.join(repo, "dot"));
    symlinkSync("lib", path.join(repo, "innerd"));
    g(repo, "add", "-A");
    g(repo, "commit", "-q", "-m", "links");
    const before = checkoutState(repo);
    const stateDir = tmpDir("trm-state-");
    const crashFile = path.join(stateDir, "crashed");
    const a = await startServer({ stateDir, env: { CODE_TRM_CRASH_AT: "step-tree-written", CODE_TRM_CRASH_FILE: crashFile } });
    const { sessionId, worktreePath } = await a.call<Any>("trm_start_session", { repoPath: repo, testCmd: "true" });
    const files = [
      { path: "dot/new1.js", content: "1\n" },
      { path: "innerd/new2.js", content: "2\n" },
      { path: "innerd/sub/new3.js", content: "3\n" },
    ];
    const pending = a.call<Any>("trm_submit_candidate", { sessionId, candidate: { mode: "files", files } });
    pending.catch(() => undefined);
    for (let i = 0; i < 600 && !existsSync(crashFile); i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(crashFile)).toBe(true);
    // Written where the kernel put them: new1.js, lib/new2.js, lib/sub/new3.js.
    expect(existsSync(path.join(worktreePath, "lib", "sub", "new3.js"))).toBe(true);
    process.kill(a.pid!, "SIGKILL");
    await expect(pending).rejects.toThrow();

    const b = await startServer({ stateDir });
    await b.call<Any>("trm_get_state", { sessionId });
    // Healed: the worktree is the tip, nothing of the interrupted candidate left to be evaluated with.
    expect(g(worktreePath, "status", "--porcelain", "--untracked-files=all")).toBe("");
    for (const p of ["new1.js", "lib/new2.js", "lib/sub"]) expect(existsSync(path.join(worktreePath, p)), p).toBe(false);
    expect(existsSync(path.join(worktreePath, "lib", "k.js"))).toBe(true);
    await b.call("trm_end_session", { sessionId, discard: true });
    await b.close();
    expect(checkoutState(repo)).toEqual(before);
  });
});
