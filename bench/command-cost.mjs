// What running one command costs code-trm beyond the command itself: three `bash -c true` in a row,
// timed after a pause (as a step's commands come after the client's think time), spawned
//   bare:   node's child_process.spawn, nothing else (the floor);
//   execa:  execa 9 as runCommand used it before (detached, streamed, not buffered);
//   fresh:  runCommand as a step runs it without a waiting shell (process-group record, marker,
//           redaction, timeout, orphan sweep);
//   warm:   runCommand in shells started ahead (src/evaluate/warm-shells.ts), three started after
//           each round as a step's reply would.
// Run: npm run build && node bench/command-cost.mjs [rounds=40] [gapMs=250]
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { commandEnv, runCommand } from "../dist/evaluate/run.js";
import { RUN_MARKER } from "../dist/evaluate/sweep.js";
import { endWarm, warmCount, warmUp } from "../dist/evaluate/warm-shells.js";
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
const fresh = () => runCommand("true", { cwd: dir, timeoutMs: 60_000, groupFile });
const warm = () => runCommand("true", { cwd: dir, timeoutMs: 60_000, groupFile, warm: true });
const ways = { bare, execa: viaExeca, fresh, warm };

const times = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
let unused = 0;
for (let i = 0; i < ROUNDS; i++) {
  for (const [name, run] of Object.entries(ways)) {
    if (name === "warm") {
      warmUp(dir, commandEnv(undefined), RUN_MARKER, 3);
      for (let t = 0; t < 100 && warmCount(dir) < 3; t++) await pause(5);
    }
    await pause(GAP_MS);
    const t = performance.now();
    for (let k = 0; k < 3; k++) await run();
    times[name].push(performance.now() - t);
    if (name === "warm") unused += warmCount(dir);
  }
}
endWarm();
rmSync(dir, { recursive: true, force: true });
console.log(`load: ${execFileSync("uptime", { encoding: "utf8" }).trim()}; ${ROUNDS} rounds, gap ${GAP_MS} ms`);
for (const [name, xs] of Object.entries(times)) console.log(`${name.padEnd(6)} | 3 commands ${median(xs).toFixed(2).padStart(6)} ms (median) | over bare ${(median(xs) - median(times.bare)).toFixed(2).padStart(6)} ms`);
if (unused > 0) console.log(`(${unused} waiting shells were not taken: the warm figure includes fresh spawns)`);
