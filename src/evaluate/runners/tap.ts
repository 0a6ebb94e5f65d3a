import { parseTap } from "../parsers/tests/tap.js";
import { escapeRegExp, type RunnerDescriptor } from "./types.js";

export const tap: RunnerDescriptor = {
  id: "tap",
  name: "node-tap",
  // The program `tap`, not a reporter named tap (`--reporter=tap`, `ava --tap`).
  command: "npx tap --reporter=tap",
  recognise: { command: /(?:^|[\s/])tap(?=\s|$)/, packages: ["tap"] },
  // The TAP protocol itself: node --test, tape, ava --tap, mocha and vitest's TAP reporters are read by it too.
  parse: { text: [parseTap] },
  namesTests: "--reporter=tap",
  tap: "tap --reporter=tap",
  readableReport: "node-tap: add --reporter=tap",
  testConfigFiles: [".taprc"],
  // Names are `file > title > subtest`: the files are given as arguments, each --grep is a regex for one level.
  selectByName: (names) => {
    const parts = names.map((n) => n.split(" > "));
    const files = [...new Set(parts.map((p) => p[0]!))];
    const depth = Math.max(...parts.map((p) => p.length));
    const levels = Array.from({ length: depth - 1 }, (_, i) => [...new Set(parts.flatMap((p) => (p[i + 1] !== undefined ? [p[i + 1]!] : [])))]);
    return [...files, ...levels.filter((l) => l.length > 0).map((l) => `--grep=^(?:${l.map(escapeRegExp).join("|")})$`)];
  },
  coverage: { args: [], prints: "a coverage table after the tests by default (tap 18+: --disable-coverage turns it off)" },
};
