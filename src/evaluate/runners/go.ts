import { parseGoJson, parseGoText } from "../parsers/tests/go.js";
import { escapeRegExp, type RunnerDescriptor } from "./types.js";

/** `example.com/calc.TestMul/sub` → the package and the top-level test. */
const split = (name: string): { pkg: string | undefined; test: string } => {
  const m = /^(.*)\.((?:Test|Example|Fuzz|Benchmark)[^/.]*)(?:\/.*)?$/.exec(name);
  return m ? { pkg: m[1]!, test: m[2]! } : { pkg: undefined, test: name.split("/")[0]! };
};

export const go: RunnerDescriptor = {
  id: "go",
  name: "go test",
  command: "go test -json ./...",
  recognise: { command: /\bgo\s+test\b/, files: [{ file: "go.mod" }] },
  parse: { structured: [parseGoJson], text: [parseGoText] },
  formats: "go test (text, -v and -json)",
  namesTests: "-v, -json",
  readableReport: "go test: add -v (or -json)",
  testConfigFiles: ["go.mod"],
  // -run is a regex per level of `/`; a subtest runs with its top-level test (a superset). No import path
  // starts with `-`: a package read so (a test printing go's own lines) would be a flag to go test, so the
  // whole suite runs.
  selectByName: (names) => {
    const parsed = names.map(split);
    const pkgs = [...new Set(parsed.flatMap((p) => (p.pkg ? [p.pkg] : [])))];
    if (pkgs.some((p) => p.startsWith("-"))) return undefined;
    return [...pkgs, "-run", `^(?:${[...new Set(parsed.map((p) => escapeRegExp(p.test)))].join("|")})$`];
  },
  coverage: {
    args: ["-cover"],
    prints: "`coverage: 85.0% of statements` per package",
    // Test flags may follow the packages; the last -coverprofile given wins over the project's own.
    goProfile: (file) => [`-coverprofile=${file}`],
  },
};
