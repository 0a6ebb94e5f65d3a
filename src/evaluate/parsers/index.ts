/**
 * Reading what build, test, lint and bench commands print: test counts with the failing tests, compiler
 * and linter diagnostics, and the bench number. Pure functions over text; the evaluator runs commands.
 */
import type { CommandOutput, Diagnostic, TestCounts } from "../types.js";
import { parseEslintJson, parseEslintStylish } from "./diagnostics/eslint.js";
import { parseGo } from "./diagnostics/go.js";
import { parseFlake8, parseMypy, parsePylint, parsePythonTracebacks } from "./diagnostics/python.js";
import { parseRustc } from "./diagnostics/rustc.js";
import { parseTsc } from "./diagnostics/tsc.js";
import { parseXo } from "./diagnostics/xo.js";
import type { DiagInput } from "./diagnostics/common.js";
import { parseAva } from "./tests/ava.js";
import { parseCargo } from "./tests/cargo.js";
import { parseJasmine } from "./tests/jasmine.js";
import { parseUvu } from "./tests/uvu.js";
import type { TestInput } from "./tests/common.js";
import { parseGoJson, parseGoText } from "./tests/go.js";
import { parseJUnitXml } from "./tests/junit.js";
import { parseMochaException, parseMochaJson, parseMochaSpec } from "./tests/mocha.js";
import { parseNodeSpec } from "./tests/node-spec.js";
import { parsePytest } from "./tests/pytest.js";
import { parseTap } from "./tests/tap.js";
import { parseUnittest } from "./tests/unittest.js";
import { parseJestText, parseVitestJestJson, parseVitestText } from "./tests/vitest-jest.js";
import { cleanText, splitLines } from "./util.js";

export { parseBenchValue } from "./bench.js";

/**
 * The test output formats parseTests reads, named as a user would ask their runner for them: the
 * feedback lists them when a test command's output could not be read (feedback.ts). Every entry is
 * backed by real captures in fixtures/outputs.
 */
export const KNOWN_TEST_FORMATS: string[] = [
  "JUnit XML, as a report file (testReport) or printed: vitest --reporter=junit, node --test --test-reporter=junit, pytest --junitxml, mocha --reporter xunit, jest-junit, Maven Surefire",
  "TAP: node --test --test-reporter=tap, node-tap, tape, ava --tap, mocha --reporter tap, vitest --reporter=tap or tap-flat",
  "node --test spec reporter",
  "Vitest (default, verbose and JSON reporters)",
  "Jest (default, verbose and --json)",
  "Mocha (spec and JSON reporters)",
  "AVA, uvu and Jasmine default reporters",
  "pytest (default, -q, -v, -rA)",
  "unittest (default and -v)",
  "go test (text, -v and -json)",
  "cargo test",
];

export interface ParseTestsOptions {
  /** Contents of a JUnit XML report file written by the test command. */
  junitXml?: string;
  /**
   * The worktree the command ran in. When given, absolute paths inside it (in failure locations and
   * in test names that are file paths) are made relative, as diagnostics are.
   */
  cwd?: string;
  /** The Go module path from go.mod, when there is one. */
  goModule?: string;
}

type TestParser = (input: TestInput) => TestCounts | null;

/**
 * Machine-readable reporters first: they are exact and their output cannot be mistaken for another
 * format. Then the text formats, most specific summary line first; each returns null unless its own
 * summary is present, so the order only matters for outputs that contain two runners' output.
 */
const STRUCTURED: TestParser[] = [parseVitestJestJson, parseMochaJson, parseGoJson];
const TEXT: TestParser[] = [
  parseCargo,
  parseGoText,
  parsePytest,
  parseUnittest,
  parseJestText,
  parseVitestText,
  parseNodeSpec,
  parseMochaSpec,
  parseTap,
  parseAva,
  parseUvu,
  parseJasmine,
  parseMochaException,
];

export function parseTests(out: CommandOutput, opts: ParseTestsOptions = {}): TestCounts | null {
  const cwd = opts.cwd;
  if (opts.junitXml !== undefined && opts.junitXml.trim() !== "") {
    const fromFile = parseJUnitXml(opts.junitXml, cwd);
    if (fromFile) return fromFile;
  }
  const stdout = cleanText(out.stdout ?? "");
  // `all` is stdout and stderr interleaved; a caller that only split the streams still gets both.
  const allRaw = out.all !== undefined && out.all !== "" ? out.all : [out.stdout ?? "", out.stderr ?? ""].filter((s) => s !== "").join("\n");
  const text = allRaw === out.stdout ? stdout : cleanText(allRaw);
  if (text.trim() === "" && stdout.trim() === "") return null;
  const input: TestInput = { text, lines: splitLines(text), stdout: stdout.trim() !== "" ? stdout : text, ...(cwd !== undefined ? { cwd } : {}), ...(opts.goModule !== undefined ? { goModule: opts.goModule } : {}) };

  for (const p of STRUCTURED) {
    const r = p(input);
    if (r) return r;
  }
  // A JUnit report printed to stdout (vitest --reporter=junit without an output file).
  const xmlAt = input.stdout.search(/<\?xml|<testsuites?\b/);
  if (xmlAt >= 0) {
    const r = parseJUnitXml(input.stdout.slice(xmlAt), cwd);
    if (r) return r;
  }
  for (const p of TEXT) {
    const r = p(input);
    if (r) return r;
  }
  return null;
}

type DiagParser = (input: DiagInput) => Diagnostic[];

const DIAGNOSTIC_PARSERS: DiagParser[] = [
  parseTsc,
  parseEslintJson,
  parseEslintStylish,
  parseXo,
  parsePythonTracebacks,
  parseFlake8,
  parsePylint,
  parseMypy,
  parseGo,
  parseRustc,
];

/**
 * Diagnostics from compiler, linter and interpreter output. Each tool's line format is distinct, so
 * every parser reads the whole output and the results are concatenated in output order per tool;
 * identical diagnostics (a tool that reports the same problem twice, two passes of a build) are kept once.
 */
export function parseDiagnostics(text: string, opts: { cwd: string }): Diagnostic[] {
  const clean = cleanText(text ?? "");
  if (clean.trim() === "") return [];
  const input: DiagInput = { text: clean, lines: splitLines(clean), cwd: opts.cwd };
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const p of DIAGNOSTIC_PARSERS) {
    for (const d of p(input)) {
      const key = [d.source, d.severity, d.file ?? "", d.line ?? "", d.column ?? "", d.code ?? "", d.message].join("\u0000");
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(d);
    }
  }
  return out;
}
