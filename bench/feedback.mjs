// Feedback size for a build with 500 errors (the text an LLM reads after a step).
// Run: npm run build && node bench/feedback.mjs
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { correlate, renderFeedback } from "../dist/evaluate/feedback.js";
import { parseDiagnostics } from "../dist/evaluate/parsers/index.js";

for (const distinct of [500, 100, 10]) {
  const lines = [];
  for (let i = 0; i < 500; i++) lines.push(`src/mod${i % 50}/file${i}.ts(${i + 1},${(i % 40) + 1}): error TS2304: Cannot find name 'helper${i % distinct}'.`);
  const raw = lines.join("\n");
  const t = performance.now();
  const diags = parseDiagnostics(raw, { cwd: "/w" }).map((d) => ({ ...d, command: "build" }));
  const ev = {
    commands: { build: { cmd: "tsc", exitCode: 2, timedOut: false, durationMs: 1, output: raw, truncated: false } },
    okBuild: false,
    components: {},
    score: 0,
    testsPass: true,
    diagnostics: diags,
    notices: [],
    commandsMs: 1,
  };
  const text = renderFeedback({
    step: 2,
    ev,
    progress: { step: 2, score: 0, ema: 0, bestScore: 1, bestStep: 1, noImproveStreak: 1, improved: false },
    halt: { shouldHalt: false, reasons: ["x"] },
    diagnostics: correlate(diags, 2, [], (d) => d.message),
    failures: [],
  });
  const ms = performance.now() - t;
  console.log(
    `500 tsc errors (${distinct} distinct): raw ${raw.length} chars / ${countTokens(raw)} tokens -> feedback ${text.length} chars / ${countTokens(text)} o200k tokens (parse + render ${ms.toFixed(1)} ms)`,
  );
}
