import { parseAva } from "../parsers/tests/ava.js";
import type { RunnerDescriptor } from "./types.js";

export const ava: RunnerDescriptor = {
  id: "ava",
  name: "AVA",
  command: "npx ava --tap",
  recognise: { command: /\bava\b/, packages: ["ava"] },
  parse: { text: [parseAva] },
  formats: "AVA default (4 to 7)",
  namesTests: "--tap",
  tap: "ava --tap",
  readableReport: "AVA: add --tap (ava --tap)",
  testConfigFiles: ["ava.config.*"],
  // --match takes a title (the file's name before " › " is not part of it) where `*` is a wildcard and a
  // leading `!` negates, with no escape: a literal `*` stays a wildcard (a superset), a leading `!` is matched by `*!`.
  // One word with `=`: a title starting with `-` after `--match` is read as options (`--watch …`): every test runs.
  selectByName: (names) => names.map((n) => `--match=${n.split(" › ").pop()!.replace(/^!/, "*!")}`),
};
