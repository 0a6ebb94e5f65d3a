import { truncate } from "../util/text.js";
import type { Evaluation } from "./evaluate.js";
import { testsLine } from "./feedback.js";

/**
 * One line about an evaluation, for a list of candidates side by side: each command's verdict, then
 * the first thing to fix (a build error, a failing test). Full feedback is for the chosen one only.
 */
export function briefLine(ev: Evaluation): string {
  const sig: string[] = [];
  for (const [key, c] of Object.entries(ev.commands)) {
    if (!c) continue;
    if (c.skipped) sig.push(`${key} skipped`);
    else if (key === "test")
      // A partial run's counts are an estimate (failing-first.ts): said where candidates are compared.
      sig.push(
        ev.tests
          ? `${testsLine(ev.tests)}${ev.partial ? ` (PARTIAL: ran ${ev.partial.ran} of ${ev.partial.of})` : ""}`
          : `tests unreadable (${ev.testsPass ? "passing" : "failing"})`,
      );
    else if (key === "bench") sig.push(`bench ${ev.perf?.value ?? "unreadable"}`);
    else sig.push(`${key} ${c.timedOut ? "TIMED OUT" : c.exitCode === 0 ? "ok" : "FAILED"}`);
  }
  const error = ev.diagnostics.find((d) => d.severity === "error");
  const failure = ev.tests?.failures[0];
  const first = error
    ? `${error.file ? `${error.file}${error.line ? `:${error.line}` : ""} ` : ""}${error.code ? `${error.code} ` : ""}${error.message}`
    : failure
      ? `${failure.name}${failure.message ? `: ${failure.message}` : ""}`
      : "";
  const line = sig.join(" · ") || "no command ran";
  return first ? `${line} — ${truncate(first.replace(/\s+/g, " "), 160)}` : line;
}
