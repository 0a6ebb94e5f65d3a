import { parseCargo } from "../parsers/tests/cargo.js";
import type { RunnerDescriptor } from "./types.js";

export const cargo: RunnerDescriptor = {
  id: "cargo",
  name: "cargo test",
  command: "cargo test",
  recognise: { command: /\bcargo\s+test\b/, files: [{ file: "Cargo.toml" }] },
  parse: { text: [parseCargo] },
  formats: "cargo test",
  namesTests: "its default output",
  readableReport: "cargo test: keep libtest's default output (no --quiet)",
  testConfigFiles: ["Cargo.toml"],
  // libtest takes several filters after `--`; --exact matches each as a whole path (`tests::adds`). A name
  // starting with `-` (a harness of its own names its trials as it likes) would be an option to libtest
  // (`--include-ignored` runs the ignored tests too): a second `--` ends libtest's options before the names.
  selectByName: (names) => ["--", "--exact", ...(names.some((n) => n.startsWith("-")) ? ["--"] : []), ...new Set(names)],
};
