/**
 * uvu's default reporter: `FAIL  "name"` (or `FAIL  Suite  "name"`) blocks with the assertion's message
 * and a stack, then `Total:`, `Passed:`, `Skipped:`. uvu's total leaves skipped tests out.
 */
import type { TestCounts, TestFailure } from "../../types.js";
import { boundMessage, firstProjectFrame } from "../util.js";
import { counts, failure, TAIL_LINES, type TestInput } from "./common.js";

export function parseUvu(input: TestInput): TestCounts | null {
  const { lines, cwd } = input;
  const got: Record<string, number> = {};
  for (let i = Math.max(0, lines.length - TAIL_LINES); i < lines.length; i++) {
    const m = /^\s{2}(Total|Passed|Skipped):\s+(\d+)\s*$/.exec(lines[i]!);
    if (m) got[m[1]!] = Number(m[2]);
  }
  if (got.Total === undefined || got.Passed === undefined) return null;
  const failures: TestFailure[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s+FAIL\s+(?:(\S.*?)\s+)?"(.*)"\s*$/.exec(lines[i]!);
    if (!m) continue;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && j < i + 120 && !/^\s+FAIL\s+/.test(lines[j]!) && !/^\s{2}Total:/.test(lines[j]!)) body.push(lines[j++]!);
    const msg = body.map((l) => l.replace(/\s+\((Expected|Actual)\)\s*$/, " ($1)"));
    failures.push(failure(m[1] ? `${m[1]} > ${m[2]}` : m[2]!, boundMessage(msg.join("\n")), firstProjectFrame(body.join("\n"), cwd)));
  }
  const failed = Math.max(0, got.Total - got.Passed);
  return counts("uvu", { passed: got.Passed, failed, skipped: got.Skipped ?? 0 }, failures);
}
