// What moving through a session's history costs, over MCP stdio as a client sees it: trm_undo,
// trm_restore_checkpoint (to a checkpoint on the current history, and to one the session left) and
// trm_reset_to_baseline, each after a pause (a client reads the reply first), at several repository
// sizes. Every step changes the same three files, so a move writes three files whatever the size.
// Run: npm run build && node bench/moves.mjs [sizes=500,5000,50000] [rounds=7] [gapMs=250]
// On a real repository instead: TRM_BENCH_REPO and TRM_BENCH_PATHS (generated-repo.mjs benchRepos).
// TRM_BENCH_DIST=label=folder,label=folder compares builds in one run, alternating (as step-cost.mjs).
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { benchRepos, makeRepo, median, pause } from "./generated-repo.mjs";

const SIZES = (process.argv[2] ?? "500,5000,50000").split(",").map(Number);
const ROUNDS = Number(process.argv[3] ?? 7);
const GAP_MS = Number(process.argv[4] ?? 250);
const ROOT = path.resolve(import.meta.dirname, "..");
const BUILDS = (process.env.TRM_BENCH_DIST ?? `this=${path.join(ROOT, "dist")}`).split(",").map((x) => x.split("="));
const f1 = (x) => x.toFixed(1).padStart(8);

const builds = [];
for (const [label, dist] of BUILDS) {
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(dist, "cli/main.js")], stderr: "ignore" }));
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 900_000 });
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  };
  builds.push({ label, client, call });
}
let stepPaths = [];
const files = (v) => ({ mode: "files", files: stepPaths.slice(0, 3).map((p) => ({ path: p, content: `export const v = ${v};\n` })) });
const OPS = ["undo", "restore", "restore-left", "reset"];

console.log(`load: ${execFileSync("uptime", { encoding: "utf8" }).trim()}; ${ROUNDS} rounds, gap ${GAP_MS} ms`);
console.log(`build    | files  | ${OPS.map((o) => o.padStart(12)).join(" | ")}   (median ms)`);
for (const { size, repo, paths, own } of benchRepos(SIZES, (n) => makeRepo(n, { prefix: "trm-bench-moves-", dirs: 100, subdirs: 7 }))) {
  stepPaths = paths;
  const cells = [];
  for (const b of builds) {
    const { sessionId } = await b.call("trm_start_session", { repoPath: repo, testCmd: "true" });
    for (let i = 1; i <= 10; i++) {
      await b.call("trm_submit_candidate", { sessionId, candidate: files(i) });
      if (i === 5) await b.call("trm_save_checkpoint", { sessionId, name: "five" });
    }
    await b.call("trm_save_checkpoint", { sessionId, name: "ten" });
    cells.push({ b, sessionId, times: Object.fromEntries(OPS.map((o) => [o, []])) });
  }
  const timed = async (c, op, name, args) => {
    await pause(GAP_MS);
    const t = performance.now();
    await c.b.call(name, { sessionId: c.sessionId, ...args });
    c.times[op].push(performance.now() - t);
  };
  for (let i = 0; i < ROUNDS; i++) {
    for (const c of cells) {
      // At step 10: undo to 9, back to 10 (a cached step: no command runs), to the checkpoint at 5,
      // to the one at 10 (left by that restore), to the baseline, and to 10 again.
      await timed(c, "undo", "trm_undo", {});
      await c.b.call("trm_submit_candidate", { sessionId: c.sessionId, candidate: files(10) });
      await timed(c, "restore", "trm_restore_checkpoint", { name: "five" });
      await timed(c, "restore-left", "trm_restore_checkpoint", { name: "ten" });
      await timed(c, "reset", "trm_reset_to_baseline", {});
      await c.b.call("trm_restore_checkpoint", { sessionId: c.sessionId, name: "ten" });
    }
  }
  for (const c of cells) {
    console.log(`${c.b.label.padEnd(8)} | ${String(size).padEnd(6)} | ${OPS.map((o) => f1(median(c.times[o])).padStart(12)).join(" | ")}`);
    await c.b.call("trm_end_session", { sessionId: c.sessionId, discard: true });
  }
  if (own) rmSync(repo, { recursive: true, force: true });
}
console.log(`load: ${execFileSync("uptime", { encoding: "utf8" }).trim()}`);
for (const b of builds) await b.client.close();
