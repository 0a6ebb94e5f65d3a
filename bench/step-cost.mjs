// What a step costs code-trm itself, over MCP stdio as a client sees it: submit latency with three `true`
// commands (build, test, lint), the commands' own wall time and the difference (the overhead), at several
// repository sizes and history lengths; and session start against a plain `git worktree add` of the same
// repository. Everything of one size is interleaved (worktree add / start alternate; submits alternate
// between sessions and builds) so that load from other processes hits every figure alike.
// Run: npm run build && node bench/step-cost.mjs [sizes=500,5000,50000] [histories=10,200] [submits=15] [thinkMs=0]
// thinkMs: pause between a reply and the next submit (a client reads the reply before it sends another;
// work deferred after the reply is then not waited for). TRM_BENCH_DIST=label=folder,label=folder compares
// builds in one run (e.g. a copy of dist/ made before a change); default: this checkout's dist/.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { git, makeRepo, median } from "./generated-repo.mjs";

const SIZES = (process.argv[2] ?? "500,5000,50000").split(",").map(Number);
const HISTORIES = (process.argv[3] ?? "10,200").split(",").map(Number);
const SUBMITS = Number(process.argv[4] ?? 15);
const THINK_MS = Number(process.argv[5] ?? 0);
const ROOT = path.resolve(import.meta.dirname, "..");
const BUILDS = (process.env.TRM_BENCH_DIST ?? `this=${path.join(ROOT, "dist")}`).split(",").map((x) => x.split("="));
const f1 = (x) => x.toFixed(1).padStart(8);
const pause = (msec) => new Promise((r) => setTimeout(r, msec));


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
const commands = { buildCmd: "true", testCmd: "true", lintCmd: "true" };
let counter = 0;
const submit = (b, sessionId) =>
  b.call("trm_submit_candidate", { sessionId, candidate: { mode: "files", files: [{ path: "src/m0/s0/f0.js", content: `export const v = ${++counter};\n` }] } });

console.log(`load: ${execFileSync("uptime", { encoding: "utf8" }).trim()}; submits ${SUBMITS} per cell, think time ${THINK_MS} ms`);
console.log("build    | files  | start ms (worktree add ms, ratio)   | history | submit ms | commands ms | overhead ms (medians)");
for (const files of SIZES) {
  const repo = makeRepo(files, { prefix: "trm-bench-cost-", dirs: 100, subdirs: 7 });
  const rounds = files >= 50_000 ? 3 : 5;
  const plain = [];
  const starts = builds.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (const [k, b] of builds.entries()) {
      const wt = path.join(os.tmpdir(), `trm-bench-wt-${process.pid}-${i}`);
      let t = performance.now();
      git(repo, "worktree", "add", "-q", "--detach", wt, "HEAD");
      plain.push(performance.now() - t);
      git(repo, "worktree", "remove", "--force", wt);
      await pause(1000);
      t = performance.now();
      const { sessionId } = await b.call("trm_start_session", { repoPath: repo, ...commands });
      starts[k].push(performance.now() - t);
      await b.call("trm_end_session", { sessionId, discard: true });
      await pause(1000);
    }
  }
  // One session per build and history length, grown to that length, then measured in alternation.
  const cells = [];
  for (const b of builds) {
    for (const h of HISTORIES) {
      const { sessionId } = await b.call("trm_start_session", { repoPath: repo, ...commands });
      for (let i = 0; i < h; i++) await submit(b, sessionId);
      cells.push({ b, h, sessionId, lat: [], cmd: [] });
    }
  }
  for (let i = 0; i < SUBMITS; i++) {
    for (const c of cells) {
      await pause(THINK_MS);
      const t = performance.now();
      const r = await submit(c.b, c.sessionId);
      c.lat.push(performance.now() - t);
      c.cmd.push(r.commandsMs);
    }
  }
  const pl = median(plain);
  for (const c of cells) {
    const over = c.lat.map((x, i) => x - c.cmd[i]);
    const st = median(starts[builds.indexOf(c.b)]);
    const head = c.h === HISTORIES[0] ? `${f1(st)} (${f1(pl)}, ${(st / pl).toFixed(2)}x)` : "".padEnd(30);
    console.log(`${c.b.label.padEnd(8)} | ${String(files).padEnd(6)} | ${head.padEnd(35)} | ${String(c.h).padStart(7)} | ${f1(median(c.lat))}  | ${f1(median(c.cmd))}    | ${f1(median(over))}`);
    await c.b.call("trm_end_session", { sessionId: c.sessionId, discard: true });
  }
  rmSync(repo, { recursive: true, force: true });
}
console.log(`load: ${execFileSync("uptime", { encoding: "utf8" }).trim()}`);
for (const b of builds) await b.client.close();
