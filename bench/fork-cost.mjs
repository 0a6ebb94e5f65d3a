// What a larger server costs every process it starts: node forks its whole address space to spawn, so
// each command and git call of a step takes longer the more the server has loaded. Prints the median
// time to spawn /bin/true from a node process that has loaded nothing, the server's own modules
// (dist/mcp/server.js, as at start), and those plus the TypeScript compiler (as after a review).
// Run: npm run build && node bench/fork-cost.mjs [spawns=60]
import { execFileSync } from "node:child_process";
import path from "node:path";

const N = Number(process.argv[2] ?? 60);
const SERVER = path.join(import.meta.dirname, "..", "dist", "mcp", "server.js");
const probe = (load) => `
  import { spawn } from "node:child_process";
  ${load}
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  const xs = [];
  for (let i = 0; i < ${N}; i++) {
    await pause(20);
    const t = performance.now();
    await new Promise((r) => spawn("/bin/true", [], { stdio: "ignore" }).on("close", r));
    xs.push(performance.now() - t);
  }
  xs.sort((a, b) => a - b);
  console.log(JSON.stringify({ rss: process.memoryUsage().rss / 1e6, spawn: xs[Math.floor(xs.length / 2)] }));`;
const cases = [
  ["bare node", ""],
  ["server modules", `const { createServer } = await import(${JSON.stringify(SERVER)}); createServer();`],
  ["server + typescript", `const { createServer } = await import(${JSON.stringify(SERVER)}); createServer(); await import("typescript");`],
];
console.log(`load: ${execFileSync("uptime", { encoding: "utf8" }).trim()}; ${N} spawns each`);
console.log("process              | rss MB | spawn /bin/true ms (median)");
for (let round = 0; round < 2; round++) {
  for (const [label, load] of cases) {
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", probe(load)], { encoding: "utf8", cwd: path.join(import.meta.dirname, "..") });
    const { rss, spawn } = JSON.parse(out.trim().split("\n").at(-1));
    console.log(`${label.padEnd(20)} | ${rss.toFixed(0).padStart(6)} | ${spawn.toFixed(2)}`);
  }
}
