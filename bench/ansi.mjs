#!/usr/bin/env node
// ANSI stripping on crafted escape floods, run on the built code:
//
//   npm run build && node bench/ansi.mjs [chars]
//
// Prints, per flood of `chars` characters (default 60,000; try 600,000 to see linear growth), the time
// code-trm's stripAnsi (ansi-regex, see src/util/text.ts) and Node's util.stripVTControlCharacters take,
// and the time of the whole parse (stripping included) that every command's output goes through.
// The former hand-written pattern is measured too, with a 1 s cap per flood, to show what was fixed.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { Worker } from "node:worker_threads";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const text = path.join(root, "dist/util/text.js");
const parsers = path.join(root, "dist/evaluate/parsers/index.js");
if (!existsSync(text)) {
  console.error("dist/ is missing: run `npm run build` first.");
  process.exit(1);
}
const { stripAnsi } = await import(pathToFileURL(text).href);
const { parseTests, parseDiagnostics } = await import(pathToFileURL(parsers).href);

const N = Number(process.argv[2] ?? 60_000);
const E = "\u001b";
const floods = {
  "ESC[ + N ';'": `${E}[${";".repeat(N)}`,
  "C1 CSI + N ';'": `\u009b${";".repeat(N)}`,
  "repeated ESC[;;;;": `${E}[;;;;`.repeat(N / 6),
  "ESC[ + '1;' x N/2": `${E}[${"1;".repeat(N / 2)}`,
  "unterminated OSC": `${E}]8;;${"a".repeat(N)}`,
  "N/2 OSC introducers": `${E}]`.repeat(N / 2),
  "unterminated DCS": `${E}P${"a".repeat(N)}`,
  "coloured lines": `${E}[32m✓${E}[39m ok\n`.repeat(N / 16),
};

const HAND = String.raw`[\u001B\u009B][[\]()#;?]*(?:(?:(?:[a-zA-Z\d]*(?:;[-a-zA-Z\d/#&.:=?%@~_]*)*)?\u0007)|(?:(?:\d{1,4}(?:;\d{0,4})*)?[\dA-PR-TZcf-ntqry=><~]))`;

function best(f, runs = 5) {
  let ms = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    f();
    ms = Math.min(ms, performance.now() - t0);
  }
  return ms;
}

/** The old pattern in a worker, stopped after 1 s: on some floods it runs for tens of seconds. */
function hand(s) {
  return new Promise((resolve) => {
    const w = new Worker(
      `const { parentPort, workerData } = require("node:worker_threads"); const t0 = performance.now(); workerData.s.replace(new RegExp(workerData.re, "g"), ""); parentPort.postMessage(performance.now() - t0);`,
      { eval: true, workerData: { s, re: HAND } },
    );
    const timer = setTimeout(() => void w.terminate().then(() => resolve("> 1000")), 1000);
    w.once("message", (ms) => {
      clearTimeout(timer);
      void w.terminate();
      resolve(ms.toFixed(1));
    });
  });
}

console.log(`flood of ${N} characters; times in ms (best of 5; old pattern: one run, capped at 1 s)`);
console.log(["flood".padEnd(20), "stripAnsi", "node util", "parse all", "old pattern"].join("  "));
for (const [name, s] of Object.entries(floods)) {
  const a = best(() => stripAnsi(s));
  const b = best(() => stripVTControlCharacters(s));
  const c = best(() => {
    parseTests({ stdout: s, stderr: "", all: s }, { cwd: "/w" });
    parseDiagnostics(s, { cwd: "/w" });
  });
  console.log([name.padEnd(20), a.toFixed(1).padStart(9), b.toFixed(1).padStart(9), c.toFixed(1).padStart(9), String(await hand(s)).padStart(11)].join("  "));
}
