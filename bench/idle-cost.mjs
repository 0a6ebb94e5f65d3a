// What this machine charges for work done right after a pause, code-trm's or anyone's: the first file
// system calls and the first touch of memory after the process slept 0, 250 and 1,000 ms (a client
// reads a reply before it sends the next request, so every step starts this way). On a machine whose
// caches and TLBs go cold while a process sleeps (a shared virtual machine), each step pays it again
// whatever the server does; step-cost.mjs's "gap" figures include it, its "b2b" figures mostly not.
// Run: node bench/idle-cost.mjs [rounds=30]
import { mkdtempSync, openSync, rmSync, statSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { median, pause } from "./generated-repo.mjs";

const ROUNDS = Number(process.argv[2] ?? 30);
const dir = mkdtempSync(path.join(os.tmpdir(), "trm-idle-"));
const nul = openSync("/dev/null", "w");
// 64 MiB touched once before: the pages exist; what a pause changes is how cold they are.
const memory = new Uint8Array(64 << 20).fill(1);
const touch = () => {
  let s = 0;
  for (let p = 0; p < memory.length; p += 4096) s += memory[p];
  return s;
};
const steps = {
  "stat (first call)": () => statSync(dir),
  "write to /dev/null": () => writeSync(nul, "x"),
  "create a file": () => writeFileSync(path.join(dir, "a"), "x"),
  "create another": () => writeFileSync(path.join(dir, "b"), "x"),
  "unlink both": () => {
    unlinkSync(path.join(dir, "a"));
    unlinkSync(path.join(dir, "b"));
  },
  "touch 16,384 pages": touch,
  "touch them again": touch,
};
console.log(
  `load: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}; ${ROUNDS} rounds per pause; medians in ms`,
);
console.log(`${"pause ms".padEnd(10)}| ${Object.keys(steps).join(" | ")}`);
try {
  for (const gap of [0, 250, 1000]) {
    const times = Object.fromEntries(Object.keys(steps).map((k) => [k, []]));
    for (let i = 0; i < ROUNDS; i++) {
      if (gap) await pause(gap);
      for (const [name, run] of Object.entries(steps)) {
        const t = performance.now();
        run();
        times[name].push(performance.now() - t);
      }
    }
    console.log(
      `${String(gap).padEnd(10)}| ${Object.entries(times)
        .map(([k, v]) => median(v).toFixed(3).padStart(k.length))
        .join(" | ")}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
