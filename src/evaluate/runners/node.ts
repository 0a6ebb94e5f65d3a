import { parseNodeSpec } from "../parsers/tests/node-spec.js";
import { anyOf, type RunnerDescriptor } from "./types.js";

export const node: RunnerDescriptor = {
  id: "node",
  name: "node --test",
  command: "node --test --test-reporter=tap",
  recognise: { command: /\bnode\s+--test\b/ },
  parse: { text: [parseNodeSpec] },
  formats: "node --test spec",
  namesTests: "spec, --test-reporter=tap, --test-reporter=junit",
  tap: "node --test --test-reporter=tap",
  junit: "node --test --test-reporter=junit",
  readableReport: "node --test: add --test-reporter=tap",
  // Chosen by the command's own arguments and package.json (generic).
  testConfigFiles: [],
  // Node 22+ matches the pattern against the full name (ancestors' names and the test's joined by spaces),
  // Node 20 against the test's own name: both forms are given (the leaf alone may select more, never less).
  selectByName: (names) => ["--test-name-pattern", anyOf([...new Set(names.flatMap((n) => [n.split(" > ").join(" "), n.split(" > ").pop()!]))])],
  // Options after a file argument are taken for another file (`Could not find '…/--test-name-pattern'`).
  selectAt: { after: /--test(?=\s|$)/ },
  coverage: { args: ["--experimental-test-coverage"], prints: "a table of line, branch and function % per file, in the reporter's comments (TAP `# `)" },
};
