import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // End-to-end tests spawn git and the server; give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Every temporary folder a test makes is removed after its file. CODE_TRM_TMP_GUARD=1 runs the suite
    // in a fresh TMPDIR and fails a run that leaves anything there (opt-in: the crash test's orphan
    // command does not start under it yet, see test/helpers/tmp-guard.ts).
    setupFiles: ["test/helpers/cleanup.ts"],
    globalSetup: process.env.CODE_TRM_TMP_GUARD === "1" ? ["test/helpers/tmp-guard.ts"] : [],
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ["default", "json"],
    outputFile: { json: ".tmp/vitest-results.json" },
  },
});
