import { parseBun } from "../parsers/tests/bun.js";
import { anyOf, type RunnerDescriptor } from "./types.js";

export const bun: RunnerDescriptor = {
  id: "bun",
  name: "bun test",
  command: "bun test",
  recognise: { command: /\bbun\s+test\b/, files: [{ file: "bunfig.toml", contains: /\[test\]/ }] },
  parse: { text: [parseBun] },
  formats: "bun test default",
  namesTests: "its default output, --reporter=junit",
  junit: "bun test --reporter=junit",
  readableReport: 'bun test: keep its default output, or add --reporter=junit --reporter-outfile=report.xml with testReport: "report.xml"',
  // bunfig.toml's [test] section sets the root, preloads and coverage thresholds.
  testConfigFiles: ["bunfig.toml"],
  // bun 1.4 prints a `test.failing` that failed as `(pass)` and counts it among the passes.
  expectedFailure: { word: "failing" },
  // -t (--test-name-pattern) is a regex over the full name, describe titles and the test's joined by spaces.
  selectByName: (names) => ["-t", anyOf(names.map((n) => n.split(" > ").join(" ")))],
  coverage: { args: ["--coverage"], prints: "a text table of % functions and % lines per file (--coverage-reporter=lcov writes coverage/lcov.info)" },
};
