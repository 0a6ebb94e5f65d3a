import { existsSync, readFileSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { startServer } from "../helpers/client.js";
import { filesCandidate, MEDIAN_RIGHT, MEDIAN_WRONG, statsWith } from "../helpers/fixtures.js";
import { checkoutState, g, makeRepo, tmpDir } from "../helpers/repo.js";

type Any = Record<string, any>;

describe("sessions survive a server restart", () => {
  it("continues from the same step and scores, derived from git", async () => {
    const repo = makeRepo("js-stats");
    const before = checkoutState(repo);
    const stateDir = tmpDir("trm-state-");
    const a = await startServer({ stateDir });
    const { sessionId } = await a.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", preflight: true });
    const s1 = await a.call<Any>("trm_submit_candidate", {
      sessionId,
      candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_WRONG)),
      rationale: "wrong",
      zNotes: "try sorting first",
    });
    const stateBefore = await a.call<Any>("trm_get_state", { sessionId });
    // A hard kill, not a clean shutdown: nothing can be flushed on the way out.
    process.kill(a.pid!, "SIGKILL");
    await a.close().catch(() => undefined);

    const b = await startServer({ stateDir });
    const listed = await b.call<Any>("trm_list_sessions", { repoPath: repo });
    expect(listed.sessions).toEqual([expect.objectContaining({ sessionId, status: "active", step: 1, score: s1.score })]);
    const stateAfter = await b.call<Any>("trm_get_state", { sessionId });
    expect(stateAfter).toEqual(stateBefore);
    expect(stateAfter.zNotes).toBe("try sorting first");
    const s2 = await b.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)) });
    expect(s2).toMatchObject({ step: 2, score: 1, improved: true, shouldHalt: true });
    expect(s2.emaScore).toBeCloseTo(0.9 * 1 + 0.1 * s1.emaScore, 6);
    await b.close();
    expect(checkoutState(repo)).toEqual(before);
  });

  it("keeps the evaluations of undone steps: an identical resubmission after a restart runs nothing", async () => {
    const repo = makeRepo("js-stats");
    const stateDir = tmpDir("trm-state-");
    const a = await startServer({ stateDir });
    const { sessionId } = await a.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
    const wrong = filesCandidate("src/stats.js", statsWith(repo, MEDIAN_WRONG));
    const s1 = await a.call<Any>("trm_submit_candidate", { sessionId, candidate: wrong });
    expect(s1.cached).toBeFalsy();
    await a.call<Any>("trm_undo", { sessionId });
    process.kill(a.pid!, "SIGKILL");
    await a.close().catch(() => undefined);
    const b = await startServer({ stateDir });
    const again = await b.call<Any>("trm_submit_candidate", { sessionId, candidate: wrong });
    expect(again).toMatchObject({ step: 1, score: s1.score, cached: true, commandsMs: 0 });
    await b.close();
  });

  it("finds a session by repository when the server has no record of it", async () => {
    const repo = makeRepo("js-stats");
    const a = await startServer();
    const { sessionId } = await a.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
    await a.close();
    const b = await startServer(); // a fresh state directory: only git knows the session
    const unknown = await b.raw("trm_get_state", { sessionId });
    expect(unknown.isError).toBe(true);
    expect((unknown.content[0] as { text: string }).text).toMatch(/trm_list_sessions/);
    await b.call("trm_list_sessions", { repoPath: repo });
    const st = await b.call<Any>("trm_get_state", { sessionId });
    expect(st).toMatchObject({ sessionId, step: 0, status: "active" });
    await b.close();
  });
});

describe("a session whose worktree was deleted by hand", () => {
  it("is listed as abandoned without being touched, and comes back when a tool is used on it", async () => {
    const repo = makeRepo("js-stats");
    const srv = await startServer();
    const { sessionId, worktreePath } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
    await srv.call("trm_submit_candidate", { sessionId, candidate: filesCandidate("a.txt", "a\n") });
    rmSync(worktreePath, { recursive: true, force: true });
    const listed = await srv.call<Any>("trm_list_sessions", { repoPath: repo });
    expect(listed.sessions[0]).toMatchObject({ sessionId, status: "abandoned", step: 1 });
    expect(existsSync(worktreePath)).toBe(false);
    const st = await srv.call<Any>("trm_get_state", { sessionId });
    expect(st).toMatchObject({ status: "active", step: 1 });
    expect(readFileSync(`${worktreePath}/a.txt`, "utf8")).toBe("a\n");
    await srv.call("trm_end_session", { sessionId });
    expect((await srv.call<Any>("trm_list_sessions", { repoPath: repo })).sessions[0].status).toBe("ended");
    await srv.close();
  });
});

describe("concurrency", () => {
  it("runs two sessions on one repository side by side", async () => {
    const repo = makeRepo("js-stats");
    const before = checkoutState(repo);
    const srv = await startServer();
    const [x, y] = await Promise.all([
      srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" }),
      srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" }),
    ]);
    expect(x.sessionId).not.toBe(y.sessionId);
    const results = await Promise.all([
      srv.call<Any>("trm_submit_candidate", { sessionId: x.sessionId, candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)) }),
      srv.call<Any>("trm_submit_candidate", { sessionId: y.sessionId, candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_WRONG)) }),
      srv.call<Any>("trm_submit_candidate", { sessionId: x.sessionId, candidate: filesCandidate("x.txt", "x\n") }),
      srv.call<Any>("trm_submit_candidate", { sessionId: y.sessionId, candidate: filesCandidate("y.txt", "y\n") }),
    ]);
    // Calls on one session are serialised in arrival order; the two sessions do not interfere.
    expect(results.map((r) => r.step)).toEqual([1, 1, 2, 2]);
    expect(results[0]!.score).toBe(1);
    expect(results[1]!.score).toBe(0.5);
    expect(g(repo, "log", "--format=%s", `trm/${x.sessionId}/baseline..trm/${x.sessionId}`).trim().split("\n")).toHaveLength(2);
    expect(g(repo, "ls-tree", "--name-only", `trm/${y.sessionId}`)).toContain("y.txt");
    expect(g(repo, "ls-tree", "--name-only", `trm/${y.sessionId}`)).not.toContain("x.txt");
    await srv.close();
    expect(checkoutState(repo)).toEqual(before);
    expect(g(repo, "fsck", "--no-progress")).toBe("");
  });
});

describe("the user checks out the session branch", () => {
  it("refuses to move it under them, and continues once they switch away", async () => {
    const repo = makeRepo("js-stats");
    const srv = await startServer();
    const { sessionId } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
    await srv.call("trm_submit_candidate", { sessionId, candidate: filesCandidate("a.txt", "a\n") });
    g(repo, "checkout", "-q", `trm/${sessionId}`);
    const onBranch = checkoutState(repo);
    for (const [name, args] of [
      ["trm_submit_candidate", { sessionId, candidate: filesCandidate("b.txt", "b\n") }],
      ["trm_undo", { sessionId }],
      ["trm_reset_to_baseline", { sessionId }],
      ["trm_end_session", { sessionId, discard: true }],
    ] as const) {
      const r = await srv.raw(name, args);
      expect(r.isError, name).toBe(true);
      expect((r.content[0] as { text: string }).text).toMatch(/checked out in .*git switch -/s);
    }
    expect(checkoutState(repo)).toEqual(onBranch);
    g(repo, "checkout", "-q", "main");
    expect((await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("b.txt", "b\n") })).step).toBe(2);
    await srv.close();
  });
});
