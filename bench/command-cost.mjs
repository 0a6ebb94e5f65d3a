// What running one command costs code-trm beyond the command itself: three `bash -c true` in a row,
// timed after a pause (as a step's commands come after the client's think time), spawned
//   bare:   node's child_process.spawn, nothing else (the floor);
//   execa:  execa 9 as runCommand used it before (detached, streamed, not buffered);
//   runCommand: as a step runs it (process-group record, marker, redaction, timeout, orphan sweep).
// Run: npm run build && node bench/command-cost.mjs [rounds=40] [gapMs=250]
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { runCommand } from "../dist/exec/run.js";
import { median, pause } from "./generated-repo.mjs";

const ROUNDS = Number(process.argv[2] ?? 40);
const GAP_MS = Number(process.argv[3] ?? 250);
const dir = mkdtempSync(path.join(os.tmpdir(), "trm-bench-cmd-"));
const groupFile = path.join(dir, "run", "group");

const bare = () =>
  new Promise((resolve) => {
    const c = spawn("/bin/bash", ["-c", "true"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"], detached: true });
    c.stdout.resume();
    c.stderr.resume();
    c.on("close", resolve);
  });
const viaExeca = () => execa("/bin/bash", ["-c", "true"], { cwd: dir, stdin: "ignore", detached: true, buffer: false, reject: false });
const viaRunCommand = () => runCommand("true", { cwd: dir, timeoutMs: 60_000, groupFile });
const ways = { bare, execa: viaExeca, runCommand: viaRunCommand };

const times = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
for (let i = 0; i < ROUNDS; i++) {
  for (const [name, run] of Object.entries(ways)) {
    await pause(GAP_MS);
    const t = performance.now();
    for (let k = 0; k < 3; k++) await run();
    times[name].push(performance.now() - t);
  }
}
rmSync(dir, { recursive: true, force: true });
console.log(`load: ${execFileSync("uptime", { encoding: "utf8" }).trim()}; ${ROUNDS} rounds, gap ${GAP_MS} ms`);
for (const [name, xs] of Object.entries(times))
  console.log(
    `${name.padEnd(10)} | 3 commands ${median(xs).toFixed(2).padStart(6)} ms (median) | over bare ${(median(xs) - median(times.bare)).toFixed(2).padStart(6)} ms`,
  );
