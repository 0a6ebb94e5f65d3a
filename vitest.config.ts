import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // End-to-end tests spawn git and the server; give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Every temporary folder a test makes is removed after its file, and the suite runs in a fresh
    // TMPDIR that must be empty at the end (test/helpers/tmp-guard.ts; CODE_TRM_TMP_GUARD=0 turns it off).
    setupFiles: ["test/helpers/cleanup.ts"],
    globalSetup: process.env.CODE_TRM_TMP_GUARD === "0" ? [] : ["test/helpers/tmp-guard.ts"],
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ["default", "json"],
    outputFile: { json: ".tmp/vitest-results.json" },
  },
});
