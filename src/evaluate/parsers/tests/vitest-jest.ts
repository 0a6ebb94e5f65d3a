/**
 * Vitest and Jest: their JSON reporters (`vitest --reporter=json`, `jest --json`, the same schema) and
 * their default text reporters.
 *
 * A test file that fails before any test runs (an import that does not resolve, a syntax error) has no
 * test results of its own; it is counted as one failed test named after the file, so that a broken
 * suite lowers the score instead of silently disappearing from the totals; it is placed at the line its
 * error gives. A test is named by its suites and title (`suite > title`), without its file, whichever
 * reporter printed it: vitest's verbose lines and failure headers print the file first.
 */
import type { TestCase, TestCounts, TestFailure } from "../../types.js";
import { boundMessage, cleanText, findJson, firstProjectFrame, indentOf, isRecord, normalizePath, num, str } from "../util.js";
import { counts, failure, MAX_CASES, TAIL_LINES, type TestInput } from "./common.js";

/** The test file a failure's test is in, as the reporter names it (failing first runs only those files). */
function inFile(f: TestFailure, file: string | undefined): TestFailure {
  if (file) f.testFile = file;
  return f;
}

function isJestJson(v: unknown): v is Record<string, unknown> {
  return isRecord(v) && typeof v.numTotalTests === "number" && Array.isArray(v.testResults);
}

export function parseVitestJestJson(input: TestInput): TestCounts | null {
  const { cwd } = input;
  if (!input.stdout.includes("numTotalTests")) return null;
  const doc = findJson(input.stdout, isJestJson);
  if (!isJestJson(doc)) return null;
  // Jest's report has fields vitest does not write; only the label depends on it.
  const format = "numRuntimeErrorTestSuites" in doc || "wasInterrupted" in doc ? "jest-json" : "vitest-json";
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures: TestFailure[] = [];
  const cases: TestCase[] = [];
  for (const suite of doc.testResults as unknown[]) {
    if (!isRecord(suite)) continue;
    const file = normalizePath(str(suite.name) ?? str(suite.testFilePath) ?? "", cwd);
    const assertions = Array.isArray(suite.assertionResults) ? suite.assertionResults : Array.isArray(suite.testResults) ? suite.testResults : [];
    let suiteFailed = 0;
    for (const a of assertions as unknown[]) {
      if (!isRecord(a)) continue;
      const status = str(a.status);
      const ancestors = Array.isArray(a.ancestorTitles) ? a.ancestorTitles.filter((t): t is string => typeof t === "string") : [];
      const title = str(a.title) ?? str(a.fullName) ?? "(unnamed test)";
      const name = [...ancestors, title].join(" > ");
      const at = file ? { file } : {};
      // Jest marks a `test.failing` that failed as expected `failing: true` and "passed": a known failure,
      // counted as skipped as AVA's and pytest's xfail are, not as a pass (the reference rules then see it).
      if (status === "passed" && a.failing === true) {
        skipped++;
        cases.push({ name, status: "skipped", ...at });
        continue;
      }
      if (status === "passed") {
        passed++;
        cases.push({ name, status: "passed", ...at });
        continue;
      }
      if (status !== "failed") {
        // pending, skipped, todo, disabled, focused-out: did not run.
        skipped++;
        cases.push({ name, status: "skipped", ...at });
        continue;
      }
      failed++;
      suiteFailed++;
      cases.push({ name, status: "failed", ...at });
      const messages = Array.isArray(a.failureMessages) ? a.failureMessages.filter((m): m is string => typeof m === "string") : [];
      const text = cleanText(messages.join("\n"));
      const frame = firstProjectFrame(text, cwd);
      const loc = frame ?? locationField(a.location, file);
      failures.push(inFile(failure(name, boundMessage(text), loc ?? (file ? { file } : undefined)), file));
    }
    const status = str(suite.status);
    const suiteMessage = str(suite.message) ?? str(suite.failureMessage) ?? (isRecord(suite.testExecError) ? str(suite.testExecError.message) : undefined);
    if (status === "failed" && suiteFailed === 0) {
      // The file itself failed: import error, syntax error, a throwing hook outside any test. It is no test: its
      // tests take its place once it loads (TestCase.load).
      failed++;
      if (file) cases.push({ name: file, status: "failed", file, load: true });
      const text = cleanText(suiteMessage ?? "");
      failures.push(
        inFile(
          failure(
            file || "(test file)",
            boundMessage(stripJestSuiteHeader(text)),
            fileErrorPlace(text, file, cwd) ?? firstProjectFrame(text, cwd) ?? (file ? { file } : undefined),
          ),
          file,
        ),
      );
    }
  }
  return counts(format, { passed, failed, skipped }, failures, undefined, cases);
}

/**
 * Where a test file that could not be loaded has its error, when the error says: a parse error's
 * `╭─[ test/a.test.ts:4:23 ]` (oxc), `File: /abs/test/a.test.js:1:0` (vite's import analysis) or
 * `test/a.test.ts:4:23: ERROR: ...` (esbuild). Only a place in that file is taken.
 */
function fileErrorPlace(text: string, file: string, cwd?: string): { file: string; line: number } | undefined {
  if (!file) return undefined;
  for (const line of text.split("\n", 400)) {
    const m = /(?:╭─\[ ?|^\s*File: |^\s*)(\S+?):(\d+):\d+(?: ?\]|: ERROR:|\s*$)/.exec(line);
    if (m && normalizePath(m[1]!, cwd) === file) return { file, line: Number(m[2]) };
  }
  return undefined;
}

function locationField(v: unknown, file: string): { file?: string; line?: number } | undefined {
  if (!isRecord(v)) return undefined;
  const line = num(v.line);
  return line !== undefined && file ? { file, line } : undefined;
}

/** Jest prefixes a suite error with "● Test suite failed to run"; the cause is what follows. */
function stripJestSuiteHeader(text: string): string {
  return text.replace(/^\s*●\s*Test suite failed to run\s*/u, "");
}

// ---------------------------------------------------------------------------------------------
// Default text reporters.

/** `Tests  2 failed | 4 passed | 1 skipped | 1 todo (8)` (vitest) */
const VITEST_TESTS_RE = /^\s*Tests\s+(.*?)\s*\((\d+)\)\s*$/;
/** `Tests:       2 failed, 1 skipped, 1 todo, 4 passed, 8 total` (jest) */
const JEST_TESTS_RE = /^Tests:\s+(.*\d+ total)\s*$/;

function tally(parts: string[]): { passed: number; failed: number; skipped: number } {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const part of parts) {
    const m = /^(\d+)\s+(.+)$/.exec(part.trim());
    if (!m) continue;
    const n = Number(m[1]);
    const word = m[2]!.toLowerCase();
    if (word === "total") continue;
    if (word.startsWith("fail")) failed += n;
    else if (word.startsWith("pass")) passed += n;
    else skipped += n; // skipped, todo, pending, expected fail ...
  }
  return { passed, failed, skipped };
}

export function parseVitestText(input: TestInput): TestCounts | null {
  const { lines, cwd } = input;
  let summary: { passed: number; failed: number; skipped: number } | null = null;
  let hasFiles = false;
  for (let i = lines.length - 1; i >= 0 && i >= lines.length - TAIL_LINES; i--) {
    const line = lines[i]!;
    if (!summary) {
      const m = VITEST_TESTS_RE.exec(line);
      if (m && !line.includes(":")) summary = tally(m[1]!.split("|"));
    }
    if (/^\s*Test Files\s+.*\(\d+\)\s*$/.test(line)) hasFiles = true;
    if (summary && hasFiles) break;
  }
  // A run where every file failed to load has a "Test Files" line but no "Tests" line.
  if (!hasFiles) return null;
  summary ??= { passed: 0, failed: 0, skipped: 0 };

  const failures: TestFailure[] = [];
  let suiteErrors = 0;
  const failedFiles: string[] = [];
  let section: "tests" | "suites" | null = null;
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i]!.trim();
    if (t.includes("Failed Tests")) section = /⎯\s*Failed Tests \d+\s*⎯/.test(t) ? "tests" : section;
    if (t.includes("Failed Suites")) section = /⎯\s*Failed Suites \d+\s*⎯/.test(t) ? "suites" : section;
    if (section === null || !t.startsWith("FAIL ")) continue;
    // Consecutive FAIL headers share the error printed after them.
    const headers: string[] = [];
    let j = i;
    while (j < lines.length && lines[j]!.trim().startsWith("FAIL ")) headers.push(lines[j++]!.trim().slice(5).trim());
    const body: string[] = [];
    let loc: { file?: string; line?: number } | undefined;
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      const tl = l.trim();
      if (tl.startsWith("FAIL ") || /^⎯{3,}/.test(tl) || /⎯\[\d+\/\d+\]⎯/.test(tl)) break;
      if (tl.startsWith("❯ ")) {
        const m = /(\S+):(\d+):(\d+)$/.exec(tl);
        if (m && !loc) {
          const file = normalizePath(m[1]!, cwd);
          if (!file.includes("node_modules/")) loc = { file, line: Number(m[2]) };
        }
        continue;
      }
      // Code frame lines (`  11| expect(...)`, `   |  ^`) come after the location; not part of the message.
      if (/^\s*\d*\|/.test(l)) continue;
      if (!loc) body.push(l);
    }
    const message = boundMessage(body.join("\n"));
    for (const h of headers) {
      const suiteForm = /^(.*?) \[ (.*) \]$/.exec(h);
      if (section === "suites" || suiteForm) {
        suiteErrors++;
        const file = normalizePath(suiteForm ? suiteForm[1]! : h, cwd);
        failedFiles.push(file);
        failures.push(inFile(failure(file, message, loc ?? fileErrorPlace(body.join("\n"), file, cwd) ?? { file }), file));
      } else {
        const { file, name } = splitTitle(h, cwd);
        failures.push(inFile(failure(name, message, loc ?? { file }), file));
      }
    }
    i = j - 1;
  }
  // Errors thrown outside any test (an unhandled rejection) fail the run; vitest counts them apart.
  let unhandled = 0;
  for (let i = lines.length - 1; i >= 0 && i >= lines.length - TAIL_LINES; i--) {
    const m = /Vitest caught (\d+) unhandled errors? during the test run/.exec(lines[i]!);
    if (m) {
      unhandled = Number(m[1]);
      failures.push(failure("(unhandled errors)", m[0]));
      break;
    }
  }
  return counts(
    "vitest",
    { passed: summary.passed, failed: summary.failed + suiteErrors + unhandled, skipped: summary.skipped },
    failures,
    undefined,
    withFailedFiles(verboseCases(lines, cwd, summary), failedFiles),
  );
}

/** The verbose reporter's tests, and each test file that failed to load as no test (TestCase.load), as the JSON report's. */
function withFailedFiles(cases: TestCase[] | undefined, files: string[]): TestCase[] | undefined {
  if (!cases || files.length === 0) return cases;
  const loads = [...new Set(files)].filter((f) => !cases.some((c) => c.name === f));
  return [...cases, ...loads.map((f): TestCase => ({ name: f, status: "failed", file: f, load: true }))];
}

/** `test/a.test.ts > suite > title`: the file, and the test's name as vitest's JSON and JUnit reporters name it. */
function splitTitle(h: string, cwd?: string): { file: string; name: string } {
  const parts = h.split(" > ");
  return { file: normalizePath(parts[0]!, cwd), name: parts.length > 1 ? parts.slice(1).join(" > ") : parts[0]! };
}

// The verbose reporter's line per test: `✓ test/a.test.ts > suite > title 5ms`, `×` failed, `↓` skipped,
// `□` todo. The default reporter lists the tests of a failing file by title alone (no suites): not names.
const VERBOSE_RE = /^ {1,2}([✓×↓□]) (\S[^>]*? > .+?)(?: \d+(?:\.\d+)?m?s)?$/;

/**
 * The verbose reporter names every test with its file, as its failures are headed (`FAIL test/a.test.ts >
 * suite > title`); a test is named as its failure is, without the file, so that its passing and failing
 * forms are one test. Used only when the lines account for the summary's counts.
 */
function verboseCases(lines: string[], cwd: string | undefined, c: { passed: number; failed: number; skipped: number }): TestCase[] | undefined {
  const cases: TestCase[] = [];
  for (const line of lines) {
    if (!line.startsWith(" ")) continue;
    const m = VERBOSE_RE.exec(line);
    if (!m) continue;
    const status: TestCase["status"] = m[1] === "✓" ? "passed" : m[1] === "×" ? "failed" : "skipped";
    const { file, name } = splitTitle(m[2]!, cwd);
    cases.push({ name, status, file });
    if (cases.length > MAX_CASES) return undefined;
  }
  const n = (st: TestCase["status"]) => cases.filter((x) => x.status === st).length;
  return cases.length > 0 && n("passed") === c.passed && n("skipped") === c.skipped && n("failed") === c.failed ? cases : undefined;
}

export function parseJestText(input: TestInput): TestCounts | null {
  const { lines, cwd } = input;
  let summary: { passed: number; failed: number; skipped: number } | null = null;
  let suitesLine = false;
  for (let i = lines.length - 1; i >= 0 && i >= lines.length - TAIL_LINES; i--) {
    const line = lines[i]!;
    if (!summary) {
      const m = JEST_TESTS_RE.exec(line);
      if (m) summary = tally(m[1]!.split(","));
    }
    if (/^Test Suites:\s+.*\d+ total/.test(line)) suitesLine = true;
    if (summary && suitesLine) break;
  }
  if (!suitesLine) return null;
  summary ??= { passed: 0, failed: 0, skipped: 0 };

  const failures: TestFailure[] = [];
  let suiteErrors = 0;
  let file: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const header = /^\s*(FAIL|PASS)\s+(\S+)/.exec(line);
    if (header) {
      file = normalizePath(header[2]!, cwd);
      continue;
    }
    if (line.startsWith("Summary of all failing tests")) {
      // Jest repeats every failure there; the ones above are complete.
      break;
    }
    const bullet = /^\s+● (.+)$/.exec(line);
    if (!bullet || file === undefined) continue;
    const title = bullet[1]!.trim();
    if (title === "Console") continue;
    const ind = indentOf(line);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      if (l.trim() !== "" && indentOf(l) <= ind) break;
      if (/^\s+● /.test(l) && indentOf(l) === ind) break;
      body.push(l);
    }
    const text = body.join("\n");
    // The message ends where the code frame (`> 10 | ...`) or the stack starts.
    const msgLines: string[] = [];
    for (const l of body) {
      if (/^\s*>?\s*\d+ \|/.test(l) || /^\s*at /.test(l)) break;
      msgLines.push(l);
    }
    const loc = firstProjectFrame(text, cwd) ?? { file };
    if (title === "Test suite failed to run") {
      suiteErrors++;
      failures.push(inFile(failure(file, boundMessage(msgLines.join("\n")), loc), file));
    } else {
      failures.push(inFile(failure(title.split(" › ").join(" > "), boundMessage(msgLines.join("\n")), loc), file));
    }
    i = j - 1;
  }
  return counts("jest", { passed: summary.passed, failed: summary.failed + suiteErrors, skipped: summary.skipped }, failures);
}
