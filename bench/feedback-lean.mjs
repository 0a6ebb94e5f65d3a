// Tokens (o200k) of the feedback after a step whose test output gives no counts: a command that did not
// start (pnpm not installed, as on unjs/defu), a runner's output nothing reads, and a passing suite after
// failures the runner no longer names. Run: npm run build && node bench/feedback-lean.mjs [dist folder]
import path from "node:path";
import { pathToFileURL } from "node:url";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

const dist = path.resolve(process.argv[2] ?? "dist");
const { renderFeedback } = await import(pathToFileURL(path.join(dist, "evaluate/feedback.js")).href);
const { countsNotices } = await import(pathToFileURL(path.join(dist, "evaluate/runner-hint.js")).href);
const dir = path.resolve("fixtures/repos/js-stats");
const progress = { step: 0, score: 0, ema: 0, bestScore: 0, bestStep: 0, noImproveStreak: 0, improved: true };
const halt = { shouldHalt: false, reasons: ["tests failing"] };

function feedback({ cmd, exitCode, output, tests = null, ok = false, previousFailures }) {
  const test = { cmd, exitCode, timedOut: false, durationMs: 10, output, truncated: false };
  const ev = {
    commands: { test },
    okBuild: true,
    tests,
    components: {},
    score: 0,
    testsPass: ok,
    diagnostics: [],
    notices: countsNotices(tests, exitCode, ok, cmd, dir),
    commandsMs: 10,
  };
  return renderFeedback({ step: previousFailures ? 2 : 0, ev, progress, halt, diagnostics: [], failures: [], previousFailures, sessionId: "s1" });
}

const subtests = Array.from({ length: 12 }, (_, i) => ({
  name: `tests/test_misc.py::TestMisc::test_case[param-${i}]`,
  test: "tests/test_misc.py::TestMisc::test_case",
}));
const cases = {
  "pnpm not installed (exit 127)": { cmd: "pnpm test", exitCode: 127, output: "sh: 1: pnpm: not found\n" },
  "vitest output nothing reads": {
    cmd: "npx vitest run",
    exitCode: 1,
    output: "failed to load config from /w/vitest.config.ts\nError: Cannot find module './setup'\n",
  },
  "suite passes after 12 unnamed subtest failures": {
    cmd: "python -m pytest -q",
    exitCode: 0,
    ok: true,
    output: "........ [100%]\n40 passed in 0.5s\n",
    tests: { passed: 40, failed: 0, skipped: 0, total: 40, failures: [], format: "pytest", cases: [] },
    previousFailures: subtests,
  },
};
for (const [name, c] of Object.entries(cases)) {
  const text = feedback(c);
  console.log(
    `${name}: ${countTokens(text)} tokens\n${text
      .split("\n")
      .map((l) => `  | ${l}`)
      .join("\n")}`,
  );
}
