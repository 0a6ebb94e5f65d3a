import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, textOf, tmpEnv } from "../helpers/client.js";
import { filesCandidate, MEDIAN_RIGHT } from "../helpers/fixtures.js";
import { checkoutState, g, makeMessy, makeRepo, ROOT, tmpDir } from "../helpers/repo.js";

type Any = Record<string, any>;
const BIN = path.join(ROOT, "dist", "cli", "main.js");

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
  // Listed first, so the client checks every answer against the tool's declared output schema.
  await srv.client.listTools();
});
afterAll(async () => {
  await srv.close();
});

const SUM_RIGHT = "export function sum(xs) {\n  return xs.reduce((a, b) => a + b, 0);\n}\n";
const SUM_WRONG = "export function sum(xs) {\n  return 0;\n}\n";
const MEAN = "\nexport function mean(xs) {\n  return xs.length === 0 ? NaN : sum(xs) / xs.length;\n}\n\n";
const stats = (sum: string, median: string) => `${sum}${MEAN}${median}`;
const MEDIAN_BASE = "export function median(xs) {\n  const s = [...xs].sort((a, b) => a - b);\n  return s[Math.floor(s.length / 2)];\n}\n";

/** js-stats with sum broken too: sum, mean and even median fail (1/4 pass). */
function brokenRepo(): string {
  const repo = makeRepo("js-stats");
  writeFileSync(path.join(repo, "src/stats.js"), stats(SUM_WRONG, MEDIAN_BASE));
  g(repo, "commit", "-qam", "break sum");
  return repo;
}

const start = async (repo: string, extra: Any = {}) =>
  (await srv.call<Any>("trm_start_session", { repoPath: repo, buildCmd: "node --check src/stats.js", testCmd: "node --test", ...extra })) as Any;

function cli(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...tmpEnv(), PATH: process.env.PATH ?? "", HOME: tmpDir("trm-home-"), CODE_TRM_STATE_DIR: srv.stateDir, GIT_CONFIG_NOSYSTEM: "1" },
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("best of N", () => {
  it("records the best of three as the step, keeps the others as commits, reads, adopts and survives a restart", async () => {
    const repo = brokenRepo();
    makeMessy(repo, "src/stats.js");
    const before = checkoutState(repo);
    const s = await start(repo);
    const id = s.sessionId as string;
    await srv.call("trm_submit_candidate", { sessionId: id, candidate: filesCandidate("a.txt", "a\n"), rationale: "one" });
    const s2 = await srv.call<Any>("trm_submit_candidate", { sessionId: id, candidate: filesCandidate("b.txt", "b\n"), rationale: "two" });
    const uncommitted = readFileSync(path.join(s.worktreePath, "src/stats.js"), "utf8");

    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId: id,
      maxParallel: 3,
      candidates: [
        { candidate: filesCandidate("src/stats.js", "export function sum(xs) {\n  return (\n}\n"), rationale: "breaks the build" },
        { candidate: filesCandidate("src/stats.js", stats(SUM_RIGHT, MEDIAN_BASE)), rationale: "fix sum" },
        { candidate: filesCandidate("src/stats.js", stats(SUM_RIGHT, MEDIAN_RIGHT)), rationale: "fix sum and median" },
      ],
    });
    expect(r).toMatchObject({ step: 3, score: 1 });
    expect(r.candidates.map((c: Any) => [c.at, c.verdict])).toEqual([
      ["3.1", "kept"],
      ["3.2", "kept"],
      ["3.3", "chosen"],
    ]);
    expect(r.candidates[0].score).toBe(0);
    expect(r.candidates[0].feedback).toMatch(/build FAILED/);
    expect(r.candidates[1].score).toBeGreaterThan(0.5);
    expect(r.candidates[1].score).toBeLessThan(1);
    expect(r.candidates[1].feedback).toMatch(/tests 3\/4 passed, 1 failed/);
    expect(r.feedback).toMatch(/^step 3: score 1\.00/m);

    // The step is recorded as a single submit records it; the session worktree holds the winner.
    const wt = s.worktreePath as string;
    expect(readFileSync(path.join(wt, "src/stats.js"), "utf8")).toBe(stats(SUM_RIGHT, MEDIAN_RIGHT));
    // Its index follows after the reply; the next operation waits for it.
    await srv.call<Any>("trm_get_state", { sessionId: id });
    expect(g(wt, "status", "--porcelain", "--untracked-files=no")).toBe("");
    expect(g(repo, "rev-parse", `trm/${id}`).trim()).toBe(r.commit);
    expect(g(repo, "log", "-1", "--format=%s", r.commit).trim()).toBe("trm step 3: fix sum and median");

    // The others: plain commits on the same parent, with their evaluation note, under the alternatives refs.
    const alt = (k: number) => g(repo, "rev-parse", `refs/trm/${id}/alternatives/3/${k}`).trim();
    expect(alt(3)).toBe(r.commit);
    for (const k of [1, 2]) {
      expect(g(repo, "rev-parse", `${alt(k)}^`).trim()).toBe(s2.commit);
      const note = JSON.parse(g(repo, "notes", `--ref=trm/${id}`, "show", alt(k)));
      expect(note).toMatchObject({ kind: "step", step: 3, score: r.candidates[k - 1].score });
    }
    expect(g(repo, "show", `${alt(1)}:src/stats.js`)).toContain("return (");
    expect(g(repo, "log", "-1", "--format=%s", alt(2)).trim()).toBe("trm step 3 alternative 2: fix sum");

    // Readable and comparable by `at`.
    const files = await srv.call<Any>("trm_read_files", { sessionId: id, paths: ["src/stats.js"], at: "3.2" });
    expect(files.files[0].content).toBe(stats(SUM_RIGHT, MEDIAN_BASE));
    const d = await srv.call<Any>("trm_diff", { sessionId: id, from: "3.2", to: "current" });
    expect(d.from).toBe("alternative 3.2");
    expect(d.files.map((f: Any) => f.path)).toEqual(["src/stats.js"]);
    expect(d.diff).toContain("+  const mid = Math.floor(s.length / 2);");
    const missing = await srv.raw("trm_read_files", { sessionId: id, paths: ["src/stats.js"], at: "3.9" });
    expect(textOf(missing)).toMatch(/No alternative 3\.9/);
    expect((await srv.raw("trm_save_checkpoint", { sessionId: id, name: "3.2" })).isError).toBe(true);

    // `code-trm log` lists the candidates under their step.
    const log = cli(repo, "log", id);
    expect(log.code).toBe(0);
    expect(log.out).toMatch(
      /\n\s*3\s+\S+[^\n]*fix sum and median[^\n]*\n\s*3\.1\s[^\n]*breaks the build\n\s*3\.2\s[^\n]*fix sum\n\s*3\.3\s[^\n]*\(chosen\) fix sum and median\n/,
    );
    const logJson = JSON.parse(cli(repo, "log", id, "--json").out);
    expect(logJson.steps.find((x: Any) => x.step === 3).alternatives.map((a: Any) => [a.at, a.chosen])).toEqual([
      ["3.1", false],
      ["3.2", false],
      ["3.3", true],
    ]);

    // Adopting the second: one move, like restoring a checkpoint; the replaced step stays reachable.
    const adopted = await srv.call<Any>("trm_restore_checkpoint", { sessionId: id, name: "3.2" });
    expect(adopted).toMatchObject({ restored: "alternative 3.2", step: 3, score: r.candidates[1].score, commit: alt(2), bestScore: 1, bestStep: 3 });
    expect(g(repo, "rev-parse", adopted.keptAs).trim()).toBe(r.commit);
    expect(readFileSync(path.join(wt, "src/stats.js"), "utf8")).toBe(stats(SUM_RIGHT, MEDIAN_BASE));
    const undone = await srv.call<Any>("trm_undo", { sessionId: id });
    expect(undone).toMatchObject({ step: 2, commit: s2.commit });
    expect(readFileSync(path.join(wt, "src/stats.js"), "utf8")).toBe(uncommitted);
    const back = await srv.call<Any>("trm_restore_checkpoint", { sessionId: id, name: "3.3" });
    expect(back).toMatchObject({ step: 3, score: 1, commit: r.commit });
    const state = await srv.call<Any>("trm_get_state", { sessionId: id });

    // A new server finds the same state and the alternatives, from git alone.
    const fresh = await startServer();
    await fresh.call("trm_list_sessions", { repoPath: repo });
    expect(await fresh.call<Any>("trm_get_state", { sessionId: id })).toEqual(state);
    const again = await fresh.call<Any>("trm_read_files", { sessionId: id, paths: ["src/stats.js"], at: "3.1" });
    expect(again.files[0].content).toContain("return (");
    const logs = await fresh.call<Any>("trm_read_log", { sessionId: id, at: "3.1", command: "build" });
    expect(logs.content).toMatch(/SyntaxError/);
    await fresh.close();

    // The session's end removes its pool worktrees; nothing of the user's changed; git is sound.
    // Beside the session worktree, in code-trm's folder of the repository (outside .git).
    const poolRoot = path.resolve(s.worktreePath, "..", "..", "pool");
    expect(readdirSync(poolRoot).filter((n) => n.includes(id))).toHaveLength(3);
    await srv.call("trm_end_session", { sessionId: id });
    expect(existsSync(poolRoot) ? readdirSync(poolRoot).filter((n) => n.includes(id)) : []).toEqual([]);
    expect(g(repo, "worktree", "list", "--porcelain")).not.toContain("pool");
    expect(checkoutState(repo)).toEqual(before);
    expect(g(repo, "fsck", "--no-progress", "--no-dangling")).toBe("");
  });

  it("reports a candidate that does not apply, evaluates identical trees once, and reuses the pool", async () => {
    const repo = brokenRepo();
    const before = checkoutState(repo);
    const counter = path.join(tmpDir("trm-count-"), "runs");
    const s = await start(repo, { buildCmd: undefined, testCmd: `echo run >> ${counter}; node --test` });
    const id = s.sessionId as string;
    const fix = filesCandidate("src/stats.js", stats(SUM_RIGHT, MEDIAN_BASE));
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId: id,
      candidates: [
        {
          candidate: { mode: "modify", changes: [{ file: "src/stats.js", edits: [{ type: "replace", oldText: "not in the file", newText: "x" }] }] },
          rationale: "stale",
        },
        { candidate: fix, rationale: "fix sum" },
        { candidate: { mode: "bogus" } },
        { candidate: fix, rationale: "fix sum again" },
      ],
    });
    expect(r.candidates.map((c: Any) => [c.at, c.verdict])).toEqual([
      [null, "rejected"],
      ["1.2", "chosen"],
      [null, "rejected"],
      ["1.4", "kept"],
    ]);
    expect(r.candidates[0].feedback).toMatch(/does not apply/);
    expect(r.candidates[2].feedback).toMatch(/malformed/);
    expect(r.candidates[3].score).toBe(r.candidates[1].score);
    expect(readFileSync(counter, "utf8").trim().split("\n")).toHaveLength(1);

    // A later batch reuses the pool worktrees, reset to the new tip.
    const r2 = await srv.call<Any>("trm_submit_candidate", {
      sessionId: id,
      candidates: [
        { candidate: filesCandidate("src/stats.js", stats(SUM_RIGHT, MEDIAN_RIGHT)), rationale: "median" },
        { candidate: filesCandidate("c.txt", "c\n") },
      ],
      rationale: "shared",
    });
    expect(r2.candidates.map((c: Any) => c.verdict)).toEqual(["chosen", "kept"]);
    expect(r2.score).toBe(1);
    expect(readFileSync(counter, "utf8").trim().split("\n")).toHaveLength(3);
    // The second candidate ran on the new tip, without the first batch's files.
    expect(g(repo, "show", `refs/trm/${id}/alternatives/2/2:src/stats.js`)).toBe(stats(SUM_RIGHT, MEDIAN_BASE));
    // A candidate without a rationale of its own takes the call's.
    expect(g(repo, "log", "-1", "--format=%s", `refs/trm/${id}/alternatives/2/2`).trim()).toBe("trm step 2 alternative 2: shared");
    expect(g(repo, "log", "-1", "--format=%s", `trm/${id}`).trim()).toBe("trm step 2: median");

    for (const bad of [{ candidates: [{ candidate: fix }] }, { candidate: fix, candidates: [{ candidate: fix }, { candidate: fix }] }, {}]) {
      const e = await srv.raw("trm_submit_candidate", { sessionId: id, ...bad });
      expect(e.isError, JSON.stringify(bad)).toBe(true);
    }
    const same = filesCandidate("src/stats.js", stats(SUM_RIGHT, MEDIAN_RIGHT));
    const none = await srv.raw("trm_submit_candidate", { sessionId: id, candidates: [{ candidate: { mode: "bogus" } }, { candidate: same }] });
    expect(textOf(none)).toMatch(/No candidate could be evaluated[\s\S]*changes nothing/);
    expect((await srv.call<Any>("trm_get_state", { sessionId: id })).step).toBe(2);
    await srv.call("trm_end_session", { sessionId: id, discard: true });
    expect(checkoutState(repo)).toEqual(before);
    expect(g(repo, "fsck", "--no-progress", "--no-dangling")).toBe("");
  });

  it("stops every candidate's commands when the client cancels", async () => {
    const repo = brokenRepo();
    const s = await start(repo, { buildCmd: undefined, testCmd: "sleep 29.173" });
    const id = s.sessionId as string;
    const ac = new AbortController();
    const p = srv.call(
      "trm_submit_candidate",
      { sessionId: id, candidates: [{ candidate: filesCandidate("a.txt", "a\n") }, { candidate: filesCandidate("b.txt", "b\n") }] },
      { signal: ac.signal },
    );
    const running = () => Number(spawnSync("pgrep", ["-c", "-f", "sleep 29[.]173"], { encoding: "utf8" }).stdout.trim() || 0);
    for (let i = 0; i < 100 && running() < 2; i++) await new Promise((res) => setTimeout(res, 100));
    // Both candidates' test commands run at once, each in its own pool worktree.
    expect(running()).toBeGreaterThanOrEqual(2);
    ac.abort();
    await expect(p).rejects.toThrow();
    // Nothing recorded, no sleep left running, and the next call works.
    const state = await srv.call<Any>("trm_get_state", { sessionId: id });
    expect(state.step).toBe(0);
    for (let i = 0; i < 50 && running() > 0; i++) await new Promise((res) => setTimeout(res, 100));
    expect(running()).toBe(0);
    await srv.call("trm_end_session", { sessionId: id, discard: true });
  });

  it("after a crash mid-batch: orphans killed, pool worktrees cleaned for the next batch, removed by prune", async () => {
    const repo = brokenRepo();
    const before = checkoutState(repo);
    const crashing = await startServer({ stateDir: srv.stateDir });
    const s = await crashing.call<Any>("trm_start_session", {
      repoPath: repo,
      testCmd: "if [ -f slow ]; then touch leftover; sleep 27.391; fi; if [ -f leftover ]; then exit 3; fi; node --test",
      timeoutSec: 20,
    });
    const id = s.sessionId as string;
    const slow = (content: string) => ({ mode: "files", files: [{ path: "slow", content }] });
    void crashing.call("trm_submit_candidate", { sessionId: id, candidates: [{ candidate: slow("1") }, { candidate: slow("2") }] }).catch(() => undefined);
    const running = () => Number(spawnSync("pgrep", ["-c", "-f", "sleep 27[.]391"], { encoding: "utf8" }).stdout.trim() || 0);
    for (let i = 0; i < 100 && running() < 2; i++) await new Promise((res) => setTimeout(res, 100));
    expect(running()).toBeGreaterThanOrEqual(2);
    process.kill(crashing.pid!, "SIGKILL");
    await crashing.close().catch(() => undefined);

    // The next server to touch the session kills what the dead one left running, in every pool worktree.
    const next = await startServer({ stateDir: srv.stateDir });
    await next.call("trm_list_sessions", { repoPath: repo });
    expect((await next.call<Any>("trm_get_state", { sessionId: id })).step).toBe(0);
    expect(running()).toBe(0);
    // The pool worktrees still hold the dead batch's files (`slow`, and `leftover` that its command made):
    // taken again, they are reset and cleaned first.
    const r = await next.call<Any>("trm_submit_candidate", {
      sessionId: id,
      candidates: [
        { candidate: filesCandidate("src/stats.js", stats(SUM_RIGHT, MEDIAN_BASE)), rationale: "fix sum" },
        { candidate: filesCandidate("src/stats.js", stats(SUM_RIGHT, MEDIAN_RIGHT)), rationale: "fix all" },
      ],
    });
    expect(r.candidates.map((c: Any) => c.score)).toEqual([0.75, 1]);
    await next.close();

    // Abandoned (its worktree deleted by hand, no server): prune removes its pool worktrees too.
    // Beside the session worktree, in code-trm's folder of the repository (outside .git).
    const poolRoot = path.resolve(s.worktreePath, "..", "..", "pool");
    expect(readdirSync(poolRoot).filter((n) => n.includes(id))).toHaveLength(2);
    spawnSync("rm", ["-rf", s.worktreePath]);
    const pruned = cli(repo, "prune");
    expect(pruned.code, pruned.out + pruned.err).toBe(0);
    expect(readdirSync(poolRoot).filter((n) => n.includes(id))).toEqual([]);
    expect(g(repo, "worktree", "list", "--porcelain")).not.toContain("pool");
    expect(checkoutState(repo)).toEqual(before);
    expect(g(repo, "fsck", "--no-progress", "--no-dangling")).toBe("");
  });
});
