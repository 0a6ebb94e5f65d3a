#!/usr/bin/env node
// Parse-time benchmark for the output parsers (src/evaluate/parsers), run on the built code:
//
//   npm run build && node bench/parse.mjs
//
// Prints, for generated 5 MB test logs in several formats, the time parseTests takes (median of
// several runs, after a warm-up), and the time parseDiagnostics takes on a tsc output with 500 errors.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const entry = path.join(root, "dist/evaluate/parsers/index.js");
if (!existsSync(entry)) {
  console.error(`${path.relative(root, entry)} is missing: run \`npm run build\` first.`);
  process.exit(1);
}
const { parseTests, parseDiagnostics } = await import(pathToFileURL(entry).href);

const MB = 1024 * 1024;
const RUNS = 7;

/** Repeats unit(i) until the text reaches `size` characters. */
function grow(unit, size) {
  const parts = [];
  let len = 0;
  for (let i = 0; len < size; i++) {
    const s = unit(i);
    parts.push(s);
    len += s.length;
  }
  return parts.join("");
}

const ansi = (s) => `\u001b[31m${s}\u001b[39m`;

const LOGS = {
  "node --test (TAP)": () =>
    `TAP version 13\n${grow(
      (i) =>
        i % 50 === 7
          ? `not ok ${i} - case ${i}\n  ---\n  location: '/w/t.test.mjs:${i}:1'\n  error: |-\n    Expected values to be strictly equal:\n    1 !== 2\n  stack: |-\n    TestContext.<anonymous> (file:///w/t.test.mjs:${i}:9)\n  ...\n`
          : `# Subtest: case ${i}\nok ${i} - case ${i}\n  ---\n  duration_ms: 0.1\n  ...\n`,
      5 * MB,
    )}1..1\n`,
  "jest (default, coloured)": () => {
    let n = 0;
    const body = grow((i) => {
      n++;
      return `${ansi("FAIL")} src/f${i}.test.js\n  ● suite › case ${i}\n\n    expect(received).toBe(expected)\n\n    Expected: ${i}\n    Received: ${i + 1}\n\n      at Object.toBe (src/f${i}.test.js:3:20)\n\n`;
    }, 5 * MB);
    return `${body}Tests:       ${n} failed, ${n} total\nTest Suites: ${n} failed, ${n} total\n`;
  },
  "vitest (JSON)": () => {
    const results = [];
    let len = 0;
    for (let i = 0; len < 5 * MB; i++) {
      const r = { name: `/w/test/f${i}.test.ts`, status: i % 9 ? "passed" : "failed", assertionResults: [] };
      for (let k = 0; k < 10; k++) {
        const failed = i % 9 === 0 && k === 3;
        r.assertionResults.push({
          ancestorTitles: ["suite"],
          title: `case ${k}`,
          status: failed ? "failed" : "passed",
          failureMessages: failed ? [`AssertionError: expected ${k} to be ${k + 1}\n    at /w/test/f${i}.test.ts:${k}:5`] : [],
        });
      }
      const s = JSON.stringify(r);
      len += s.length;
      results.push(r);
    }
    return JSON.stringify({ numTotalTests: results.length * 10, testResults: results });
  },
  pytest: () => {
    let n = 0;
    const body = grow((i) => {
      n++;
      return `_____ test_case_${i} _____\n\n    def test_case_${i}():\n>       assert f(${i}) == ${i + 1}\nE       assert ${i} == ${i + 1}\n\ntests/test_x.py:${i}: AssertionError\n`;
    }, 5 * MB);
    const summary = grow((i) => `FAILED tests/test_x.py::test_case_${i} - assert ${i} == ${i + 1}\n`, 0.2 * MB);
    return `===== test session starts =====\n===== FAILURES =====\n${body}===== short test summary info =====\n${summary}===== ${n} failed, 3 passed in 12.00s =====\n`;
  },
  "go test -json": () =>
    grow((i) => {
      const outcome = i % 10 === 3 ? "fail" : "pass";
      return `{"Action":"run","Package":"example.com/p","Test":"Test${i}"}\n{"Action":"output","Package":"example.com/p","Test":"Test${i}","Output":"    p_test.go:${i}: want ${i}\\n"}\n{"Action":"${outcome}","Package":"example.com/p","Test":"Test${i}","Elapsed":0}\n`;
    }, 5 * MB) + `{"Action":"fail","Package":"example.com/p","Elapsed":1}\n`,
  "cargo test (3 binaries)": () =>
    [0, 1, 2]
      .map(
        (b) =>
          `     Running target/debug/deps/t${b}\nrunning many tests\n${grow((i) => `test module::case_${i} ... ok\n`, (5 * MB) / 3)}\ntest result: ok. 60000 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 2.00s\n`,
      )
      .join(""),
  "unrecognised (null)": () => grow((i) => `[${i}] compiling module ${i}: ok (12 ms) at src/m${i}.ts line ${i}\n`, 5 * MB),
};

function measure(fn) {
  fn(); // warm-up: JIT and regex compilation
  const times = [];
  let result;
  for (let k = 0; k < RUNS; k++) {
    const t0 = performance.now();
    result = fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], max: times[times.length - 1], result };
}

const pad = (s, n) => String(s).padEnd(n);
console.log(`parseTests on generated logs (node ${process.version}, median of ${RUNS} runs after a warm-up)`);
console.log(`${pad("format", 28)}${pad("size", 10)}${pad("median", 10)}${pad("max", 10)}result`);
for (const [name, make] of Object.entries(LOGS)) {
  const text = make();
  const { median, max, result } = measure(() => parseTests({ stdout: text, stderr: "", all: text }, { cwd: "/w" }));
  const summary = result ? `${result.format}: ${result.passed} passed, ${result.failed} failed, ${result.failures.length} failures listed` : "null";
  console.log(
    `${pad(name, 28)}${pad(`${(text.length / MB).toFixed(1)} MB`, 10)}${pad(`${median.toFixed(0)} ms`, 10)}${pad(`${max.toFixed(0)} ms`, 10)}${summary}`,
  );
}

// A build with 500 type errors, in tsc's plain and pretty styles (the pretty one with code frames).
const tscPlain = Array.from(
  { length: 500 },
  (_, i) =>
    `src/m${i % 40}.ts(${i + 1},${(i % 30) + 1}): error TS2322: Type 'string' is not assignable to type 'number'.\n  The expected type comes from property 'n${i}'.`,
).join("\n");
const tscPretty = Array.from(
  { length: 500 },
  (_, i) =>
    `\u001b[96msrc/m${i % 40}.ts\u001b[0m:\u001b[93m${i + 1}\u001b[0m:\u001b[93m${(i % 30) + 1}\u001b[0m - \u001b[91merror\u001b[0m\u001b[90m TS2304: \u001b[0mCannot find name 'x${i}'.\n\n\u001b[7m${i + 1}\u001b[0m const y = x${i};\n\u001b[7m \u001b[0m \u001b[91m          ~~\u001b[0m\n`,
).join("\n");
console.log("\nparseDiagnostics on tsc output with 500 errors");
for (const [name, text] of [
  ["plain", tscPlain],
  ["pretty", `${tscPretty}\nFound 500 errors in 40 files.\n`],
]) {
  const { median, max, result } = measure(() => parseDiagnostics(text, { cwd: "/w" }));
  console.log(
    `${pad(name, 28)}${pad(`${(text.length / 1024).toFixed(0)} KB`, 10)}${pad(`${median.toFixed(2)} ms`, 10)}${pad(`${max.toFixed(2)} ms`, 10)}${result.length} diagnostics`,
  );
}
