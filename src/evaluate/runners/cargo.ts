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
  // libtest takes several filters after `--`; --exact matches each as a whole path (`tests::adds`).
  selectByName: (names) => ["--", "--exact", ...new Set(names)],
};
