import { describe, expect, it } from "vitest";
import { startServer } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { g, makeRepo } from "../helpers/repo.js";

type Any = Record<string, any>;

describe("trm_read_log of a step whose outputs were kept in its record only", () => {
  it("still reads them after the record note was appended to by hand (no longer JSON)", async () => {
    const repo = makeRepo("js-stats");
    const srv = await startServer();
    const { sessionId } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "cat src/stats.js", lintCmd: "echo lint" });
    const s1 = await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", "A\n") });
    g(repo, "notes", `--ref=trm/${sessionId}`, "append", "-m", "reviewed by me", s1.commit ?? g(repo, "rev-parse", `trm/${sessionId}`).trim());
    const r = await srv.raw("trm_read_log", { sessionId, at: "1", command: "test" });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ command: "test", content: "A\n" });
    await srv.close();
  }, 120_000);
});

describe("trm_read_log of the baseline's preflight", () => {
  it("reads outputs the baseline's record holds whole, with no logs note written for them", async () => {
    const repo = makeRepo("js-stats");
    const srv = await startServer();
    const { sessionId } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "cat src/stats.js", lintCmd: "echo lint", preflight: true });
    // No logs ref at all: the preflight is the session's only evaluation so far.
    expect(g(repo, "for-each-ref", `refs/notes/trm-logs/${sessionId}`).trim()).toBe("");
    const r = await srv.raw("trm_read_log", { sessionId, at: "0", command: "lint" });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ command: "lint", content: "lint\n" });
    await srv.close();
  }, 120_000);
});
