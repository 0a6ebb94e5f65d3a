// Applies a 50-hunk patch to a 10,000-line file through the real planner (parse, place, apply in
// memory) and prints the median time per scenario. Run `npm run build` first: this imports dist/.
import { performance } from "node:perf_hooks";
import { planCandidate } from "../dist/candidate/plan.js";

const LINES = 10_000;
const HUNKS = 50;
const RUNS = 15;
const WARMUP = 3;

const original = Array.from({ length: LINES }, (_, i) =>
  i % 10 === 9 ? "  }" : i % 10 === 0 ? `  if (check(${i})) {` : `    const v${i} = compute(${i}, "text on line ${i + 1}");`,
);

/** One hunk every 200 lines: change one line, with three lines of context on each side. */
function makePatch() {
  let out = "diff --git a/big.ts b/big.ts\n--- a/big.ts\n+++ b/big.ts\n";
  for (let h = 0; h < HUNKS; h++) {
    const at = 105 + h * 200;
    const ctx = (from, to) =>
      original
        .slice(from, to)
        .map((l) => ` ${l}\n`)
        .join("");
    out += `@@ -${at - 2},7 +${at - 2},7 @@\n${ctx(at - 3, at)}-${original[at]}\n+${original[at].replace("compute", "computeFast")}\n${ctx(at + 1, at + 4)}`;
  }
  return out;
}

const patch = makePatch();
const text = (lines) => lines.join("\n") + "\n";

// Shifted: 37 lines inserted at the top and 3 more before every fifth hunk, so the offset keeps changing.
const shifted = [];
for (let i = 0; i < LINES; i++) {
  if (i === 0) for (let k = 0; k < 37; k++) shifted.push(`// inserted header ${k}`);
  if (i > 0 && i % 1000 === 0) for (let k = 0; k < 3; k++) shifted.push(`// inserted block ${i}.${k}`);
  shifted.push(original[i]);
}
// Whitespace drift: the file was re-indented with tabs since the patch was made.
const retabbed = original.map((l) => l.replace(/^( {2})+/, (m) => "\t".repeat(m.length / 2)));

const scenarios = [
  ["exact placement", text(original)],
  ["shifted placement (+37 lines, growing offset)", text(shifted)],
  ["whitespace drift (spaces -> tabs)", text(retabbed)],
];

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

console.log(`50-hunk patch (${patch.length} bytes) on a ${LINES.toLocaleString("en-US")}-line file; median of ${RUNS} runs`);
for (const [name, content] of scenarios) {
  const buf = Buffer.from(content);
  const tree = { read: async (p) => (p === "big.ts" ? buf : null) };
  const c = { mode: "patch", patch };
  const times = [];
  let plan;
  for (let r = 0; r < WARMUP + RUNS; r++) {
    const t0 = performance.now();
    plan = await planCandidate(c, tree);
    const t = performance.now() - t0;
    if (r >= WARMUP) times.push(t);
  }
  const out = plan.ops[0].content.toString("utf8");
  const changed = (out.match(/computeFast/g) ?? []).length;
  if (changed !== HUNKS) throw new Error(`${name}: expected ${HUNKS} changed lines, got ${changed}`);
  console.log(`${name.padEnd(48)} ${median(times).toFixed(2).padStart(8)} ms   (fuzz notes: ${plan.fuzz.length})`);
}
