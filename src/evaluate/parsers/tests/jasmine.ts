/**
 * Jasmine's default reporter: `N specs, N failures, N pending specs` (no passed count; pending specs
 * are counted in the specs), numbered failure blocks with `Message:` and `Stack:`. It exits 3 on failure.
 */
import type { TestCounts, TestFailure } from "../../types.js";
import { boundMessage, firstProjectFrame } from "../util.js";
import { counts, failure, TAIL_LINES, type TestInput } from "./common.js";

export function parseJasmine(input: TestInput): TestCounts | null {
  const { lines, cwd } = input;
  let sum: RegExpExecArray | null = null;
  for (let i = lines.length - 1; i >= Math.max(0, lines.length - TAIL_LINES) && !sum; i--) {
    sum = /^(\d+) specs?, (\d+) failures?(?:, (\d+) pending specs?)?\s*$/.exec(lines[i]!.trim());
  }
  if (!sum) return null;
  const specs = Number(sum[1]);
  const failed = Number(sum[2]);
  const pending = Number(sum[3] ?? 0);
  const failures: TestFailure[] = [];
  let inFailures = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "Failures:") inFailures = true;
    else if (/^(Pending|Suite error|Ran \d+)/.test(line) || sum[0] === line.trim()) inFailures = false;
    if (!inFailures) continue;
    const m = /^\d+\) (.+)$/.exec(line);
    if (!m) continue;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && j < i + 120 && !/^\d+\) /.test(lines[j]!) && lines[j] !== "Pending:") body.push(lines[j++]!);
    const msgStart = body.findIndex((l) => l.trim() === "Message:");
    const stackStart = body.findIndex((l) => l.trim() === "Stack:");
    const message = msgStart >= 0 ? body.slice(msgStart + 1, stackStart > msgStart ? stackStart : undefined).join("\n") : undefined;
    const stack = stackStart >= 0 ? body.slice(stackStart + 1).join("\n") : body.join("\n");
    failures.push(failure(m[1]!, boundMessage(message), firstProjectFrame(stack, cwd)));
  }
  return counts("jasmine", { passed: Math.max(0, specs - failed - pending), failed, skipped: pending }, failures);
}
