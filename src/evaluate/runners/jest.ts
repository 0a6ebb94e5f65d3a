import { parseJestText, parseVitestJestJson } from "../parsers/tests/vitest-jest.js";
import { anyOf, escapeRegExp, type RunnerDescriptor } from "./types.js";

export const jest: RunnerDescriptor = {
  id: "jest",
  name: "Jest",
  command: "npx jest --json",
  recognise: { command: /\bjest\b/, packages: ["jest"] },
  parse: { structured: [parseVitestJestJson], text: [parseJestText] },
  formats: "Jest (default, verbose and --json)",
  namesTests: "--json, --verbose",
  junit: "jest-junit",
  readableReport: "Jest: add --json",
  testConfigFiles: ["jest.config.*"],
  // Its --json marks it (`failing: true`, read as skipped); its text reports print it as a pass.
  expectedFailure: { word: "failing" },
  // -t is a regex over the full name, describe titles and the test's joined by spaces (code-trm: " > ").
  selectByName: (names) => ["-t", anyOf(names.map((n) => n.split(" > ").join(" ")))],
  // Its arguments are regexes over each test file's absolute path.
  selectFiles: (files) => files.map((f) => `(?:^|/)${escapeRegExp(f)}$`),
  // --findRelatedTests ignores --testPathPatterns (SearchSource), and a shard of the related files is not
  // one of the suite's (split by position in the sorted set).
  // Its boolean options (yargs) never take the next word: `jest --ci test/unit` names tests.
  related: {
    bin: "jest",
    args: (files) => ["--findRelatedTests", ...files],
    beyond: /(?:^|\s)--(?:testPathPatterns?|shard)(?:[=\s]|$)/,
    flags:
      /^(?:-[iebofu]|--no-[\w-]+|--(?:all|automock|bail|cache|ci|clearMocks|collectCoverage|colors?|coverage|debug|detectLeaks|detectOpenHandles|errorOnDeprecated|expand|forceExit|injectGlobals|json|logHeapUsage|noStackTrace|passWithNoTests|randomize|resetMocks|resetModules|restoreMocks|runInBand|showSeed|silent|testLocationInResults|updateSnapshot|useStderr|verbose|watchAll|watchman|workerThreads))$/,
  },
  coverage: {
    args: ["--coverage"],
    prints: "a text table of % statements, branches, functions and lines per file (--coverageReporters=json-summary: coverage/coverage-summary.json)",
    istanbulJson: { args: (dir) => ["--coverage", "--coverageReporters=json", `--coverageDirectory=${dir}`] },
    // Jest runs its own transform's output in a vm context: V8 sees that text, not the file's.
    v8: false,
  },
};
