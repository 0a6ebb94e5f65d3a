/**
 * AVA's default reporter: `✔ name` per passing test, `✘ [fail]: name <reason>` per failing one,
 * `- [skip] name`, then a block per failure (title, the assertion's `file:line`, the code, the
 * difference or the error with its stack) and a summary that names no passed count when a test
 * failed (`3 tests failed`, `1 test skipped`; `2 tests passed` only when all passed).
 */
import type { TestCase, TestCounts, TestFailure } from "../../types.js";
import { boundMessage, firstProjectFrame, normalizePath } from "../util.js";
import { counts, failure, TAIL_LINES, type TestInput } from "./common.js";


// What AVA appends to a failing test's line; the failure block's title is the name alone.
const REASON_RE = / (?:Error thrown in test|Rejected promise returned by test|Test timeout exceeded|Test finished without running any assertions|Assertion failed)$/;

export function parseAva(input: TestInput): TestCounts | null {
  const { lines, cwd } = input;
  const summary: Record<string, number> = {};
  let hasSummary = false;
  for (let i = Math.max(0, lines.length - TAIL_LINES); i < lines.length; i++) {
    const m = /^\s{2}(\d+) tests? (passed|failed|skipped|todo)\s*$/.exec(lines[i]!);
    if (m) {
      summary[m[2]!] = Number(m[1]);
      hasSummary = true;
    }
  }
  if (!hasSummary) return null;
  const passedNames: string[] = [];
  const skippedNames: string[] = [];
  const failed: string[] = [];
  let sep = -1;
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i]!.trim();
    // A slow test's line ends with its duration: `✔ name (1.2s)`.
    if (t.startsWith("✔ ")) passedNames.push(t.slice(2).replace(/ \(\d+(?:\.\d+)?m?s\)$/, ""));
    else if (t.startsWith("- [skip] ")) skippedNames.push(t.slice("- [skip] ".length));
    else if (t.startsWith("✘ [fail]: ")) failed.push(t.slice("✘ [fail]: ".length).replace(REASON_RE, ""));
    else if (t === "─" && sep < 0) sep = i;
  }
  const ticks = passedNames.length;
  const skips = skippedNames.length;
  if (ticks === 0 && failed.length === 0 && summary.passed === undefined) return null;
  // The failure blocks: a title line (the test's name) after a blank line, up to the next title.
  const failures: TestFailure[] = [];
  const titles = new Set<string>();
  const failedSet = new Set(failed);
  if (sep >= 0) {
    const starts: { i: number; name: string }[] = [];
    for (let i = sep + 1; i < lines.length; i++) {
      const line = lines[i]!;
      if (!/^ {2}\S/.test(line) || (lines[i - 1] ?? "").trim() !== "") continue;
      const t = line.trim();
      if (failedSet.has(t)) starts.push({ i, name: t });
    }
    for (let k = 0; k < starts.length; k++) {
      const { i, name } = starts[k]!;
      const end = starts[k + 1]?.i ?? lines.length;
      const body = lines.slice(i + 1, Math.min(end, i + 200));
      titles.add(name);
      failures.push(blockFailure(name, body, cwd));
    }
  }
  for (const f of failed) if (!titles.has(f)) failures.push(failure(f));
  const nFailed = summary.failed ?? failed.length;
  const passed = summary.passed ?? ticks;
  const skipped = summary.skipped ?? skips;
  // Every test has its line: the tests are named (and tracked by name) when the lines match the counts.
  const named = ticks === passed && failed.length === nFailed && skips === skipped;
  const cases: TestCase[] | undefined = named
    ? [...passedNames.map((name) => ({ name, status: "passed" as const })), ...failed.map((name) => ({ name, status: "failed" as const })), ...skippedNames.map((name) => ({ name, status: "skipped" as const }))]
    : undefined;
  return counts("ava", { passed, failed: nFailed, skipped }, failures, undefined, cases);
}

function blockFailure(name: string, body: string[], cwd?: string): TestFailure {
  let loc: { file?: string; line?: number } | undefined;
  // The assertion's place comes first, alone on its line: `test/lib.test.js:7`.
  const first = body.find((l) => l.trim() !== "")?.trim();
  const at = first ? /^(\S+\.[cm]?[jt]sx?):(\d+)$/.exec(first) : null;
  if (at) loc = { file: normalizePath(at[1]!, cwd), line: Number(at[2]) };
  const text = body.join("\n");
  // An error: its own `TypeError: message` line (the stack's head) is the message.
  const err = /^\s*((?:[A-Z]\w*)?Error\b[^\n{]*: [^\n]+)$/m.exec(text)?.[1];
  let message: string | undefined;
  const diff = body.findIndex((l) => /^\s*Difference \(/.test(l));
  if (diff >= 0) message = boundMessage(body.slice(diff, diff + 8).filter((l) => !/^\s*›/.test(l)).join("\n"));
  else if (err) {
    const why = body.find((l) => /^\s*(Error thrown in test|Rejected promise returned by test|Test timeout)/.test(l))?.trim();
    message = boundMessage(why ? `${why.replace(/[.:]?\s*(Reason:)?$/, "")}: ${err.trim()}` : err.trim());
  } else message = boundMessage(body.filter((l) => !/^\s*\d+:/.test(l) && l.trim() !== first).join("\n"));
  loc ??= firstProjectFrame(text, cwd);
  return failure(name, message, loc);
}
