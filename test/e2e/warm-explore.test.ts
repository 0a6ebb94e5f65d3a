import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startServer } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { makeRepo, tmpDir } from "../helpers/repo.js";

type Any = Record<string, any>;
const alive = (pid: number) => {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
};
const shellsIn = (dir: string): number[] => {
  let out = "";
  try {
    out = execFileSync("pgrep", ["-f", "__trm_c_"], { encoding: "utf8" });
  } catch {
    return [];
  }
  const real = realpathSync(dir);
  return out.trim().split("\n").map(Number).filter((pid) => {
    try {
      return readlinkSync(`/proc/${pid}/cwd`) === real;
    } catch {
      return false;
    }
  });
};
const until = async (check: () => boolean) => {
  for (let i = 0; i < 250 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
};

describe("explore", () => {
  it("crash during a warm run", async () => {
    const repo = makeRepo("js-stats");
    const stateDir = tmpDir("trm-state-");
    const flag = path.join(stateDir, "slow");
    const pidFile = path.join(stateDir, "pid");
    const a = await startServer({ stateDir });
    const { sessionId, worktreePath } = await a.call<Any>("trm_start_session", { repoPath: repo, buildCmd: "true", testCmd: `if test -f ${flag}; then echo $$ > ${pidFile}; sleep 300; fi`, lintCmd: "true" });
    await a.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", "export const a = 1;\n") });
    await until(() => shellsIn(worktreePath).length === 3);
    const waiting = shellsIn(worktreePath);
    expect(waiting).toHaveLength(3);
    execFileSync("touch", [flag]);
    const pending = a.call("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", "export const a = 2;\n") }).catch((e: Error) => e);
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"));
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(waiting).toContain(pid);
    const t = Date.now();
    process.kill(a.pid!, "SIGKILL");
    await pending;
    await until(() => waiting.filter((p) => p !== pid).every((p) => !alive(p)));
    console.log("others", waiting.map((p) => [p, alive(p)]), Date.now() - t);
    expect(alive(pid)).toBe(true);
    const b = await startServer({ stateDir });
    await b.call<Any>("trm_get_state", { sessionId });
    await until(() => !alive(pid));
    expect(alive(pid)).toBe(false);
    const bp = b.pid!;
    const t2 = Date.now();
    await b.close();
    await until(() => !alive(bp));
    console.log("b exit", Date.now() - t2, alive(bp));
  });

  it("stdin close after warm shells", async () => {
    const repo = makeRepo("js-stats");
    const a = await startServer();
    const { sessionId, worktreePath } = await a.call<Any>("trm_start_session", { repoPath: repo, buildCmd: "true", testCmd: "true", lintCmd: "true" });
    await a.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", "export const a = 1;\n") });
    await until(() => shellsIn(worktreePath).length === 3);
    const waiting = shellsIn(worktreePath);
    const pid = a.pid!;
    const t = Date.now();
    a.client.transport?.close?.();
    await a.close();
    await until(() => !alive(pid));
    console.log("exit after", Date.now() - t, alive(pid), waiting.map(alive));
  });
});
