import { codeSpan } from "../util/text.js";
import { RULES } from "./rules/catalog.js";
import type { ReviewSummary } from "./schema.js";
import type { Category, FileChange, ReviewComment, Severity } from "./types.js";

/** Summary, counts, assessment and highlights of a review. */

const RANK: Record<Severity, number> = { critical: 0, warning: 1, info: 2 };
const MAX_HIGHLIGHTS = 6;

export function assessment(comments: ReviewComment[]): ReviewSummary["assessment"] {
  if (comments.some((c) => c.severity === "critical")) return "needs-changes";
  if (comments.some((c) => c.severity === "warning")) return "comments";
  return "approved";
}

/** Orders comments by file (in the change's order), then line, then severity. */
export function sortComments(comments: ReviewComment[], fileOrder: string[]): ReviewComment[] {
  const order = new Map(fileOrder.map((p, i) => [p, i]));
  return [...comments].sort(
    (a, b) =>
      (order.get(a.file) ?? 1e9) - (order.get(b.file) ?? 1e9) ||
      a.file.localeCompare(b.file) ||
      a.line - b.line ||
      RANK[a.severity] - RANK[b.severity] ||
      a.rule.localeCompare(b.rule),
  );
}

const TITLE_BY_RULE = new Map(Object.values(RULES).map((r) => [r.id, r.title]));

export function summarize(files: FileChange[], comments: ReviewComment[]): ReviewSummary {
  const count = (s: Severity): number => comments.filter((c) => c.severity === s).length;
  const criticalCount = count("critical");
  const warningCount = count("warning");
  const infoCount = count("info");
  const linesAdded = files.reduce((n, f) => n + f.linesAdded, 0);
  const linesRemoved = files.reduce((n, f) => n + f.linesRemoved, 0);
  const highlights: string[] = [];
  if (comments.length === 0) {
    highlights.push(`No issues found in the added lines of ${files.length} file${files.length === 1 ? "" : "s"}.`);
  } else {
    const byCategory = new Map<Category, number>();
    for (const c of comments) byCategory.set(c.category, (byCategory.get(c.category) ?? 0) + 1);
    const parts = [...byCategory.entries()].sort((a, b) => b[1] - a[1]).map(([cat, n]) => `${cat} ${n}`);
    highlights.push(`${criticalCount} critical, ${warningCount} warning, ${infoCount} info (${parts.join(", ")}).`);
    for (const c of comments.filter((x) => x.severity === "critical").slice(0, 3)) {
      highlights.push(`Critical: ${TITLE_BY_RULE.get(c.rule) ?? c.rule}${c.cwe ? ` (${c.cwe})` : ""} at ${codeSpan(`${c.file}:${c.line}`)}.`);
    }
    for (const c of comments.filter((x) => x.category === "testing" || x.category === "size")) highlights.push(c.message);
  }
  return {
    filesChanged: files.length,
    linesAdded,
    linesRemoved,
    commentsCount: comments.length,
    criticalCount,
    warningCount,
    infoCount,
    assessment: assessment(comments),
    highlights: highlights.slice(0, MAX_HIGHLIGHTS),
  };
}
