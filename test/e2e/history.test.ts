import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, textOf } from "../helpers/client.js";
import { filesCandidate, MEDIAN_RIGHT, MEDIAN_WRONG, statsWith } from "../helpers/fixtures.js";
import { checkoutState, g, makeMessy, makeRepo } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

async function session(preflight = true) {
  const repo = makeRepo("js-stats");
  makeMessy(repo, "src/stats.js");
  const before = checkoutState(repo);
  // The whole suite at every step: MEDIAN_WRONG breaks a test that passed (failing first: docs/failing-first.md).
  const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", preflight, selectTests: false });
  return { repo, before, id: s.sessionId as string, wt: s.worktreePath as string };
}
const submit = (id: string, c: Any, rationale = "") => srv.call<Any>("trm_submit_candidate", { sessionId: id, candidate: c, rationale });

describe("undo", () => {
  it("goes back one step, recomputes the figures, keeps the undone commit reachable", async () => {
    const { repo, before, id, wt } = await session();
    const baselineStats = readFileSync(path.join(wt, "src/stats.js"), "utf8");
    const s1 = await submit(id, filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)));
    expect(s1.score).toBe(1);
    const u = await srv.call<Any>("trm_undo", { sessionId: id });
    // The session's best stays the undone step; the streak follows the current history.
    expect(u).toMatchObject({ step: 0, score: 0.75, bestScore: 1, bestStep: 1, noImproveStreak: 0, filesRestored: ["src/stats.js"] });
    expect(u.undone).toMatchObject({ step: 1, commit: s1.commit });
    expect(readFileSync(path.join(wt, "src/stats.js"), "utf8")).toBe(baselineStats);
    expect(g(repo, "rev-parse", u.undone.keptAs).trim()).toBe(s1.commit);
    expect(g(repo, "rev-parse", `trm/${id}/best`).trim()).toBe(s1.commit);
    expect(g(wt, "status", "--porcelain", "--untracked-files=no")).toBe("");
    const again = await srv.raw("trm_undo", { sessionId: id });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(/Nothing to undo[\s\S]*What to do/);
    expect(checkoutState(repo)).toEqual(before);
  });

  it("after several steps, gives the same state a fresh server computes from git", async () => {
    const { repo, before, id } = await session();
    await submit(id, filesCandidate("src/stats.js", statsWith(repo, MEDIAN_WRONG)), "wrong");
    await submit(id, filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)), "right");
    await submit(id, filesCandidate("a.txt", "a\n"), "noise");
    await srv.call("trm_undo", { sessionId: id });
    const u = await srv.call<Any>("trm_undo", { sessionId: id });
    expect(u).toMatchObject({ step: 1, score: 0.5, bestScore: 1, bestStep: 2, noImproveStreak: 1 });
    const mine = await srv.call<Any>("trm_get_state", { sessionId: id });
    const fresh = await startServer();
    await fresh.call("trm_list_sessions", { repoPath: repo });
    expect(await fresh.call<Any>("trm_get_state", { sessionId: id })).toEqual(mine);
    // A new step after an undo continues from the undone point, with the streak the history implies.
    const s = await submit(id, filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)), "right again");
    expect(s).toMatchObject({ step: 2, score: 1, improved: true, cached: true, commandsMs: 0 });
    await fresh.close();
    expect(checkoutState(repo)).toEqual(before);
    expect(g(repo, "fsck", "--no-progress", "--no-dangling")).toBe("");
  });
});

describe("checkpoints, restore, reset, diff, reading the past", () => {
  it("round-trips without losing later work", async () => {
    const { repo, before, id, wt } = await session();
    const s1 = await submit(id, filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)), "fix median");
    const cp = await srv.call<Any>("trm_save_checkpoint", { sessionId: id, name: "green", description: "all tests pass" });
    expect(cp).toMatchObject({ name: "green", step: 1, commit: s1.commit });
    const dup = await srv.raw("trm_save_checkpoint", { sessionId: id, name: "green" });
    expect(textOf(dup)).toMatch(/already exists/);
    for (const bad of ["best", "12", "a..b", "x.lock", "../up", "-rf"]) {
      expect((await srv.raw("trm_save_checkpoint", { sessionId: id, name: bad })).isError, bad).toBe(true);
    }
    await submit(id, filesCandidate("b.txt", "b\n"), "b");
    const s3 = await submit(id, filesCandidate("src/stats.js", statsWith(repo, MEDIAN_WRONG)), "break it");

    const list = await srv.call<Any>("trm_list_checkpoints", { sessionId: id });
    expect(list.checkpoints).toEqual([expect.objectContaining({ name: "green", step: 1, score: 1, description: "all tests pass", onCurrentHistory: true })]);

    const r = await srv.call<Any>("trm_restore_checkpoint", { sessionId: id, name: "green" });
    expect(r).toMatchObject({ step: 1, score: 1, bestScore: 1, restored: "checkpoint green" });
    expect(r.filesRestored.sort()).toEqual(["b.txt", "src/stats.js"]);
    expect(g(repo, "rev-parse", r.keptAs).trim()).toBe(s3.commit);
    expect(g(wt, "rev-parse", "HEAD").trim()).toBe(s1.commit);

    const reset = await srv.call<Any>("trm_reset_to_baseline", { sessionId: id });
    expect(reset).toMatchObject({ step: 0, score: 0.75 });
    // A checkpoint off the current history can still be restored: its steps are taken from the history
    // this server left, and are what a fresh server reads back from git.
    const back = await srv.call<Any>("trm_restore_checkpoint", { sessionId: id, name: "green" });
    expect(back).toMatchObject({ step: 1, score: 1 });
    expect(back.history.map((h: Any) => h.step)).toEqual([0, 1]);
    const fresh = await startServer();
    await fresh.call("trm_list_sessions", { repoPath: repo });
    expect(await fresh.call<Any>("trm_get_state", { sessionId: id })).toEqual(await srv.call<Any>("trm_get_state", { sessionId: id }));
    await fresh.close();
    expect(g(wt, "status", "--porcelain", "--untracked-files=all")).toBe("");

    const d = await srv.call<Any>("trm_diff", { sessionId: id, from: "baseline", to: "green" });
    const [added, removed] = g(repo, "diff", "--numstat", `trm/${id}/baseline`, `trm/${id}/green`).split("\t");
    expect(d.files).toEqual([{ path: "src/stats.js", added: Number(added), removed: Number(removed) }]);
    expect(d.linesAdded).toBe(Number(added));
    expect(d.diff).toContain("+  return s.length % 2 === 1");
    const none = await srv.call<Any>("trm_diff", { sessionId: id, from: "1", to: "current" });
    expect(none.files).toEqual([]);
    const filtered = await srv.call<Any>("trm_diff", { sessionId: id, from: "baseline", to: "current", paths: ["README.md"] });
    expect(filtered.files).toEqual([]);
    expect((await srv.raw("trm_diff", { sessionId: id, from: "HEAD~1" })).isError).toBe(true);

    const past = await srv.call<Any>("trm_read_files", { sessionId: id, paths: ["src/stats.js", "staged.txt"], at: "baseline" });
    expect(past.files[0].content).toContain("return s[Math.floor(s.length / 2)];");
    expect(past.files[1].content).toBe("staged\n");
    const best = await srv.call<Any>("trm_read_lines", { sessionId: id, file: "src/stats.js", startLine: 11, endLine: 12, at: "best" });
    expect(best.lines[0]).toMatch(/const mid/);

    expect(checkoutState(repo)).toEqual(before);
    expect(g(repo, "fsck", "--no-progress", "--no-dangling")).toBe("");
  });
});

describe("reading the past in a repository that borrows objects (clone --shared)", () => {
  it("reads files at the baseline although the objects live in another repository", async () => {
    const origin = makeRepo("js-stats");
    const shared = path.join(path.dirname(origin), "shared-clone");
    g(path.dirname(origin), "clone", "-q", "--shared", origin, shared);
    const s = await srv.call<Any>("trm_start_session", { repoPath: shared, testCmd: "node --test" });
    const r = await srv.call<Any>("trm_read_files", { sessionId: s.sessionId, paths: ["src/stats.js", "nope.js"], at: "baseline" });
    expect(r.files[0]).toMatchObject({ path: "src/stats.js", exists: true });
    expect(r.files[0].content).toContain("export function median");
    expect(r.files[1]).toEqual({ path: "nope.js", exists: false });
  });
});
