/**
 * JUnit XML report files, the format most runners in every language can write (vitest --reporter=junit,
 * pytest --junitxml, mocha's xunit reporter, jest-junit, Maven Surefire, Gradle, go-junit-report,
 * cargo-nextest). The root is `<testsuites>` or a single `<testsuite>`; suites may nest.
 *
 * Counts come from the `<testcase>` elements, not from the suites' `tests`/`failures` attributes,
 * because producers disagree on those (mocha's xunit counts a failed hook as an error but not as a
 * test; pytest counts xfail as skipped). A testcase with `<failure>` or `<error>` failed; with
 * `<skipped>` it did not run. A testcase with several failures (pytest writes one per failed subtest) is
 * one failed test counting each of them, as the report's `failures` does.
 */
import path from "node:path";
import { XMLParser } from "fast-xml-parser";
import type { TestCase, TestCounts, TestFailure } from "../../types.js";
import { boundMessage, cleanText, firstProjectFrame, isRecord, normalizePath, str } from "../util.js";
import { counts, failure } from "./common.js";

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  textNodeName: "#text",
  // Every element that can repeat is read as an array, so one and many look the same.
  isArray: (name) => ["testsuite", "testcase", "failure", "error", "skipped", "property"].includes(name),
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  htmlEntities: true,
});

export function parseJUnitXml(xml: string, cwd?: string): TestCounts | null {
  if (!/<testsuites?\b/.test(xml)) return null;
  let doc: unknown;
  try {
    doc = parser.parse(xml);
  } catch {
    return null;
  }
  if (!isRecord(doc)) return null;
  const roots: unknown[] = [];
  if (isRecord(doc.testsuites)) roots.push(doc.testsuites);
  else if (doc.testsuites === "") roots.push({});
  if (Array.isArray(doc.testsuite)) roots.push({ testsuite: doc.testsuite });
  if (roots.length === 0) return null;

  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let testsFailed = 0;
  const failures: TestFailure[] = [];
  const cases: TestCase[] = [];
  const visitSuite = (suite: Record<string, unknown>, suiteFile: string | undefined): void => {
    const file = str(suite["@file"]) ?? suiteFile;
    for (const tc of asArray(suite.testcase)) {
      if (!isRecord(tc)) continue;
      const problems = [...asArray(tc.failure), ...asArray(tc.error)];
      // node 20 marks a skipped test that its parent's cancellation reached with both <skipped> and a
      // cancelledByParent <failure>; it never ran, as node's own TAP totals say.
      const cancelledSkip = asArray(tc.skipped).length > 0 && problems.every((p) => isRecord(p) && p["@type"] === "cancelledByParent");
      if (problems.length > 0 && !cancelledSkip) {
        const f = caseFailure(tc, problems[0], file, cwd);
        testsFailed++;
        // A file that failed to load is one failure, however many errors pytest wrote for it (--doctest-modules).
        const load = loadOf(tc, problems, cwd);
        if (load) {
          failed++;
          failures.push({ ...f, name: load.name });
          cases.push(load);
        } else if (problems.length === 1) {
          failed++;
          failures.push(f);
          cases.push({ name: f.name, status: "failed" });
        } else {
          // pytest writes a failure per failed subtest into its test's case, and counts each (failures="24").
          failed += problems.length;
          failures.push({
            ...f,
            message: `${f.message ? `${f.message}\n` : ""}(${problems.length} failures in this test case, as its subtests'; the first is shown)`,
          });
          cases.push({ name: f.name, status: "failed", units: { passed: 0, failed: problems.length, skipped: 0 } });
        }
      } else if (asArray(tc.skipped).length > 0) {
        skipped++;
        cases.push({ name: caseName(tc), status: "skipped" });
      } else {
        passed++;
        // node's point for a file, passing (code that exits 0 as the file loads): named as when it failed.
        cases.push({ name: filePoint(tc, cwd) ?? caseName(tc), status: "passed" });
      }
    }
    for (const child of asArray(suite.testsuite)) if (isRecord(child)) visitSuite(child, file);
  };
  for (const root of roots) if (isRecord(root)) visitSuite(root, undefined);
  const units = failed > testsFailed ? { units: "subtests" as const, testsRan: passed + testsFailed } : {};
  return counts("junit", { passed, failed, skipped, ...units }, failures, undefined, cases);
}

/**
 * A test file or module that failed to load is no test (TestCase.load): pytest's collection failure, named by the
 * module's dotted name; node --test's point for a file, named by its absolute path (taken relative to the worktree).
 */
function loadOf(tc: Record<string, unknown>, problems: unknown[], cwd?: string): TestCase | undefined {
  const name = str(tc["@name"]) ?? "";
  const collection = problems.some((p) => isRecord(p) && p["@message"] === "collection failure");
  if (collection && !str(tc["@classname"]) && /^[\w.]+$/.test(name)) return { name, status: "failed", load: "collect" };
  const point = problems.length === 1 ? filePoint(tc, cwd) : undefined;
  return point ? { name: point, status: "failed", load: true } : undefined;
}

/** node --test's point for a whole file, named by its absolute path: the path in the worktree. */
function filePoint(tc: Record<string, unknown>, cwd?: string): string | undefined {
  const name = str(tc["@name"]) ?? "";
  return path.isAbsolute(name) && /\.[cm]?[jt]sx?$/.test(name) ? normalizePath(name, cwd) : undefined;
}

function asArray(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}

/** Some producers repeat the class in the name ("Suite.test", "Suite > test"); do not add it twice. */
function alreadyQualified(name: string, classname: string): boolean {
  const sep = name.charAt(classname.length);
  return name.startsWith(classname) && sep !== "" && ".:>/ ".includes(sep);
}

function looksLikePath(s: string): boolean {
  return s.includes("/") || s.includes("\\") || /\.[cm]?[jt]sx?$|\.py$|\.rb$|\.go$|\.rs$/.test(s);
}

/** A test case's name as its failure is named, so a test is one identity whatever its outcome. */
function caseName(tc: Record<string, unknown>): string {
  const name = str(tc["@name"]) ?? "(unnamed test)";
  const classname = str(tc["@classname"]) ?? "";
  // vitest puts the file in classname; Java and pytest put the class or module there.
  return classname && !looksLikePath(classname) && !alreadyQualified(name, classname) ? `${classname}.${name}` : name;
}

function caseFailure(tc: Record<string, unknown>, problem: unknown, suiteFile: string | undefined, cwd?: string): TestFailure {
  const classname = str(tc["@classname"]) ?? "";
  const fullName = caseName(tc);
  let file = str(tc["@file"]) ?? suiteFile;
  if (classname && looksLikePath(classname)) file ??= classname;
  const text = isRecord(problem) ? (str(problem["#text"]) ?? "") : typeof problem === "string" ? problem : "";
  const attrMessage = isRecord(problem) ? str(problem["@message"]) : undefined;
  const body = cleanText(text);
  const message = boundMessage(body.trim() !== "" ? pickMessage(body, attrMessage) : attrMessage);
  const lineAttr = str(tc["@line"]);
  let loc: { file?: string; line?: number } | undefined = locationIn(body, cwd);
  if (!loc && file) loc = { file: normalizePath(file, cwd), ...(lineAttr && /^\d+$/.test(lineAttr) ? { line: Number(lineAttr) } : {}) };
  return failure(fullName, message, loc);
}

/**
 * The body often starts with the source of the test (pytest) or repeats the message attribute before
 * a stack (mocha): prefer the lines from the first one that names an error type, then the attribute.
 */
function pickMessage(body: string, attr: string | undefined): string {
  const lines = body.split("\n");
  const e = lines.filter((l) => /^E\s{2,}/.test(l));
  if (e.length > 0) return e.map((l) => l.slice(1).trim()).join("\n");
  const typed = lines.findIndex((l) => /^\s*[\w$.]*(Error|Exception)\b[^:]*:/.test(l));
  if (typed >= 0) return lines.slice(typed).join("\n");
  return attr && attr.trim() !== "" ? attr : body;
}

/** A location inside a failure body: a JS stack frame, vitest's `❯ file:line:col`, or pytest's `file.py:12: Error`. */
function locationIn(body: string, cwd?: string): { file: string; line: number } | undefined {
  const frame = firstProjectFrame(body, cwd);
  if (frame) return { file: frame.file, line: frame.line! };
  let last: { file: string; line: number } | undefined;
  for (const l of body.split("\n")) {
    const m = /^(\S+\.py):(\d+): \S/.exec(l);
    if (m) last = { file: normalizePath(m[1]!, cwd), line: Number(m[2]) };
  }
  return last;
}
