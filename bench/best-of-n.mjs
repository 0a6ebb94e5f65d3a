// Best of N: wall time of one trm_submit_candidate call whose test command sleeps 2 s, for N = 1 (a
// single candidate), 2 and 4 (a batch, maxParallel 4), through the built server over stdio as a client
// calls it. Per-candidate overhead = (wall - 2 s) / N. The first batch, which creates the pool
// worktrees, is reported apart. Target: N = 4 in about the time of N = 1.
// Run after `npm run build`: node bench/best-of-n.mjs [runs]
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const SLEEP_S = 2;
const runs = Number(process.argv[2] ?? 3);
const root = mkdtempSync(path.join(os.tmpdir(), "trm-bench-bon-"));
const repo = path.join(root, "repo");
const g = (...a) => execFileSync("git", a, { cwd: repo, encoding: "utf8" });
execFileSync("mkdir", ["-p", repo]);
writeFileSync(path.join(repo, "a.txt"), "a\n");
g("init", "-q", "-b", "main");
g("add", "-A");
g("-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "init");

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [path.join(import.meta.dirname, "..", "dist", "cli", "main.js")],
  env: { PATH: process.env.PATH ?? "", HOME: root, CODE_TRM_STATE_DIR: path.join(root, "state"), GIT_CONFIG_NOSYSTEM: "1" },
  stderr: "ignore",
});
const client = new Client({ name: "trm-bench", version: "0" });
await client.connect(transport);
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
  if (r.isError) throw new Error(r.content[0].text);
  return r.structuredContent;
};

try {
  const { sessionId } = await call("trm_start_session", { repoPath: repo, testCmd: `sleep ${SLEEP_S}` });
  let n = 0;
  // Every candidate is a tree never seen before, so no evaluation comes from the cache.
  const fresh = () => ({ mode: "files", files: [{ path: "x.txt", content: `${++n}\n` }] });
  const submit = async (N) => {
    const t = performance.now();
    if (N === 1) await call("trm_submit_candidate", { sessionId, candidate: fresh() });
    else await call("trm_submit_candidate", { sessionId, maxParallel: 4, candidates: Array.from({ length: N }, () => ({ candidate: fresh() })) });
    return performance.now() - t;
  };
  const first = await submit(4);
  console.log(`first batch of 4 (creates the 4 pool worktrees): ${Math.round(first)} ms`);
  for (const N of [1, 2, 4]) {
    const walls = [];
    for (let i = 0; i < runs; i++) walls.push(await submit(N));
    const median = walls.sort((a, b) => a - b)[Math.floor(runs / 2)];
    const over = (median - SLEEP_S * 1000) / N;
    console.log(
      `N=${N}: wall ${Math.round(median)} ms (median of ${runs}; each candidate's test sleeps ${SLEEP_S * 1000} ms) = ${(median / (SLEEP_S * 1000)).toFixed(2)}x one sleep; overhead ${Math.round(over)} ms per candidate`,
    );
  }
  await call("trm_end_session", { sessionId, discard: true });
} finally {
  await client.close();
  rmSync(root, { recursive: true, force: true });
}
