// Session start time vs a plain `git worktree add`, and per-step server overhead, on a generated
// 5,000-file repository. Run: npm run build && node bench/session.mjs [files] [steps]
import { rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { startSession } from "../dist/session/start.js";
import { git, makeRepo, median } from "./generated-repo.mjs";

const FILES = Number(process.argv[2] ?? 5000);
const STEPS = Number(process.argv[3] ?? 20);
const ROOT = path.resolve(import.meta.dirname, "..");
const ms = (x) => `${x.toFixed(1)} ms`;

const repo = makeRepo(FILES);
console.log(`repository: ${FILES} files (${repo})`);

// Creating and deleting 5,000 files in a row slows this machine's disk down for whatever comes next,
// so plain `git worktree add` and session start are interleaved: both see the same conditions.
const pause = () => new Promise((r) => setTimeout(r, 1500));
const plain = [];
const starts = [];
let session;
const ROUNDS = 5;
for (let i = 0; i < ROUNDS; i++) {
  const wt = path.join(os.tmpdir(), `trm-bench-wt-${process.pid}-${i}`);
  let t = performance.now();
  git(repo, "worktree", "add", "-q", "--detach", wt, "HEAD");
  plain.push(performance.now() - t);
  git(repo, "worktree", "remove", "--force", wt);
  await pause();
  t = performance.now();
  const r = await startSession({ repoPath: repo, testCmd: "true" }, {});
  starts.push(performance.now() - t);
  if (i < ROUNDS - 1) await r.session.end(true);
  else session = r.session;
  await pause();
}
console.log(
  `session start:          median ${ms(median(starts))}  (plain git worktree add, interleaved: ${ms(median(plain))}; ratio ${(median(starts) / median(plain)).toFixed(2)}x, target <= 1.3x)`,
);
console.log(`                        runs: start ${starts.map((x) => x.toFixed(0)).join(", ")} / plain ${plain.map((x) => x.toFixed(0)).join(", ")}`);

const overhead = [];
for (let i = 0; i < STEPS; i++) {
  const t = performance.now();
  const r = await session.submit(
    { candidate: { mode: "files", files: [{ path: `src/m0/f0.js`, content: `export const v0 = ${i + 1000};\n` }] }, rationale: `step ${i}` },
    {},
  );
  overhead.push(performance.now() - t - r.ev.commandsMs);
}
console.log(
  `per-step overhead:      median ${ms(median(overhead))}, max ${ms(Math.max(...overhead))} over ${STEPS} steps (in-process; submit latency minus command time; target < 60 ms)`,
);
await session.end(true);

// The same through the real stdio server, as a client sees it (protocol and process boundary included).
const client = new Client({ name: "bench", version: "0" });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(ROOT, "dist/cli/main.js")], stderr: "ignore" }));
const call = async (name, args) => (await client.callTool({ name, arguments: args })).structuredContent;
const t0 = performance.now();
const { sessionId } = await call("trm_start_session", { repoPath: repo, testCmd: "true" });
const mcpStart = performance.now() - t0;
const mcpOverhead = [];
for (let i = 0; i < STEPS; i++) {
  const t = performance.now();
  const r = await call("trm_submit_candidate", {
    sessionId,
    candidate: { mode: "files", files: [{ path: "src/m0/f0.js", content: `export const v0 = ${i};\n` }] },
  });
  mcpOverhead.push(performance.now() - t - r.commandsMs);
}
await call("trm_end_session", { sessionId, discard: true });
await client.close();
console.log(`over MCP stdio:         start ${ms(mcpStart)}; per-step overhead median ${ms(median(mcpOverhead))}`);
rmSync(repo, { recursive: true, force: true });
