import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, tmpEnv } from "../helpers/client.js";
import { filesCandidate, MEDIAN_RIGHT, statsWith } from "../helpers/fixtures.js";
import { checkoutState, g, makeRepo, ROOT } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

function cli(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [path.join(ROOT, "dist", "cli", "main.js"), ...args], {
    cwd,
    encoding: "utf8",
    env: { ...tmpEnv(), PATH: process.env.PATH ?? "", HOME: cwd, CODE_TRM_STATE_DIR: srv.stateDir, GIT_CONFIG_NOSYSTEM: "1" },
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("the session's history in plain git", () => {
  it("step commits carry the whole rationale and a trailer per check; notes commits say what they are", async () => {
    const repo = makeRepo("js-stats");
    const before = checkoutState(repo);
    const { sessionId: id } = await srv.call<Any>("trm_start_session", {
      repoPath: repo,
      testCmd: "node --test",
      // "noisy" prints more than the record keeps (64 KiB), so the step gets a logs note too.
      checks: [
        { name: "has-manifest", cmd: "test -f package.json", weight: 0.1 },
        { name: "no_todo", cmd: "! grep -rq TODO src", weight: 0.1 },
        { name: "noisy", cmd: "seq 1 20000", weight: 0.1 },
      ],
    });
    const rationale =
      "Median of an even-length list is the mean of the two middle elements, not the upper one; this also fixes the empty list case.\n\nSecond paragraph: why.";
    const s1 = await srv.call<Any>("trm_submit_candidate", {
      sessionId: id,
      candidate: filesCandidate("src/stats.js", `${statsWith(repo, MEDIAN_RIGHT)}// TODO\n`),
      rationale,
    });
    const subject = g(repo, "log", "-1", "--format=%s", s1.commit).trim();
    expect(subject.length).toBeLessThanOrEqual(80);
    expect(subject).toMatch(/^trm step 1: Median of an even-length list is the mean of the two middle\.\.\.$/);
    const body = g(repo, "log", "-1", "--format=%b", s1.commit);
    expect(body).toContain(rationale);
    const trailers = g(repo, "log", "-1", "--format=%(trailers:only,unfold)", s1.commit);
    expect(trailers).toMatch(/^TRM-Check-has-manifest: ok$/m);
    expect(trailers).toMatch(/^TRM-Check-no-todo: fail$/m);
    expect(trailers).toMatch(/^TRM-Tests: 4\/4$/m);
    // No build or lint command configured: no trailer pretending they were skipped.
    expect(trailers).not.toMatch(/TRM-Build|TRM-Lint/);

    await srv.call("trm_get_state", { sessionId: id });
    // Without preflight, a first step whose tests all pass has the baseline's commands run for it first (step 0).
    expect(g(repo, "log", "--format=%s", `refs/notes/trm/${id}`).trim().split("\n")).toEqual([
      "trm: step 1 record",
      "trm: step 0 record (baseline preflight, run for step 1 because it would end the session)",
      "trm: baseline record (session config)",
    ]);
    expect(g(repo, "log", "-1", "--format=%s", `refs/notes/trm-logs/${id}`).trim()).toBe("trm: step 1 logs");
    // The record is still the note of the step.
    expect(JSON.parse(g(repo, "notes", `--ref=trm/${id}`, "show", s1.commit))).toMatchObject({ kind: "step", step: 1 });
    expect(checkoutState(repo)).toEqual(before);
  });

  it("code-trm log lists kept work under 'not on the current history' only when it is not", async () => {
    const repo = makeRepo("js-stats");
    const { sessionId: id } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
    await srv.call("trm_submit_candidate", { sessionId: id, candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)), rationale: "fix" });
    await srv.call("trm_save_checkpoint", { sessionId: id, name: "fixed" });
    const reset = await srv.call<Any>("trm_reset_to_baseline", { sessionId: id });
    // While the fix is off the history, its kept ref is listed.
    expect(cli(repo, "log", id).out).toContain(reset.keptAs);
    await srv.call("trm_restore_checkpoint", { sessionId: id, name: "fixed" });
    const log = cli(repo, "log", id);
    expect(log.code, log.err).toBe(0);
    // Back on the history: the same ref is not "not on the current history" any more.
    expect(log.out).not.toContain(reset.keptAs);
    expect(log.out).not.toMatch(/not on the current history/);
  });
});
