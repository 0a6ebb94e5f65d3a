import { expect, describe, it } from "vitest";
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
