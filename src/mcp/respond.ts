import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CandidateError, type CandidateIssue } from "../candidate/types.js";
import { errorMessage, UserError } from "../util/errors.js";
import { explainSystemError } from "../util/sys-errors.js";
import { truncate } from "../util/text.js";

/** A successful result: structured content for programs and a compact text for clients that read text. */
export function ok(structured: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: structured };
}

/** A candidate's issues for people: where, what, the expected and the closest lines found, and the hint. */
export function issueLines(issues: CandidateIssue[]): string[] {
  const parts: string[] = [];
  for (const i of issues) {
    const where = [i.file, i.hunk !== undefined ? `#${i.hunk}` : ""].filter(Boolean).join(" ");
    parts.push(`- ${where ? `${where}: ` : ""}${i.message}`);
    if (i.expected?.length) parts.push(`  expected:\n${i.expected.map((l) => `    ${l}`).join("\n")}`);
    if (i.closest)
      parts.push(`  closest (line ${i.closest.line}, similarity ${i.closest.score.toFixed(2)}):\n${i.closest.text.map((l) => `    ${l}`).join("\n")}`);
    if (i.hint) parts.push(`  hint: ${i.hint}`);
  }
  return parts;
}

/** Failures are tool results with isError (never protocol errors), saying what went wrong and what to do. */
export function fail(err: unknown): CallToolResult {
  err = explainSystemError(err) ?? err;
  if (err instanceof UserError) {
    const parts = [err.message];
    if (err instanceof CandidateError) {
      // Each issue is said once, with its lines: the summary message would repeat them all.
      parts[0] = `Candidate does not apply (${err.issues.length} ${err.issues.length === 1 ? "problem" : "problems"}); nothing was changed:`;
      parts.push(...issueLines(err.issues));
      if (!err.issues.some((i) => i.hint === err.hint)) parts.push(`What to do: ${err.hint}`);
      return { content: [{ type: "text", text: parts.join("\n") }], isError: true };
    }
    if (err.hint) parts.push(`What to do: ${err.hint}`);
    return { content: [{ type: "text", text: parts.join("\n") }], isError: true };
  }
  process.stderr.write(`code-trm: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return {
    // Capped: an error may quote its input, and an input may be megabytes.
    content: [
      {
        type: "text",
        text: `Unexpected error: ${truncate(errorMessage(err), 4000)}\nWhat to do: nothing was recorded for this call; retry once, and if it persists report it with this message.`,
      },
    ],
    isError: true,
  };
}
