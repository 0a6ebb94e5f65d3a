/**
 * AVA's default reporter: `✔ name` per passing test, a line per failing one (AVA 5 and later
 * `✘ [fail]: name <reason>`, AVA 4 `✖ name <reason>`), a skipped one (`- [skip] name`, AVA 4 `- name`),
 * then a block per failure (title, the assertion's `file:line`, the code, the difference or the error
 * with its stack) and a summary that names no passed count when a test failed (`3 tests failed`,
 * `1 test skipped`; `2 tests passed` only when all passed).
 *
 * A known failure (`test.failing`) that fails as expected is `✔ [expected fail] name` and counted apart
 * (`1 known failure`), neither passed nor failed: it is counted as skipped, as pytest's xfail is, so that
 * fixing it (AVA then fails it, `✘ [unexpected pass]: name`, until it is marked `test`) is not a
 * test gone missing. Todo tests (`- [todo] name`, `1 test todo`) are skipped too.
 */
import type { TestCase, TestCounts, TestFailure } from "../../types.js";
import { boundMessage, errorOfDump, firstProjectFrame, normalizePath } from "../util.js";
import { counts, failure, TAIL_LINES, type TestInput } from "./common.js";

// What AVA appends to a failing test's line when the failure block cannot be found for its name.
const REASON_RE =
  / (?:Error thrown in test|Rejected promise returned by test|Test timeout exceeded|Test finished without running any assertions|Assertion failed|Test was expected to fail, but succeeded, you should stop marking the test as failing)$/;
// AVA 4 marks a crash or a run-level error with the ✖ of a failing test: these lines name no test.
const NOT_A_TEST_RE =
  /^(?:Timed out while running tests|Exiting due to|Internal error|No tests found in|Error in shared worker|Couldn’t find any|Based on your configuration|Line numbers for|\d+ tests? remaining in|\S+ exited (?:due to|with a non-zero))/;
// The rule AVA prints before the failure blocks and before the summary.
const RULE = "─";

export function parseAva(input: TestInput): TestCounts | null {
  const { lines, cwd } = input;
  const summary: Record<string, number> = {};
  let hasSummary = false;
  for (let i = Math.max(0, lines.length - TAIL_LINES); i < lines.length; i++) {
    const m = /^\s{2}(\d+) (?:tests? (passed|failed|skipped|todo)|(known failures?))\s*$/.exec(lines[i]!);
    if (m) {
      summary[m[2] ?? "known"] = Number(m[1]);
      hasSummary = true;
    }
  }
  if (!hasSummary) return null;
  const passedNames: string[] = [];
  const skippedNames: string[] = [];
  // A failing test's line: its name, then the failure's message (AVA 4 leaves a space for an empty one).
  const failedLines: string[] = [];
  let sep = -1;
  let knownMarked = 0;
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i]!.trim();
    // A slow test's line ends with its duration: `✔ name (1.2s)`.
    if (t.startsWith("✔ [expected fail] ")) {
      skippedNames.push(t.slice("✔ [expected fail] ".length));
      knownMarked++;
    } else if (t.startsWith("✔ ")) passedNames.push(t.slice(2).replace(/ \(\d+(?:\.\d+)?m?s\)$/, ""));
    else if (t.startsWith("- [skip] ") || t.startsWith("- [todo] ")) skippedNames.push(t.slice("- [skip] ".length));
    else if (t.startsWith("✘ [fail]: ")) failedLines.push(t.slice("✘ [fail]: ".length));
    else if (t.startsWith("✘ [unexpected pass]: ")) failedLines.push(t.slice("✘ [unexpected pass]: ".length));
    else if (t === RULE) {
      if (sep < 0) sep = i;
    } else if (sep < 0 && /^ {2}[✖-] /.test(lines[i]!)) {
      // AVA 4, in the list of tests above the failure blocks.
      const rest = t.slice(2);
      if (t.startsWith("- ")) {
        if (!rest.startsWith("[")) skippedNames.push(rest);
      } else if (!NOT_A_TEST_RE.test(rest)) failedLines.push(rest);
    }
  }
  const ticks = passedNames.length;
  const skips = skippedNames.length;
  if (ticks === 0 && failedLines.length === 0 && summary.passed === undefined) return null;
  // The failure blocks: a title line (the test's name) after a blank line, up to the next title or rule.
  const starts = sep >= 0 ? blockStarts(lines, sep, failedLines) : [];
  const titles = starts.map((s) => s.name);
  const failed = failedLines.map((l) => nameOf(l, titles));
  const failures: TestFailure[] = [];
  for (let k = 0; k < starts.length; k++) {
    const { i, name } = starts[k]!;
    const end = Math.min(starts[k + 1]?.i ?? lines.length, i + 200);
    const body: string[] = [];
    for (let j = i + 1; j < end && lines[j]!.trim() !== RULE; j++) body.push(lines[j]!);
    failures.push(blockFailure(name, body, cwd));
  }
  for (const f of failed) if (!titles.includes(f)) failures.push(failure(f));
  const nFailed = summary.failed ?? failed.length;
  // AVA 3 and 4 print a known failure as `✔ name`, like a pass (only its colour differs): without a
  // passed count in the summary (a test failed), the ticks include the known failures that were not marked.
  const unmarkedKnown = Math.max(0, (summary.known ?? 0) - knownMarked);
  const passed = summary.passed ?? Math.max(0, ticks - unmarkedKnown);
  // Known failures and todo tests are counted apart by AVA, each a line of its own.
  const skipped =
    summary.skipped === undefined && summary.todo === undefined && summary.known === undefined
      ? skips
      : (summary.skipped ?? 0) + (summary.todo ?? 0) + (summary.known ?? 0);
  // Every test has its line: the tests are named (and tracked by name) when the lines match the counts.
  const named = ticks === passed && failed.length === nFailed && skips === skipped;
  const cases: TestCase[] | undefined = named
    ? [
        ...passedNames.map((name) => ({ name, status: "passed" as const })),
        ...failed.map((name) => ({ name, status: "failed" as const })),
        ...skippedNames.map((name) => ({ name, status: "skipped" as const })),
      ]
    : undefined;
  return counts("ava", { passed, failed: nFailed, skipped }, failures, undefined, cases);
}

/** A failing test's line is its name, or its name, a space and the failure's message. */
const named = (line: string, title: string) => line === title || line.startsWith(`${title} `);

/** Where each failure block starts: a title that begins a failing test's line, after a blank line. */
function blockStarts(lines: string[], sep: number, failedLines: string[]): { i: number; name: string }[] {
  const starts: { i: number; name: string }[] = [];
  for (let i = sep + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (!/^ {2}\S/.test(line) || (lines[i - 1] ?? "").trim() !== "") continue;
    const t = line.trim();
    if (failedLines.some((l) => named(l, t))) starts.push({ i, name: t });
  }
  return starts;
}

/** The test's name in its line: the longest block title it begins with, else the line less AVA's reason. */
function nameOf(line: string, titles: string[]): string {
  let best: string | undefined;
  for (const t of titles) if (named(line, t) && (best === undefined || t.length > best.length)) best = t;
  return best ?? line.replace(REASON_RE, "").trimEnd();
}

function blockFailure(name: string, body: string[], cwd?: string): TestFailure {
  let loc: { file?: string; line?: number } | undefined;
  // The assertion's place comes first, alone on its line: `test/lib.test.js:7`.
  const first = body.find((l) => l.trim() !== "")?.trim();
  const at = first ? /^(\S+\.[cm]?[jt]sx?):(\d+)$/.exec(first) : null;
  if (at) loc = { file: normalizePath(at[1]!, cwd), line: Number(at[2]) };
  const text = body.join("\n");
  // An error: its own `TypeError: message` line (the stack's head) is the message; AVA 4 and 5 print
  // no stack head, only the error as an object (`TypeError {` / `message: '…',`).
  const err = /^\s*((?:[A-Z]\w*)?Error\b[^\n{]*: [^\n]+)$/m.exec(text)?.[1] ?? errorOfDump(text);
  const isFrame = (l: string) => /^\s*›/.test(l);
  let message: string | undefined;
  const diff = body.findIndex((l) => /^\s*Difference\b[^:]*:\s*$/.test(l));
  if (diff >= 0)
    message = boundMessage(
      body
        .slice(diff, diff + 8)
        .filter((l) => !isFrame(l))
        .join("\n"),
    );
  else if (err) {
    const why = body.find((l) => /^\s*(Error thrown in test|Rejected promise returned by test|Test timeout)/.test(l))?.trim();
    message = boundMessage(why ? `${why.replace(/[.:]?\s*(Reason:)?$/, "")}: ${err.trim()}` : err.trim());
  } else message = boundMessage(body.filter((l) => !/^\s*\d+:/.test(l) && !isFrame(l) && !(at && l.trim() === first)).join("\n"));
  // A thrown error is placed where it was thrown (its stack's first frame in the project), as AVA 6 does.
  const frame = firstProjectFrame(text, cwd);
  if (err && frame) loc = frame;
  loc ??= frame;
  return failure(name, message, loc);
}
