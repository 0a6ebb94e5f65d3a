import { execSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startServer } from "../helpers/client.js";
import { filesCandidate, MEDIAN_RIGHT, statsWith } from "../helpers/fixtures.js";
import { checkoutState, g, makeMessy, makeRepo, tmpDir } from "../helpers/repo.js";

type Any = Record<string, any>;

/** Dead includes zombie: an orphan's parent may be a PID 1 that never reaps. */
function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

describe("a server killed in the middle of a step", () => {
  it("leaves the checkout untouched, and the next server recovers the session (dirty worktree, stale index.lock)", async () => {
    const repo = makeRepo("js-stats");
    makeMessy(repo, "src/stats.js");
    const before = checkoutState(repo);
    const stateDir = tmpDir("trm-state-");
    const a = await startServer({ stateDir });
    const marker = `trm-crash-${process.pid}-${Date.now()}`;
    // Slow only while the flag file exists, so that the restarted server's own step is quick.
    const slow = path.join(stateDir, "slow");
    writeFileSync(slow, "");
    const orphanPid = path.join(stateDir, "orphan.pid");
    const { sessionId, worktreePath } = await a.call<Any>("trm_start_session", {
      repoPath: repo,
      testCmd: `if test -f ${slow}; then sleep 300 & echo $! > ${orphanPid}; wait; fi # ${marker}\nnode --test`,
    });
    const pending = a
      .call("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)) })
      .catch((e: Error) => e);
    // Wait until the candidate is written and its test command runs (its pid file exists), then kill the
    // server outright. Waiting on the worktree alone raced the command's start on a loaded machine.
    for (let i = 0; i < 600 && !existsSync(orphanPid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(g(worktreePath, "status", "--porcelain")).toMatch(/src\/stats.js/);
    process.kill(a.pid!, "SIGKILL");
    expect(await pending).toBeInstanceOf(Error);
    // The killed server's command lives on as an orphan...
    const orphan = Number(readFileSync(orphanPid, "utf8"));
    expect(alive(orphan)).toBe(true);
    rmSync(slow);
    expect(g(worktreePath, "status", "--porcelain")).toMatch(/src\/stats.js/);
    // A crash inside git leaves index.lock behind; git itself would refuse to work from then on.
    const adminDir = g(worktreePath, "rev-parse", "--absolute-git-dir").trim();
    const lock = path.join(adminDir, "index.lock");
    writeFileSync(lock, "");
    utimesSync(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    expect(checkoutState(repo)).toEqual(before);

    const b = await startServer({ stateDir });
    const st = await b.call<Any>("trm_get_state", { sessionId });
    expect(st.step).toBe(0);
    // ...until the next server touches the session and kills it.
    await new Promise((r) => setTimeout(r, 200));
    expect(alive(orphan)).toBe(false);
    execSync(`pkill -f "[${marker[0]}]${marker.slice(1)}" || true`);
    expect(g(worktreePath, "status", "--porcelain", "--untracked-files=no")).toBe("");
    const r = await b.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("a.txt", "a\n") });
    expect(r.step).toBe(1);
    await b.close();
    expect(checkoutState(repo)).toEqual(before);
  });
});
