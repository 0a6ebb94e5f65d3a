import { describe, expect, it } from "vitest";
import { SessionManager } from "../../../src/session/manager.js";
import { startSession } from "../../../src/session/start.js";
import { makeRepo, tmpDir } from "../../helpers/repo.js";

describe("SessionManager after a restart", () => {
  it("gives parallel callers the same Session, so calls on it share one mutex", async () => {
    process.env.CODE_TRM_STATE_DIR = tmpDir("trm-state-");
    const repo = makeRepo("js-stats");
    const { session } = await startSession({ repoPath: repo, testCmd: "true" }, {});
    const fresh = new SessionManager(); // what a restarted server starts with
    const [a, b, c] = await Promise.all([fresh.get(session.id), fresh.get(session.id), fresh.list(repo).then((l) => l[0])]);
    expect(a).toBe(b);
    expect(a).toBe(c);
    expect(a).not.toBe(session);
    await session.end(true);
  });
});
