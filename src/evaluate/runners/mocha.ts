import { parseMochaException, parseMochaJson, parseMochaSpec } from "../parsers/tests/mocha.js";
import { anyOf, type RunnerDescriptor } from "./types.js";

export const mocha: RunnerDescriptor = {
  id: "mocha",
  name: "Mocha",
  command: "npx mocha --reporter=json",
  recognise: { command: /\bmocha\b/, packages: ["mocha"] },
  // A crash before any test ran looks like any runner's: its reader goes after every other parser.
  parse: { structured: [parseMochaJson], text: [parseMochaSpec], last: [parseMochaException] },
  formats: "Mocha (spec, dot, JSON)",
  namesTests: "spec (default), --reporter=json, --reporter=tap",
  tap: "mocha --reporter tap",
  junit: "mocha --reporter xunit",
  readableReport: "Mocha: add --reporter=json (or --reporter=tap)",
  // The one reporter the command names (the command line overrides .mocharc); not `--reporter-option`.
  reportFormat: (cmd) => {
    const named = [...cmd.matchAll(/(?:^|\s)(?:--reporter[= ]|-R\s*)['"]?([\w-]+)/g)].map((m) => m[1]);
    return named.length === 1 ? ({ json: "mocha-json", tap: "tap" } as Record<string, string>)[named[0]!] : undefined;
  },
  testConfigFiles: [".mocharc", ".mocharc.*"],
  // --grep is a regex over the full title, suite titles and the test's joined by spaces.
  selectByName: (names) => ["--grep", anyOf(names.map((n) => n.split(" > ").join(" ")))],
};
