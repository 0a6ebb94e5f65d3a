import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startServer } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { checkoutState, g, makeMessy, makeRepo, tmpDir } from "../helpers/repo.js";

type Any = Record<string, any>;

/** git fsck --full: exit 0 and nothing but dangling objects (what a crash may leave) reported. */
function fsckProblems(repo: string): string[] {
  const out = g(repo, "fsck", "--full", "--no-progress");
  return out.split("\n").filter((l) => l.trim() && !/^(dangling|unreachable) /.test(l));
}

/** A session on a messy checkout, served by a server that stops at `crashAt` (crash-point.ts) and says so in `crashFile`. */
async function crashingSession(crashAt: string) {
  const repo = makeRepo("js-stats");
  makeMessy(repo, "src/stats.js");
  const before = checkoutState(repo);
  const stateDir = tmpDir("trm-state-");
  const crashFile = path.join(stateDir, "crashed");
  const a = await startServer({ stateDir, env: { CODE_TRM_CRASH_AT: crashAt, CODE_TRM_CRASH_FILE: crashFile } });
  const { sessionId, worktreePath } = await a.call<Any>("trm_start_session", { repoPath: repo, testCmd: "true" });
  return { repo, before, stateDir, crashFile, a, sessionId: sessionId as string, worktreePath: worktreePath as string };
}

/**
 * The in-process writes of a step (tree, commit, note) come before the one ref transaction that makes the
 * step visible; the index follows after the reply. A server killed at each point between them leaves a
 * repository git finds sound, every step it answered on the branch with its record, and no trace of the
 * step it did not answer.
 */
describe("a server killed between a step's in-process writes and its ref update", () => {
  for (const point of ["step-tree-written", "step-commit-written", "step-note-written", "step-index-stale"]) {
    it(`at ${point}`, async () => {
      // The third step stops at the point: two steps are answered before it.
      const { repo, before, stateDir, crashFile, a, sessionId, worktreePath } = await crashingSession(`${point}:3`);
      const commits: string[] = [];
      for (const i of [1, 2])
        commits.push((await a.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate(`new/n${i}.txt`, `${i}\n`) })).commit);
      // The third edits a tracked file and adds a new one, in a new folder.
      const pending = a.call<Any>("trm_submit_candidate", {
        sessionId,
        candidate: {
          mode: "files",
          files: [
            { path: "src/stats.js", content: "export const x = 3;\n" },
            { path: "deep/er/n3.txt", content: "3\n" },
          ],
        },
      });
      // After the reply (index point) the step is answered; before it, the call never returns.
      const answered = point === "step-index-stale";
      if (answered) commits.push((await pending).commit);
      else pending.catch(() => undefined);
      for (let i = 0; i < 600 && !existsSync(crashFile); i++) await new Promise((r) => setTimeout(r, 50));
      expect(existsSync(crashFile)).toBe(true);
      process.kill(a.pid!, "SIGKILL");
      if (!answered) await expect(pending).rejects.toThrow();
      expect(checkoutState(repo)).toEqual(before);

      expect(fsckProblems(repo)).toEqual([]);
      const branch = `trm/${sessionId}`;
      const onBranch = g(repo, "rev-list", "--first-parent", branch, `^trm/${sessionId}/baseline`).trim().split("\n").filter(Boolean).reverse();
      expect(onBranch).toEqual(commits);
      // Every step has its record, and the notes hold nothing for a step that is not on the branch.
      const noted = g(repo, "notes", `--ref=trm/${sessionId}`, "list")
        .trim()
        .split("\n")
        .map((l) => l.split(" ")[1]);
      for (const c of commits) expect(noted).toContain(c);
      expect(noted.length).toBe(commits.length + 1);
      expect(JSON.parse(g(repo, "notes", `--ref=trm/${sessionId}`, "show", commits.at(-1)!)).step).toBe(commits.length);

      const b = await startServer({ stateDir });
      const st = await b.call<Any>("trm_get_state", { sessionId });
      expect(st.step).toBe(commits.length);
      expect(g(worktreePath, "status", "--porcelain")).toBe("");
      expect(g(worktreePath, "rev-parse", "HEAD").trim()).toBe(commits.at(-1));
      const r = await b.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("after.txt", "after\n") });
      expect(r.step).toBe(commits.length + 1);
      await b.close();
      // The index agrees with the step just recorded once its after-reply write is done.
      expect(g(worktreePath, "status", "--porcelain")).toBe("");
      expect(g(worktreePath, "ls-files", "after.txt").trim()).toBe("after.txt");
      expect(fsckProblems(repo)).toEqual([]);
      expect(checkoutState(repo)).toEqual(before);
    });
  }
});

/**
 * An undo moves the refs in one transaction, then writes the paths that differ in-process (tree-move.ts);
 * the index follows after the reply. A server killed after the refs moved, or before the index followed,
 * leaves a worktree that the next server brings to the new tip: the undone step's files gone, the
 * earlier step's back, the index clean.
 */
describe("a server killed in the middle of an undo", () => {
  for (const point of ["move-refs-moved", "move-index-stale"]) {
    it(`at ${point}`, async () => {
      const { repo, before, stateDir, crashFile, a, sessionId, worktreePath } = await crashingSession(point);
      const s1 = await a.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", "export const x = 1;\n") });
      await a.call<Any>("trm_submit_candidate", {
        sessionId,
        candidate: {
          mode: "files",
          files: [
            { path: "src/stats.js", content: "export const x = 2;\n" },
            { path: "deep/er/n2.txt", content: "2\n" },
          ],
        },
      });
      const pending = a.call<Any>("trm_undo", { sessionId });
      // The reply comes before the index point, never before the refs point.
      if (point === "move-index-stale") expect((await pending).step).toBe(1);
      else pending.catch(() => undefined);
      for (let i = 0; i < 600 && !existsSync(crashFile); i++) await new Promise((r) => setTimeout(r, 50));
      expect(existsSync(crashFile)).toBe(true);
      process.kill(a.pid!, "SIGKILL");
      expect(checkoutState(repo)).toEqual(before);
      expect(fsckProblems(repo)).toEqual([]);

      const b = await startServer({ stateDir });
      expect((await b.call<Any>("trm_get_state", { sessionId })).step).toBe(1);
      expect(g(worktreePath, "rev-parse", "HEAD").trim()).toBe(s1.commit);
      expect(g(worktreePath, "status", "--porcelain", "--untracked-files=all")).toBe("");
      expect(existsSync(path.join(worktreePath, "deep"))).toBe(false);
      expect(g(worktreePath, "show", "HEAD:src/stats.js")).toBe("export const x = 1;\n");
      const r = await b.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("after.txt", "after\n") });
      expect(r.step).toBe(2);
      await b.close();
      expect(g(worktreePath, "status", "--porcelain")).toBe("");
      expect(checkoutState(repo)).toEqual(before);
    });
  }
});
