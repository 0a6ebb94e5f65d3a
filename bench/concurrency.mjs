// Time to verdict: one evaluation of three commands of known durations (sleep 1.0 s, 0.6 s, 0.8 s as
// test, lint and a check), run one after another (parallel: false) and at the same time (the default).
// Target: concurrent within 1.15x of the slowest command. Run after `npm run build`: node bench/concurrency.mjs
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { evaluate } from "../dist/evaluate/evaluate.js";

const cwd = mkdtempSync(path.join(os.tmpdir(), "trm-bench-conc-"));
const durations = { test: 1.0, lint: 0.6, check: 0.8 };
const opts = (parallel) => ({
  cwd,
  commands: { test: `sleep ${durations.test}`, lint: `sleep ${durations.lint}` },
  checks: [{ name: "check", cmd: `sleep ${durations.check}`, weight: 1 }],
  timeoutSec: 60,
  weights: { build: 0.3, test: 0.5, lint: 0.1, perf: 0.1 },
  cascade: true,
  perfDirection: "lower",
  ...(parallel ? {} : { parallel: false }),
});
const runs = 3;
try {
  const slowest = Math.max(...Object.values(durations)) * 1000;
  const sum = Math.round(Object.values(durations).reduce((a, b) => a + b, 0) * 1000);
  for (const parallel of [false, true]) {
    const walls = [];
    for (let i = 0; i < runs; i++) walls.push((await evaluate(opts(parallel))).evaluation.commandsMs);
    const median = walls.sort((a, b) => a - b)[Math.floor(runs / 2)];
    console.log(
      `${parallel ? "concurrent" : "sequential"}: wall ${median} ms (median of ${runs}; commands sleep ${sum} ms in total, slowest ${slowest} ms) = ${(median / slowest).toFixed(2)}x the slowest`,
    );
  }
} finally {
  rmSync(cwd, { recursive: true, force: true });
}
