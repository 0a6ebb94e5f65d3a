import { parseUvu } from "../parsers/tests/uvu.js";
import type { RunnerDescriptor } from "./types.js";

export const uvu: RunnerDescriptor = {
  id: "uvu",
  name: "uvu",
  command: "npx uvu test",
  recognise: { command: /\buvu\b/, packages: ["uvu"] },
  parse: { text: [parseUvu] },
  formats: "uvu default",
  readableReport: "uvu: its default reporter is read; check that the command runs uvu itself",
  // Chosen by the command's arguments (a folder and a file pattern) and package.json (generic).
  testConfigFiles: [],
};
