/**
 * Reading what build, test, lint and bench commands print: test counts with the failing tests, compiler
 * and linter diagnostics, and the bench number. Pure functions over text; the evaluator runs commands.
 */

import { RUNNERS, STRUCTURED_PARSERS, TEXT_PARSERS } from "../runners/index.js";
import type { CommandOutput, Diagnostic, TestCounts } from "../types.js";
import type { DiagInput } from "./diagnostics/common.js";
import { parseEslintJson, parseEslintStylish } from "./diagnostics/eslint.js";
import { parseGo } from "./diagnostics/go.js";
import { parseFlake8, parseMypy, parsePylint, parsePythonTracebacks } from "./diagnostics/python.js";
import { parseRustc } from "./diagnostics/rustc.js";
import { parseTsc } from "./diagnostics/tsc.js";
import { parseXo } from "./diagnostics/xo.js";
import type { TestInput } from "./tests/common.js";
import { parseJUnitXml } from "./tests/junit.js";
import { cleanText, splitLines } from "./util.js";

export { parseBenchValue } from "./bench.js";

/**
 * The test output formats parseTests reads, named as a user would ask their runner for them (the
 * feedback names only the formats of the runner a command names: runners/index.ts formatsOf). Every entry is
 * backed by real captures in fixtures/outputs. The shared formats first, then each runner's own.
 */
export const KNOWN_TEST_FORMATS: string[] = [
  `JUnit XML, as a report file (testReport) or printed: ${RUNNERS.flatMap((r) => (r.junit ? [r.junit] : [])).join(", ")}, Maven Surefire`,
  `TAP: ${RUNNERS.flatMap((r) => (r.tap ? [r.tap] : [])).join(", ")}`,
  ...RUNNERS.flatMap((r) => (r.formats ? [r.formats] : [])),
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

// Each `\r` segment a line of its own (util.ts cleanText).
const LINES = { lines: true };

export function parseTests(out: CommandOutput, opts: ParseTestsOptions = {}): TestCounts | null {
  const cwd = opts.cwd;
  if (opts.junitXml !== undefined && opts.junitXml.trim() !== "") {
    const fromFile = parseJUnitXml(opts.junitXml, cwd);
    if (fromFile) return fromFile;
  }
  const stdout = cleanText(out.stdout ?? "", LINES);
  // `all` is stdout and stderr interleaved; a caller that only split the streams still gets both.
  const allRaw = out.all !== undefined && out.all !== "" ? out.all : [out.stdout ?? "", out.stderr ?? ""].filter((s) => s !== "").join("\n");
  const text = allRaw === out.stdout ? stdout : cleanText(allRaw, LINES);
  if (text.trim() === "" && stdout.trim() === "") return null;
  const input: TestInput = {
    text,
    lines: splitLines(text),
    stdout: stdout.trim() !== "" ? stdout : text,
    ...(out.stderr ? { stderr: cleanText(out.stderr, LINES) } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    ...(opts.goModule !== undefined ? { goModule: opts.goModule } : {}),
  };

  // Machine-readable reporters first: they are exact and cannot be mistaken for another format. Then
  // the text formats, in the runners' order (runners/index.ts).
  for (const p of STRUCTURED_PARSERS) {
    const r = p(input);
    if (r) return r;
  }
  // A JUnit report printed to stdout (vitest --reporter=junit without an output file).
  const xmlAt = input.stdout.search(/<\?xml|<testsuites?\b/);
  if (xmlAt >= 0) {
    const r = parseJUnitXml(input.stdout.slice(xmlAt), cwd);
    if (r) return r;
  }
  for (const p of TEXT_PARSERS) {
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
