import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startServer } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { alive, shellsAfterFirstStep, until } from "../helpers/processes.js";
import { checkoutState, makeRepo, tmpDir } from "../helpers/repo.js";

type Any = Record<string, any>;

describe.runIf(process.platform === "linux")("shells started ahead, when their server goes away", () => {
  it("a server killed while a command runs in one: the others exit at once, and the next server kills the command", async () => {
    const repo = makeRepo("js-stats");
    const before = checkoutState(repo);
    const stateDir = tmpDir("trm-state-");
    const flag = path.join(stateDir, "slow");
    const pidFile = path.join(stateDir, "pid");
    const a = await startServer({ stateDir });
    const { sessionId, worktreePath } = await a.call<Any>("trm_start_session", { repoPath: repo, buildCmd: "true", testCmd: `if test -f ${flag}; then echo $$ > ${pidFile}; sleep 300; fi`, lintCmd: "true" });
    const waiting = await shellsAfterFirstStep(a, sessionId, worktreePath);
    expect(waiting).toHaveLength(3);
    execFileSync("touch", [flag]);
    const pending = a.call("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", "export const a = 2;\n") }).catch((e: Error) => e);
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"));
    // The test command runs in one of the shells that waited.
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(waiting).toContain(pid);
    process.kill(a.pid!, "SIGKILL");
    await pending;
    await until(() => waiting.filter((p) => p !== pid).every((p) => !alive(p)));
    expect(waiting.filter((p) => p !== pid && alive(p))).toEqual([]);
    // The command itself outlives its server, as a freshly spawned one would, until the next server.
    expect(alive(pid)).toBe(true);
    const b = await startServer({ stateDir });
    await b.call<Any>("trm_get_state", { sessionId });
    await until(() => !alive(pid));
    expect(alive(pid)).toBe(false);
    await b.call("trm_end_session", { sessionId, discard: true });
    expect(checkoutState(repo)).toEqual(before);
    await b.close();
  });

  it("a server whose input closes exits and takes its waiting shells with it", async () => {
    const repo = makeRepo("js-stats");
    const a = await startServer();
    const { sessionId, worktreePath } = await a.call<Any>("trm_start_session", { repoPath: repo, buildCmd: "true", testCmd: "true", lintCmd: "true" });
    const waiting = await shellsAfterFirstStep(a, sessionId, worktreePath);
    expect(waiting).toHaveLength(3);
    const pid = a.pid!;
    await a.close();
    await until(() => !alive(pid) && waiting.every((p) => !alive(p)));
    expect(alive(pid)).toBe(false);
    expect(waiting.filter(alive)).toEqual([]);
  });
});
