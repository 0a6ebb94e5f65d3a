import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // End-to-end tests spawn git and the server; give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ["default", "json"],
    outputFile: { json: ".tmp/vitest-results.json" },
  },
});
