import { parseJasmine } from "../parsers/tests/jasmine.js";
import { anyOf, type RunnerDescriptor } from "./types.js";

export const jasmine: RunnerDescriptor = {
  id: "jasmine",
  name: "Jasmine",
  command: "npx jasmine",
  recognise: { command: /\bjasmine\b/, packages: ["jasmine"] },
  parse: { text: [parseJasmine] },
  formats: "Jasmine default",
  readableReport: "Jasmine: its default reporter is read; check that the command runs jasmine itself",
  // spec/support/jasmine.json (or .mjs/.js) lists the spec files and helpers.
  testConfigFiles: ["jasmine.json", "jasmine.*js"],
  // --filter is a regex over the full name, suite descriptions and the spec's joined by spaces.
  selectByName: (names) => [`--filter=${anyOf(names)}`],
};
