import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, tmpEnv } from "../helpers/client.js";
import { filesCandidate, MEDIAN_RIGHT, statsWith } from "../helpers/fixtures.js";
import { checkoutState, g, makeRepo, ROOT } from "../helpers/repo.js";

type Any = Record<string, any>;
const MAIN = path.join(ROOT, "dist", "cli", "main.js");
let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

function cli(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [MAIN, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...tmpEnv(), PATH: process.env.PATH ?? "", HOME: cwd, CODE_TRM_STATE_DIR: srv.stateDir, GIT_CONFIG_NOSYSTEM: "1" },
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

async function fixedSession(repo: string) {
  const { sessionId } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
  const s1 = await srv.call<Any>("trm_submit_candidate", {
    sessionId,
    candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)),
    rationale: "fix median",
  });
  return { id: sessionId as string, commit: s1.commit as string };
}

describe("code-trm apply merges with the user's uncommitted edits", () => {
  it("merges edits to other lines of the same file, writing the working tree only", async () => {
    const repo = makeRepo("js-stats");
    const { id, commit } = await fixedSession(repo);
    const file = path.join(repo, "src/stats.js");
    // Made after the session started, so the baseline does not have it.
    writeFileSync(file, readFileSync(file, "utf8").replace("return xs.reduce((a, b) => a + b, 0);", "return xs.reduce((a, b) => a + b, 0); // mine"));
    const before = checkoutState(repo);
    const dry = cli(repo, "apply", id, "--dry-run");
    expect(dry.code, dry.err).toBe(0);
    expect(checkoutState(repo)).toEqual(before);
    const r = cli(repo, "apply", id);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/ M src\/stats\.js \(merged with your uncommitted changes\)/);
    const want = g(repo, "show", `${commit}:src/stats.js`).replace("return xs.reduce((a, b) => a + b, 0);", "return xs.reduce((a, b) => a + b, 0); // mine");
    expect(readFileSync(file, "utf8")).toBe(want);
    const after = checkoutState(repo);
    for (const k of ["index", "head", "headCommit", "refs", "stash"] as const) expect(after[k]).toEqual(before[k]);
  });

  it("refuses a real conflict, naming the lines, and changes nothing", async () => {
    const repo = makeRepo("js-stats");
    const { id } = await fixedSession(repo);
    const file = path.join(repo, "src/stats.js");
    writeFileSync(file, readFileSync(file, "utf8").replace("return s[Math.floor(s.length / 2)];", "return s[(s.length / 2) | 0];"));
    const before = checkoutState(repo);
    const r = cli(repo, "apply", id);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/Refused: 1 file[\s\S]*\n  src\/stats\.js: conflict at your lines? 11(-12)?\nNothing was changed\./);
    expect(checkoutState(repo)).toEqual(before);
  });

  it("prints apply commands that run as printed, from any folder", async () => {
    const repo = makeRepo("js-stats");
    const { id } = await fixedSession(repo);
    const end = await srv.call<Any>("trm_end_session", { sessionId: id });
    // The test server's PATH has no code-trm: the printed form is node with the absolute path of the CLI.
    const line = (end.howToApply as string[]).find((l) => l.includes(" apply "))!;
    expect(line.startsWith(`node ${MAIN} apply ${id}`)).toBe(true);
    const cmd = line.split("   #")[0]!;
    // From outside the checkout: the line names it (--repo).
    const r = spawnSync("sh", ["-c", cmd], {
      cwd: path.dirname(repo),
      encoding: "utf8",
      env: { ...tmpEnv(), PATH: process.env.PATH ?? "", HOME: repo, CODE_TRM_STATE_DIR: srv.stateDir },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^applied session/);
  });
});
