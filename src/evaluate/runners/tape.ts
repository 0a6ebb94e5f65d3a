import type { RunnerDescriptor } from "./types.js";

export const tape: RunnerDescriptor = {
  id: "tape",
  name: "tape",
  command: "npx tape test/*.js",
  recognise: { command: /\btape\b/, packages: ["tape"] },
  // It prints TAP (read by the TAP parser, which knows tape's assertion counts).
  parse: {},
  namesTests: "its TAP",
  tap: "tape",
  readableReport: "tape: it prints TAP; do not pipe it through a pretty-printer (tap-spec, faucet)",
  // Chosen by the command's file arguments and package.json (generic).
  testConfigFiles: [],
};
