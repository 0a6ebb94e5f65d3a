// What a step costs code-trm itself, over MCP stdio as a client sees it: submit latency with three `true`
// commands (build, test, lint), the commands' own wall time and the difference (the overhead), at several
// repository sizes and history lengths; and session start against a plain `git worktree add` of the same
// repository. Everything of one size is interleaved (worktree add / start alternate; submits alternate
// between sessions and builds) so that load from other processes hits every figure alike.
// Run: npm run build && node bench/step-cost.mjs [sizes=500,5000,50000] [histories=10,200] [submits=15] [gapMs=250]
// On a real repository instead: TRM_BENCH_REPO and TRM_BENCH_PATHS (generated-repo.mjs benchRepos).
// Each measured pair is two submits to one session: the first after a pause of gapMs (a client reads the
// reply before it sends another, so work deferred after the reply is done by then: "gap"), the second
// right after the first's reply ("b2b": it may wait for the first's after-reply work). Both are printed.
// TRM_BENCH_DIST=label=folder,label=folder compares builds in one run (e.g. a copy of dist/ made before a
// change); default: this checkout's dist/. TRM_BENCH_PROFILE=1 also prints each cell's median time per
// phase of the server's own CODE_TRM_PROFILE marks (gap and b2b submits apart). TRM_BENCH_START_ROUNDS:
// how many session starts per build to time (default 5, 3 at 50,000 files; 0 skips them); submits=0
// times the starts alone.
// "plain ms" is the honest floor for the commands: the same three commands spawned one after the other by
// this process with node's child_process (as a server that only runs them would), timed after the same
// pause as each mode's submit. "over plain" = submit - plain: code-trm's whole cost, its wrapper around
// each command included (process-group records, orphan sweep), which "commands ms" (the server's own
// wall time from the first spawn to the last exit) counts as the commands'.
import { execFileSync, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { benchRepos, git, makeRepo, median, pause } from "./generated-repo.mjs";

const SIZES = (process.argv[2] ?? "500,5000,50000").split(",").map(Number);
const HISTORIES = (process.argv[3] ?? "10,200").split(",").map(Number);
const SUBMITS = Number(process.argv[4] ?? 15);
const GAP_MS = Number(process.argv[5] ?? 250);
const PROFILE = process.env.TRM_BENCH_PROFILE === "1";
const ROOT = path.resolve(import.meta.dirname, "..");
const BUILDS = (process.env.TRM_BENCH_DIST ?? `this=${path.join(ROOT, "dist")}`).split(",").map((x) => x.split("="));
const f1 = (x) => x.toFixed(1).padStart(8);

const builds = [];
for (const [label, dist] of BUILDS) {
  const client = new Client({ name: "bench", version: "0" });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(dist, "cli/main.js")],
    stderr: PROFILE ? "pipe" : "ignore",
    ...(PROFILE ? { env: { ...process.env, CODE_TRM_PROFILE: "1" } } : {}),
  });
  const profiles = [];
  if (PROFILE) {
    let rest = "";
    transport.stderr.on("data", (d) => {
      const lines = (rest + d).split("\n");
      rest = lines.pop();
      for (const l of lines) if (l.startsWith("profile request:")) profiles.push(l);
    });
  }
  await client.connect(transport);
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 900_000 });
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  };
  // The profile line of the last request, written before the answer but read from another pipe.
  const lastProfile = async (seen) => {
    for (let i = 0; i < 200 && profiles.length <= seen; i++) await pause(1);
    return profiles[profiles.length - 1];
  };
  builds.push({ label, client, call, profiles, lastProfile });
}
const commands = { buildCmd: "true", testCmd: "true", lintCmd: "true" };
const plainRun = (cmd) =>
  new Promise((resolve, reject) => {
    const c = spawn("/bin/bash", ["-c", cmd], { stdio: ["ignore", "pipe", "pipe"], detached: true });
    c.stdout.resume();
    c.stderr.resume();
    c.on("error", reject);
    c.on("close", resolve);
  });
const plainCommands = async () => {
  const t = performance.now();
  for (const cmd of Object.values(commands)) await plainRun(cmd);
  return performance.now() - t;
};
let counter = 0;
let stepPath = "src/m0/s0/f0.js";
const submit = (b, sessionId) =>
  b.call("trm_submit_candidate", { sessionId, candidate: { mode: "files", files: [{ path: stepPath, content: `export const v = ${++counter};\n` }] } });

/** `profile request: total 12.3 | lock 0.1 | ...` as { total: 12.3, lock: 0.1, ... } (a phase met twice is summed). */
function phasesOf(line) {
  const out = {};
  for (const part of line.replace(/^profile request: /, "").split(" | ")) {
    const m = /^(.*) ([\d.]+)$/.exec(part);
    if (m) out[m[1]] = (out[m[1]] ?? 0) + Number(m[2]);
  }
  return out;
}
const phaseMedians = (lines) => {
  const all = lines.map(phasesOf);
  const names = [...new Set(all.flatMap((p) => Object.keys(p)))];
  return names.map((n) => `${n} ${median(all.map((p) => p[n] ?? 0)).toFixed(1)}`).join(" | ");
};

console.log(`load: ${execFileSync("uptime", { encoding: "utf8" }).trim()}; ${SUBMITS} pairs per cell, gap ${GAP_MS} ms`);
console.log(
  "build    | files  | start ms (worktree add ms, ratio)   | history | mode | submit ms | commands ms | overhead ms | plain ms | over plain (medians)",
);
for (const { size: files, repo, paths, own } of benchRepos(SIZES, (n) => makeRepo(n, { prefix: "trm-bench-cost-", dirs: 100, subdirs: 7 }))) {
  stepPath = paths[0];
  const rounds = Number(process.env.TRM_BENCH_START_ROUNDS ?? (files >= 50_000 ? 3 : 5));
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
  for (const b of SUBMITS > 0 ? builds : []) {
    for (const h of HISTORIES) {
      const { sessionId } = await b.call("trm_start_session", { repoPath: repo, ...commands });
      for (let i = 0; i < h; i++) await submit(b, sessionId);
      cells.push({ b, h, sessionId, gap: { lat: [], cmd: [], prof: [], plain: [] }, b2b: { lat: [], cmd: [], prof: [], plain: [] } });
    }
  }
  const measure = async (c, m) => {
    const seen = c.b.profiles.length;
    const t = performance.now();
    const r = await submit(c.b, c.sessionId);
    m.lat.push(performance.now() - t);
    m.cmd.push(r.commandsMs);
    if (PROFILE) m.prof.push(await c.b.lastProfile(seen));
  };
  for (let i = 0; i < SUBMITS; i++) {
    for (const c of cells) {
      await pause(GAP_MS);
      c.gap.plain.push(await plainCommands());
      await pause(GAP_MS);
      await measure(c, c.gap);
      await measure(c, c.b2b);
      c.b2b.plain.push(await plainCommands());
    }
  }
  const pl = median(plain);
  if (cells.length === 0)
    for (const [k, b] of builds.entries())
      console.log(`${b.label.padEnd(8)} | ${String(files).padEnd(6)} | ${f1(median(starts[k]))} (${f1(pl)}, ${(median(starts[k]) / pl).toFixed(2)}x)`);
  for (const c of cells) {
    const st = median(starts[builds.indexOf(c.b)]);
    for (const mode of ["gap", "b2b"]) {
      const m = c[mode];
      const over = m.lat.map((x, i) => x - m.cmd[i]);
      const head = c.h === HISTORIES[0] && mode === "gap" && st !== undefined ? `${f1(st)} (${f1(pl)}, ${(st / pl).toFixed(2)}x)` : "".padEnd(30);
      console.log(
        `${c.b.label.padEnd(8)} | ${String(files).padEnd(6)} | ${head.padEnd(35)} | ${String(c.h).padStart(7)} | ${mode.padEnd(4)} | ${f1(median(m.lat))}  | ${f1(median(m.cmd))}    | ${f1(median(over))}    | ${f1(median(m.plain))} | ${f1(median(m.lat) - median(m.plain))}`,
      );
      if (PROFILE) console.log(`   profile ${c.b.label} ${files} h${c.h} ${mode}: ${phaseMedians(m.prof)}`);
    }
    await c.b.call("trm_end_session", { sessionId: c.sessionId, discard: true });
  }
  if (own) rmSync(repo, { recursive: true, force: true });
}
console.log(`load: ${execFileSync("uptime", { encoding: "utf8" }).trim()}`);
for (const b of builds) await b.client.close();
