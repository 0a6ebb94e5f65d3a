import { parseAva } from "../parsers/tests/ava.js";
import type { RunnerDescriptor } from "./types.js";

export const ava: RunnerDescriptor = {
  id: "ava",
  name: "AVA",
  // Its own reporter, not --tap: AVA's TAP prints a known failure (`test.failing`) `ok`, as a pass.
  command: "npx ava",
  recognise: { command: /\bava\b/, packages: ["ava"] },
  parse: { text: [parseAva] },
  formats: "AVA default (3 to 7)",
  namesTests: "its default reporter (AVA 3: --verbose, or any run outside a terminal), --tap",
  tap: "ava --tap",
  readableReport: "AVA: run it as npx ava, its own reporter (AVA 3: add --verbose); --tap counts too, but a known failure as a pass",
  testConfigFiles: ["ava.config.*"],
  // Its default globs besides the shared list's: `src/test.js` and `source/test.js` (elsewhere a module as often).
  testFileNames: /^(?:src|source)\/test\.[cm]?[jt]s$/,
  // Its TAP prints a known failure `ok`, as a pass, and AVA 3 and 4's own reporter as `✔` (AVA 5 and later: `[expected fail]`).
  expectedFailure: { word: "failing" },
  // --match takes a title (the file's name before " › " is not part of it) where `*` is a wildcard and a
  // leading `!` negates, with no escape: a literal `*` stays a wildcard (a superset), a leading `!` is matched by `*!`.
  // One word with `=`: a title starting with `-` after `--match` is read as options (`--watch …`): every test runs.
  selectByName: (names) => names.map((n) => `--match=${n.split(" › ").pop()!.replace(/^!/, "*!")}`),
};
