import { git } from "../git/cli.js";
import { REVIEW_DIFF_ARGS, type ReviewComment, reviewPr } from "../review/index.js";
import { errorMessage } from "../util/errors.js";
import { LIMITS } from "../util/limits.js";
import { truncate } from "../util/text.js";
import type { Priority, Suggestion } from "./types.js";

/**
 * A static look at what the session changed: the review engine's rules over the diff from the
 * baseline to the session tip. Only rules that point at something worth a step are kept; style
 * notes (magic numbers, long lines, TODOs) would crowd out real problems in a top-5 list.
 */
const RULE_PRIORITY: Record<string, Priority> = {
  eval: "high",
  "command-injection": "high",
  "sql-injection": "high",
  "hardcoded-secret": "high",
  "tls-disabled": "high",
  "path-traversal": "high",
  "ts-explicit-any": "medium",
  "ts-ignore": "medium",
  "empty-catch": "medium",
  "swallowed-error": "medium",
  "floating-promise": "medium",
  "console-log": "low",
  "long-function": "low",
};

const DEFAULT_ACTION: Record<string, string> = {
  "ts-explicit-any": "Replace `any` with the real type (or `unknown` and narrow it).",
  "empty-catch": "Handle, rethrow or log the error; if ignoring it is intended, say why in a comment.",
  "console-log": "Remove the debug output or use the project's logger.",
  "long-function": "Split it into smaller named functions.",
  "floating-promise": "Await the promise, return it, or handle its rejection with .catch.",
};

export function suggestionsFromReview(comments: ReviewComment[]): Suggestion[] {
  const out: Suggestion[] = [];
  for (const c of comments) {
    const priority = RULE_PRIORITY[c.rule];
    if (!priority) continue;
    out.push({
      priority,
      category: c.category,
      message: truncate(c.message, 300),
      file: c.file,
      line: c.line,
      action: c.suggestion ?? DEFAULT_ACTION[c.rule] ?? "Address this review comment.",
    });
  }
  return out;
}

/**
 * Reviews `from..to` (two commit ids the session owns, never client strings) in the repository at
 * `gitDir`. Returns the suggestions and a note when the review could not run; it never throws, since
 * the evaluation-based suggestions are still worth returning.
 */
export async function staticSuggestions(gitDir: string, from: string, to: string): Promise<{ suggestions: Suggestion[]; note?: string }> {
  if (from === to) return { suggestions: [] };
  if (!/^[0-9a-f]{40,64}$/.test(from) || !/^[0-9a-f]{40,64}$/.test(to))
    return { suggestions: [], note: "static review skipped: the session points are not commit ids" };
  try {
    const diff = await git(gitDir, [...REVIEW_DIFF_ARGS, from, to, "--"]);
    if (diff.trim() === "") return { suggestions: [] };
    if (diff.length > LIMITS.maxCandidateBytes) return { suggestions: [], note: `static review skipped: the session's diff is ${diff.length} bytes` };
    const review = await reviewPr({ diff, focus: ["type-safety", "error-handling", "logging", "code-quality", "security"] });
    return { suggestions: suggestionsFromReview(review.comments) };
  } catch (err) {
    return { suggestions: [], note: `static review unavailable: ${truncate(errorMessage(err), 200)}` };
  }
}
