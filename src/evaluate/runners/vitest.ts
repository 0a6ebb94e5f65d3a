import { parseVitestJestJson, parseVitestText } from "../parsers/tests/vitest-jest.js";
import { anyOf, type RunnerDescriptor } from "./types.js";

export const vitest: RunnerDescriptor = {
  id: "vitest",
  name: "Vitest",
  command: "npx vitest run --reporter=json",
  recognise: { command: /\bvitest\b/, packages: ["vitest"] },
  parse: { structured: [parseVitestJestJson], text: [parseVitestText] },
  formats: "Vitest (default, verbose and JSON reporters)",
  namesTests: "--reporter=verbose, --reporter=json",
  tap: "vitest --reporter=tap or tap-flat",
  junit: "vitest --reporter=junit",
  readableReport: "Vitest: add --reporter=json (or --reporter=junit with testReport)",
  testConfigFiles: ["vitest.config.*", "vite.config.*", "vitest.workspace.*", "vitest.projects.*"],
  // Its JSON, JUnit and TAP reports print `test.fails` (or `{ fails: true }`, a fixture's `check.fails`) as a pass; only the default summary counts it.
  // Also its options object: `test('sum', { fails: true }, fn)`.
  expectedFailure: { word: "fails", options: true },
  // With `includeSource`, a source file's `if (import.meta.vitest)` block holds tests (h27).
  inSourceTests: "import.meta.vitest",
  // -t is a regex over the full name, describe titles and the test's joined by spaces (code-trm: " > ").
  selectByName: (names) => ["-t", anyOf(names.map((n) => n.split(" > ").join(" ")))],
  // Filters match files by path (`./` keeps a leading `-` from being an option); a `:` would be read as `file:line`.
  selectFiles: (files) => (files.some((f) => f.includes(":")) ? undefined : files.map((f) => `./${f}`)),
  // `vitest related` is a subcommand (`vitest run --related` is refused as an unknown option).
  // A shard of the related files is not one of the suite's (split by position in the sorted set).
  // Its options declared without a value (cac) never take the next word: `vitest run --coverage src` filters.
  related: {
    bin: "vitest",
    subcommand: { name: "related", replaces: ["run"] },
    args: (files) => ["--run", ...files],
    beyond: /(?:^|\s)--shard(?:[=\s]|$)/,
    flags:
      /^(?:--no-[\w-]+|--(?:allowOnly|coverage|dangerouslyIgnoreUnhandledErrors|detectAsyncLeaks|dom|expandSnapshotDiff|fileParallelism|globals|hideSkippedTests|includeTaskLocation|isolate|logHeapUsage|passWithNoTests|printConsoleTrace|run|ui))$/,
  },
  coverage: {
    args: ["--coverage"],
    prints: "a text table of % statements, branches, functions and lines per file (needs @vitest/coverage-v8 or -istanbul)",
    istanbulJson: {
      // reportOnFailure: without it Vitest writes no report when a test fails, and a head with one failing
      // test had no line of its change measured (path-to-regexp's and cookie's runs, docs/mutation-evidence.md).
      args: (dir) => ["--coverage.enabled=true", "--coverage.reporter=json", "--coverage.reportOnFailure=true", `--coverage.reportsDirectory=${dir}`],
      needs: ["@vitest/coverage-v8", "@vitest/coverage-istanbul"],
    },
    // Vite's module runner evaluates each module as a function without a file name: V8 reports it anonymous.
    v8: false,
  },
};
