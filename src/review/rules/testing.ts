import type { FileContext } from "../context.js";
import type { ReviewComment } from "../types.js";
import { RULES, finding } from "./catalog.js";

/**
 * Source code changed without any test change. A small fix (under {@link MIN_SOURCE_LINES} added
 * lines) is not reported: asking for tests on a typo fix is noise.
 */
export const MIN_SOURCE_LINES = 10;

function isSource(ctx: FileContext): boolean {
  const { kind, file } = ctx;
  return kind.isCode && !kind.isTest && !kind.isGenerated && !kind.isScript && !file.path.endsWith(".d.ts") && file.status !== "deleted";
}

export function testing(contexts: FileContext[]): ReviewComment[] {
  if (contexts.some((c) => c.kind.isTest)) return [];
  const sources = contexts.filter((c) => isSource(c) && c.addedLines.length > 0);
  const added = sources.reduce((n, c) => n + c.addedLines.filter((l) => l.code.trim() !== "").length, 0);
  if (added < MIN_SOURCE_LINES) return [];
  const first = sources[0]!;
  const names = sources.slice(0, 3).map((c) => c.file.path).join(", ") + (sources.length > 3 ? `, and ${sources.length - 3} more` : "");
  const f = finding(RULES.missingTests, first.addedLines[0]!.line, `${added} lines of source changed (${names}) but no test file was added or updated.`, {
    suggestion: "Add or update tests that cover the new behaviour, or say in the description why none are needed.",
  });
  return [{ file: first.file.path, ...f }];
}
