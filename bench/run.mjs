// Runs every benchmark in turn and prints their figures. Run: npm run bench (builds first).
import { spawnSync } from "node:child_process";
import path from "node:path";

const here = import.meta.dirname;
const benches = [
  ["session start and per-step overhead (issue 2)", "session.mjs"],
  ["undo and restore at 5 and 50 steps (issue 4)", "history.mjs"],
  ["undo, restore and reset over MCP at 500 / 5,000 files (issue 12)", "moves.mjs", "500,5000"],
  ["applying a 50-hunk patch to a 10,000-line file (issue 3)", "patch.mjs"],
  ["parsing 5 MB test logs (issue 5)", "parse.mjs"],
  ["feedback size for 500 errors (issue 5)", "feedback.mjs"],
  ["time to verdict: three commands sequential vs concurrent (issue 14)", "concurrency.mjs"],
  ["best of N: 1, 2 and 4 candidates whose test sleeps 2 s, maxParallel 4 (issue 13)", "best-of-n.mjs"],
  // 50,000 files take minutes: run `node bench/step-cost.mjs` alone for them.
  ["a step's own cost and session start at 500 / 5,000 files, 10 / 200 steps (issue 12)", "step-cost.mjs", "500,5000"],
  ["three commands: bare spawn, execa, runCommand (issue 12)", "command-cost.mjs"],
  ["what a larger server costs each spawn (issue 12)", "fork-cost.mjs"],
  ["what this machine charges for file calls and memory right after a pause (issue 12)", "idle-cost.mjs"],
];
let failed = 0;
for (const [title, file, ...args] of benches) {
  console.log(`\n## ${title}: node bench/${[file, ...args].join(" ")}`);
  const r = spawnSync(process.execPath, [path.join(here, file), ...args], { stdio: "inherit" });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
