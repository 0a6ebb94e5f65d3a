import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, textOf } from "../helpers/client.js";
import { filesCandidate, MEDIAN_RIGHT, statsWith } from "../helpers/fixtures.js";
import { makeRepo } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

describe("evaluation signals and raw logs", () => {
  it("scores extra checks with their weights next to the tests", async () => {
    const repo = makeRepo("js-stats");
    const s = await srv.call<Any>("trm_start_session", {
      repoPath: repo,
      testCmd: "node --test",
      weights: { test: 0.5 },
      checks: [
        { name: "data", cmd: "test -f package.json", weight: 0.5 },
        { name: "security", cmd: "echo 'found a hard-coded key'; exit 1", weight: 0.5 },
      ],
      preflight: true,
    });
    // (0.5 * 3/4 + 0.5 * 1 + 0.5 * 0) / 1.5
    expect(s.preflight.score).toBeCloseTo(0.875 / 1.5, 6);
    expect(s.preflight.commands.map((c: Any) => [c.kind, c.ok])).toEqual([
      ["test", false],
      ["check:data", true],
      ["check:security", false],
    ]);
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)) });
    expect(r.score).toBeCloseTo(1 / 1.5, 6);
    expect(r.feedback).toMatch(/check:security FAILED/);
    expect(r.feedback).toMatch(/found a hard-coded key/);
    const dup = await srv.raw("trm_start_session", {
      repoPath: repo,
      checks: [
        { name: "a", cmd: "true", weight: 1 },
        { name: "a", cmd: "true", weight: 1 },
      ],
    });
    expect(textOf(dup)).toMatch(/Two checks are named a/);
  });

  it("reads test counts from a JUnit report file, not from a stale one", async () => {
    const repo = makeRepo("js-stats");
    const s = await srv.call<Any>("trm_start_session", {
      repoPath: repo,
      testCmd: "node --test --test-reporter=junit --test-reporter-destination=reports/junit.xml",
      testReport: "reports/junit.xml",
      preflight: true,
    });
    expect(s.preflight.tests).toMatchObject({ passed: 3, failed: 1, total: 4, format: expect.stringMatching(/junit/i) });
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)) });
    expect(r.tests).toMatchObject({ passed: 4, failed: 0, total: 4 });
    // The command stops writing the report: the old file must not be read as this step's result.
    const s2 = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "echo 'ok 1 - only'; echo '1..1'", testReport: "reports/junit.xml" });
    const r2 = await srv.call<Any>("trm_submit_candidate", { sessionId: s2.sessionId, candidate: filesCandidate("a.txt", "a\n") });
    expect(r2.tests).toMatchObject({ passed: 1, total: 1 });
    expect(r2.feedback).toMatch(/did not write the report reports\/junit.xml/);
  });

  it("keeps the full output of every command readable after the bounded feedback", async () => {
    const repo = makeRepo("js-stats");
    const noisy = "for i in $(seq 1 3000); do echo \"src/f$i.ts($i,1): error TS2304: Cannot find name 'x$i'.\"; done; echo END-OF-LOG; exit 2";
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, buildCmd: noisy, testCmd: "node --test" });
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("a.txt", "a\n") });
    expect(r.feedback.length).toBeLessThan(5000);
    expect(r.feedback).not.toContain("END-OF-LOG");
    expect(r.diagnostics.length).toBe(3000);
    const log = await srv.call<Any>("trm_read_log", { sessionId: s.sessionId, offset: 0, limit: 200_000 });
    expect(log.command).toBe("build");
    expect(log.available.map((a: Any) => a.command)).toEqual(["build"]);
    expect(log.content).toContain("END-OF-LOG");
    expect(log.content).toContain("Cannot find name 'x1'.");
    const slice = await srv.call<Any>("trm_read_log", { sessionId: s.sessionId, command: "build", offset: 10, limit: 50 });
    expect(slice).toMatchObject({ offset: 10, truncated: true });
    expect(slice.content).toHaveLength(50);
    expect((await srv.raw("trm_read_log", { sessionId: s.sessionId, command: "lint" })).isError).toBe(true);
  });

  it("scores a bench where higher is better", async () => {
    const repo = makeRepo("js-stats");
    const s = await srv.call<Any>("trm_start_session", {
      repoPath: repo,
      benchCmd: "cat score.txt 2>/dev/null || echo 100",
      perfDirection: "higher",
      preflight: true,
    });
    expect(s.preflight.perf).toEqual({ value: 100, score: 1 });
    const worse = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("score.txt", "ops/s: 80\n") });
    expect(worse.perf).toEqual({ value: 80, score: 0.8 });
    const better = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("score.txt", '{"value": 120}\n') });
    expect(better.perf).toEqual({ value: 120, score: 1 });
    expect(better.improved).toBe(false); // 1.0 equals the baseline's 1.0: no improvement
  });
});
