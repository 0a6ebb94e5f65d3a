// A real project's own build, tests and lint through code-trm, twice: in one server the commands go to the
// shells started ahead (warm-shells.ts), in the other each is spawned fresh (BASH_ENV set in the server's
// environment turns the waiting shells off). Same steps, same candidates; what each step scored must be
// identical, and the waiting server's steps must really have run in waiting shells (seen in /proc: a
// shell that waited in the worktree before the submit becomes the command while it runs).
// Run: npm run build && TRM_BENCH_REPO=<checkout> TRM_BENCH_FILE=<tracked file> TRM_BENCH_BREAK='<from>=><to>'
//   TRM_BENCH_TEST='<cmd>' [TRM_BENCH_BUILD=...] [TRM_BENCH_LINT=...] [TRM_BENCH_COMMENT='//'] node bench/real-suite.mjs [steps=6]
// Odd steps append a comment line to the file (the suite passes); even steps also replace <from> by <to>
// in it (a real test fails). The checkout is never changed (sessions work in .git/trm).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { pause } from "./generated-repo.mjs";

const env = process.env;
const REPO = env.TRM_BENCH_REPO;
const FILE = env.TRM_BENCH_FILE;
const [FROM, TO] = (env.TRM_BENCH_BREAK ?? "").split("=>");
if (!REPO || !FILE || FROM === undefined || TO === undefined || !env.TRM_BENCH_TEST) {
  console.error("Set TRM_BENCH_REPO, TRM_BENCH_FILE, TRM_BENCH_BREAK='<from>=><to>' and TRM_BENCH_TEST (see the header).");
  process.exit(2);
}
const STEPS = Number(process.argv[2] ?? 6);
const COMMENT = env.TRM_BENCH_COMMENT ?? "//";
const commands = { testCmd: env.TRM_BENCH_TEST, ...(env.TRM_BENCH_BUILD ? { buildCmd: env.TRM_BENCH_BUILD } : {}), ...(env.TRM_BENCH_LINT ? { lintCmd: env.TRM_BENCH_LINT } : {}) };
const original = execFileSync("git", ["show", `HEAD:${FILE}`], { cwd: REPO, encoding: "utf8" });
if (!original.includes(FROM)) throw new Error(`${FILE} does not contain ${JSON.stringify(FROM)}`);

/** Shells waiting in `worktree` (the waiting script's tag is in their command line). */
function waitingIn(worktree) {
  const out = [];
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readlinkSync(`/proc/${p}/cwd`) === worktree && readFileSync(`/proc/${p}/cmdline`, "latin1").includes("__trm_c_")) out.push(Number(p));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

async function server(label, extraEnv) {
  const client = new Client({ name: "real-suite", version: "0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.resolve(import.meta.dirname, "../dist/cli/main.js")], env: { ...env, ...extraEnv }, stderr: "inherit" }));
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 900_000 });
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  };
  return { label, client, call };
}

async function runSteps(s) {
  const started = await s.call("trm_start_session", { repoPath: REPO, ...commands, timeoutSec: 600 });
  const wt = started.worktreePath;
  const rows = [];
  for (let step = 1; step <= STEPS; step++) {
    // A client reads the reply before it sends the next candidate: the shells are started meanwhile.
    await pause(1500);
    const waiting = waitingIn(wt);
    const ranIn = new Set();
    const watch = setInterval(() => {
      for (const pid of waiting) {
        try {
          if (!readFileSync(`/proc/${pid}/cmdline`, "latin1").includes("__trm_c_")) ranIn.add(pid);
        } catch {
          // exited
        }
      }
    }, 2);
    const content = `${step % 2 === 0 ? original.replace(FROM, TO) : original}${COMMENT} code-trm real-suite step ${step}\n`;
    const t = performance.now();
    const r = await s.call("trm_submit_candidate", { sessionId: started.sessionId, candidate: { mode: "files", files: [{ path: FILE, content }] }, rationale: `real-suite step ${step}` });
    const latency = performance.now() - t;
    clearInterval(watch);
    rows.push({
      step,
      latency,
      commandsMs: r.commandsMs,
      waitingBefore: waiting.length,
      ranInWaiting: ranIn.size,
      scored: { score: r.score, okBuild: r.okBuild, okLint: r.okLint, tests: r.tests && { passed: r.tests.passed, failed: r.tests.failed, skipped: r.tests.skipped, total: r.tests.total, format: r.tests.format, failures: r.tests.failures.map((f) => f.name) }, diagnostics: r.diagnostics.length },
    });
  }
  await s.call("trm_end_session", { sessionId: started.sessionId, discard: true });
  return rows;
}

console.log(`load: ${execFileSync("uptime", { encoding: "utf8" }).trim()}`);
console.log(`repo ${REPO} at ${execFileSync("git", ["rev-parse", "--short=10", "HEAD"], { cwd: REPO, encoding: "utf8" }).trim()}; commands ${JSON.stringify(commands)}`);
const servers = [await server("waiting", {}), await server("fresh", { BASH_ENV: "/dev/null" })];
const results = [];
for (const s of servers) results.push(await runSteps(s));
for (const s of servers) await s.client.close();
const [warm, fresh] = results;
let same = true;
console.log("step | waiting: latency ms, commands ms, shells waiting / used | fresh: latency ms, commands ms | score, tests (passed/failed/skipped), failures | identical");
for (let i = 0; i < STEPS; i++) {
  const w = warm[i];
  const f = fresh[i];
  const eq = JSON.stringify(w.scored) === JSON.stringify(f.scored);
  same &&= eq;
  const t = w.scored.tests;
  console.log(
    `${w.step} | ${w.latency.toFixed(0)}, ${w.commandsMs}, ${w.waitingBefore}/${w.ranInWaiting} | ${f.latency.toFixed(0)}, ${f.commandsMs} | ${w.scored.score.toFixed(3)}, ${t ? `${t.passed}/${t.failed}/${t.skipped} ${t.format}` : "-"}, ${t?.failures.join(" ") || "-"} | ${eq ? "yes" : `NO: fresh ${JSON.stringify(f.scored)}`}`,
  );
}
const used = warm.filter((w) => w.ranInWaiting > 0).length;
console.log(`scores identical: ${same ? "yes" : "NO"}; steps whose commands ran in waiting shells: ${used} of ${STEPS}`);
if (!same) process.exitCode = 1;
