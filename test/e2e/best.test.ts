import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, textOf, tmpEnv } from "../helpers/client.js";
import { filesCandidate, MEDIAN_RIGHT, MEDIAN_WRONG, statsWith } from "../helpers/fixtures.js";
import { checkoutState, g, makeRepo, ROOT } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const submit = (id: string, c: Any, rationale = "") => srv.call<Any>("trm_submit_candidate", { sessionId: id, candidate: c, rationale });

function cli(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [path.join(ROOT, "dist", "cli", "main.js"), ...args], {
    cwd,
    encoding: "utf8",
    env: { ...tmpEnv(), PATH: process.env.PATH ?? "", HOME: cwd, CODE_TRM_STATE_DIR: srv.stateDir, GIT_CONFIG_NOSYSTEM: "1" },
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("the session's best is never lost", () => {
  it("survives reset, undo and restore; only moves up; apply --best brings it in", async () => {
    const repo = makeRepo("js-stats");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", preflight: true });
    const id = s.sessionId as string;
    const right = await submit(id, filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)), "fix median");
    expect(right.score).toBe(1);
    await srv.call("trm_save_checkpoint", { sessionId: id, name: "green" });

    const reset = await srv.call<Any>("trm_reset_to_baseline", { sessionId: id });
    expect(reset).toMatchObject({ step: 0, bestScore: 1, bestStep: 1, noImproveStreak: 0 });
    expect(g(repo, "rev-parse", `trm/${id}/best`).trim()).toBe(right.commit);
    const state = await srv.raw("trm_get_state", { sessionId: id });
    expect(textOf(state)).toMatch(/best 1\.000? at step 1 \(not on the current history/);
    const d = await srv.call<Any>("trm_diff", { sessionId: id, from: "baseline", to: "best" });
    expect(d.to).toBe("best");
    expect(d.files.map((f: Any) => f.path)).toEqual(["src/stats.js"]);
    const read = await srv.call<Any>("trm_read_files", { sessionId: id, paths: ["src/stats.js"], at: "best" });
    expect(read.files[0].content).toBe(g(repo, "show", `${right.commit}:src/stats.js`));

    // A worse step after the reset is new to this history (streak 0) but does not take the tag.
    const worseRaw = await srv.raw("trm_submit_candidate", {
      sessionId: id,
      candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_WRONG)),
      rationale: "worse",
    });
    const worse = worseRaw.structuredContent as Any;
    expect(worse).toMatchObject({ step: 1, bestScore: 1, noImproveStreak: 1 });
    // Its text and its commit's trailer say the session's best too, not this history's.
    expect(textOf(worseRaw)).toMatch(new RegExp(`best 1\\.000? at step 1 \\(not on the current history: tag trm/${id}/best, ${right.commit.slice(0, 12)}\\)`));
    expect(g(repo, "log", "-1", "--format=%(trailers:key=TRM-Best,valueonly)", worse.commit).trim()).toBe("1.0000");
    expect(g(repo, "rev-parse", `trm/${id}/best`).trim()).toBe(right.commit);
    await srv.call("trm_undo", { sessionId: id });
    expect(g(repo, "rev-parse", `trm/${id}/best`).trim()).toBe(right.commit);

    // A fresh server derives the same best from git alone.
    const fresh = await startServer({ stateDir: srv.stateDir });
    await fresh.call("trm_list_sessions", { repoPath: repo });
    expect(await fresh.call<Any>("trm_get_state", { sessionId: id })).toMatchObject({ step: 0, bestScore: 1, bestStep: 1 });
    await fresh.close();

    // Restoring the checkpoint puts the best back on the history.
    await srv.call("trm_restore_checkpoint", { sessionId: id, name: "green" });
    expect(textOf(await srv.raw("trm_get_state", { sessionId: id }))).not.toMatch(/not on the current history/);
    await srv.call("trm_reset_to_baseline", { sessionId: id });

    const end = await srv.raw("trm_end_session", { sessionId: id });
    const ended = end.structuredContent as Any;
    expect(ended).toMatchObject({ bestCommit: right.commit, bestStep: 1 });
    expect(ended.howToApply[0]).toMatch(new RegExp(` apply ${id} --best --repo \\S+   # the best step is not on the branch.s current history`));
    expect(textOf(end)).toMatch(/not on the current history/);

    const log = cli(repo, "log", id);
    expect(log.out).toMatch(/best 1\.000? at step 1 \(not on the current history/);
    expect(checkoutState(repo)).toEqual(before);
    const applied = cli(repo, "apply", id, "--best");
    expect(applied.code, applied.err).toBe(0);
    expect(readFileSync(path.join(repo, "src/stats.js"), "utf8")).toBe(g(repo, "show", `${right.commit}:src/stats.js`));
  });

  it("moves to a step of the current history that equals a best left behind, so apply --best brings in the work the session went on with", async () => {
    const repo = makeRepo("js-stats");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", preflight: true });
    const id = s.sessionId as string;
    const first = await submit(id, filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)), "fix median");
    expect(first.score).toBe(1);
    await srv.call("trm_undo", { sessionId: id });
    expect(textOf(await srv.raw("trm_get_state", { sessionId: id }))).toMatch(/not on the current history/);
    const again = await srv.raw("trm_submit_candidate", {
      sessionId: id,
      candidate: filesCandidate("src/stats.js", `${statsWith(repo, MEDIAN_RIGHT)}// the same fix, written again\n`),
      rationale: "fix again",
    });
    const r = again.structuredContent as Any;
    expect(r).toMatchObject({ step: 1, score: 1, bestScore: 1 });
    expect(g(repo, "rev-parse", `trm/${id}/best`).trim()).toBe(r.commit);
    expect(textOf(again)).not.toMatch(/not on the current history/);
    const end = await srv.call<Any>("trm_end_session", { sessionId: id });
    expect(end).toMatchObject({ bestCommit: r.commit, bestStep: 1 });
    expect(checkoutState(repo)).toEqual(before);
  });
});
