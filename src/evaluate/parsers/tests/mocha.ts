/**
 * Mocha: the JSON reporter (`--reporter json`), the spec and dot reporters (`2 passing (5ms)`,
 * `2 pending`, `3 failing`, then numbered failures; spec names every test in its tree) and the "Exception during run" that mocha prints
 * instead of any result when a test file cannot be loaded.
 *
 * A failing `before all` hook is reported by mocha as a failure but not as a test; it is counted as a
 * failed test here so that every format of the same run gives the same totals.
 */
import { isTestByName } from "../../test-paths.js";
import type { TestCase, TestCounts, TestFailure } from "../../types.js";
import { boundMessage, findJson, firstProjectFrame, indentOf, isProjectPath, isRecord, normalizePath, num, parseJsFrame, str } from "../util.js";
import { counts, failure, MAX_CASES, type TestInput } from "./common.js";

function isMochaJson(v: unknown): v is { stats: Record<string, unknown>; failures?: unknown[] } {
  return isRecord(v) && isRecord(v.stats) && typeof v.stats.passes === "number" && (Array.isArray(v.failures) || Array.isArray(v.tests));
}

export function parseMochaJson(input: TestInput): TestCounts | null {
  const { cwd } = input;
  if (!input.stdout.includes('"stats"')) return null;
  const doc = findJson(input.stdout, isMochaJson);
  if (!isMochaJson(doc)) return null;
  const failures: TestFailure[] = [];
  for (const f of doc.failures ?? []) {
    if (!isRecord(f)) continue;
    const title = str(f.title) ?? "(unnamed test)";
    const full = str(f.fullTitle) ?? title;
    // fullTitle is the suite titles and the test title joined by spaces; recover the suite part.
    const suite = full.endsWith(title) ? full.slice(0, full.length - title.length).trim() : "";
    const err = isRecord(f.err) ? f.err : {};
    const stack = str(err.stack);
    const text = stack ?? str(err.message) ?? "";
    const file = str(f.file);
    const loc = firstProjectFrame(text, cwd) ?? (file ? { file: normalizePath(file, cwd) } : undefined);
    failures.push(failure(suite ? `${suite} > ${title}` : title, boundMessage(text), loc));
  }
  const passed = num(doc.stats.passes) ?? 0;
  const failed = num(doc.stats.failures) ?? failures.length;
  const skipped = num(doc.stats.pending) ?? 0;
  return counts("mocha-json", { passed, failed, skipped }, failures);
}

const PASSING_RE = /^\s+(\d+) passing(?: \(\d+(?:\.\d+)?m?s\))?\s*$/;
const PENDING_RE = /^\s+(\d+) pending\s*$/;
const FAILING_RE = /^\s+(\d+) failing\s*$/;

export function parseMochaSpec(input: TestInput): TestCounts | null {
  const { lines, cwd } = input;
  let passingAt = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (PASSING_RE.test(lines[i]!)) {
      passingAt = i;
      break;
    }
  }
  if (passingAt < 0) return null;
  const passed = Number(PASSING_RE.exec(lines[passingAt]!)![1]);
  let skipped = 0;
  let failed = 0;
  let i = passingAt + 1;
  // `N pending` and `N failing` follow (each only when not 0); the first failure's head can come right
  // after them, within the lines looked at here, and is read below.
  for (; i < lines.length && i < passingAt + 4 && !/^\s+\d+\) /.test(lines[i]!); i++) {
    const p = PENDING_RE.exec(lines[i]!);
    const f = FAILING_RE.exec(lines[i]!);
    if (!p && !f) break;
    if (p) skipped = Number(p[1]);
    if (f) failed = Number(f[1]);
  }
  const failures: TestFailure[] = [];
  for (; i < lines.length; i++) {
    const head = /^(\s+)(\d+)\) (.*)$/.exec(lines[i]!);
    if (!head) continue;
    const baseIndent = head[1]!.length;
    // The title spans lines (one per suite level) and ends with a colon.
    const parts: string[] = [];
    let title = head[3]!;
    let j = i + 1;
    while (!title.endsWith(":") && j < lines.length && j < i + 20 && indentOf(lines[j]!) > baseIndent && lines[j]!.trim() !== "") {
      parts.push(title.trim());
      title = lines[j++]!.trim();
    }
    parts.push(title.replace(/:$/, "").trim());
    const body: string[] = [];
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      if (/^\s+\d+\) /.test(l) && indentOf(l) === baseIndent) break;
      body.push(l);
    }
    const text = body.join("\n");
    failures.push(failure(parts.join(" > "), boundMessage(text), firstProjectFrame(text, cwd)));
    i = j - 1;
  }
  return counts("mocha", { passed, failed, skipped }, failures, undefined, specCases(lines, passingAt, { passed, failed, skipped }));
}

const MAX_PREFIX = 4000;
const SPEC_TEST_RE = /^(\s+)(?:([✔✓√]) (.*?)(?: \(\d+m?s\))?|- (.*)|\d+\) (.*))$/;

/**
 * The spec reporter's tree: suites are indented titles, tests `✔ title`, `- title` (pending) or
 * `3) title` (failing, also a failing hook, which mocha counts as failing). A test is named by its suite
 * titles and its own, joined by " > " as its failure is. Lines at the margin are never suite titles (the
 * reporter indents everything; what tests print is usually not): the names are used only when they
 * account for every count of the summary.
 */
function specCases(lines: string[], end: number, c: { passed: number; failed: number; skipped: number }): TestCase[] | undefined {
  const stack: { indent: number; prefix: string }[] = [];
  const cases: TestCase[] = [];
  for (let i = 0; i < end; i++) {
    const line = lines[i]!;
    if (line.trim() === "") continue;
    const indent = indentOf(line);
    if (indent < 2) continue;
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    const m = SPEC_TEST_RE.exec(line);
    if (!m) {
      const parent = stack[stack.length - 1];
      const prefix = `${parent ? parent.prefix : ""}${line.trim()} > `;
      // Hostile output could nest titles so that every name repeats megabytes: such a tree is not named.
      if (prefix.length > MAX_PREFIX) return undefined;
      stack.push({ indent, prefix });
      continue;
    }
    const title = (m[3] ?? m[4] ?? m[5]!).trim();
    const status: TestCase["status"] = m[2] ? "passed" : m[4] !== undefined ? "skipped" : "failed";
    cases.push({ name: `${stack[stack.length - 1]?.prefix ?? ""}${title}`, status });
    // Past MAX_CASES the suite is tracked by counts (common.ts): stop gathering names.
    if (cases.length > MAX_CASES) return undefined;
  }
  const n = (st: TestCase["status"]) => cases.filter((x) => x.status === st).length;
  return n("passed") === c.passed && n("skipped") === c.skipped && n("failed") === c.failed ? cases : undefined;
}

/**
 * `Exception during run: Error [ERR_MODULE_NOT_FOUND]: ...` : mocha could not load the test files and
 * ran nothing. That is one failure, not an unreadable output: the model must fix the import.
 */
export function parseMochaException(input: TestInput): TestCounts | null {
  const { lines, cwd } = input;
  const at = lines.findIndex((l) => l.trimStart().startsWith("Exception during run: "));
  if (at < 0) return null;
  const first = lines[at]!.trim().slice("Exception during run: ".length);
  const text = [first, ...lines.slice(at + 1, at + 40)].join("\n");
  const importer = / imported from (\S+)/.exec(first);
  const loc = importer ? { file: normalizePath(importer[1]!, cwd) } : firstProjectFrame(text, cwd);
  const f = failure("Exception during run", boundMessage(text, 1), loc);
  // The test file being loaded, where the output shows it: the session counts it missing once it is gone. An ES
  // module names its importer, which may be the code under test: taken only when it is a test file by name.
  const testFile = importer ? (isTestByName(loc!.file) ? loc!.file : undefined) : outermostProjectFrame(text, cwd);
  return { ...counts("mocha", { passed: 0, failed: 1, skipped: 0 }, [testFile ? { ...f, testFile } : f]), loadFailed: true };
}

/** A require chain's outermost frame in the project: the test file mocha was loading (`test/a.spec.js:2:17`). */
function outermostProjectFrame(text: string, cwd?: string): string | undefined {
  let last: string | undefined;
  for (const line of text.split("\n")) {
    const loc = parseJsFrame(line);
    const file = loc ? normalizePath(loc.file, cwd) : undefined;
    if (file && isProjectPath(file, cwd)) last = file;
  }
  return last;
}
