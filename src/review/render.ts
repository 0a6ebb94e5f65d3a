import type { ReviewResult } from "./schema.js";

/** Compact text rendering of a review for clients that only read the text content. */

const MAX_TEXT_COMMENTS = 40;

export function renderReviewText(r: ReviewResult): string {
  const s = r.summary;
  const lines: string[] = [];
  lines.push(
    `Assessment: ${s.assessment}. ${s.filesChanged} file(s), +${s.linesAdded}/-${s.linesRemoved}; ${s.criticalCount} critical, ${s.warningCount} warning, ${s.infoCount} info.`,
  );
  if (r.prInfo) {
    const p = r.prInfo;
    // Base first, as the range was given (base..head) and as GitHub shows a pull request (base <- head).
    const range = p.state === "local" ? `${p.base}..${p.head}` : `${p.base} <- ${p.head}`;
    lines.push(`PR: ${p.title}${p.number ? ` (#${p.number})` : ""} by ${p.author}, ${p.state}, ${range}${p.url ? ` ${p.url}` : ""}`);
  }
  for (const h of s.highlights) lines.push(`* ${h}`);
  for (const c of r.comments.slice(0, MAX_TEXT_COMMENTS)) {
    lines.push(`${c.file}:${c.line} [${c.severity}] ${c.category}${c.cwe ? ` ${c.cwe}` : ""}: ${c.message}${c.suggestion ? ` Fix: ${c.suggestion}` : ""}`);
  }
  if (r.comments.length > MAX_TEXT_COMMENTS) lines.push(`… ${r.comments.length - MAX_TEXT_COMMENTS} more in structuredContent.comments`);
  if (r.evaluation) {
    const e = r.evaluation;
    const side = (name: string, x: typeof e.base) =>
      `${name} ${x.commit.slice(0, 12)}: score ${x.score.toFixed(3)}${x.okBuild !== undefined ? `, build ${x.okBuild ? "ok" : "FAILED"}` : ""}${x.tests ? `, tests ${x.tests}` : ""}${x.okLint !== undefined ? `, lint ${x.okLint ? "ok" : "FAILED"}` : ""}`;
    lines.push(`Evaluation: ${e.verdict} (${e.scoreDelta >= 0 ? "+" : ""}${e.scoreDelta.toFixed(3)}); ${side("base", e.base)}; ${side("head", e.head)}`);
    if (e.newFailures.length) lines.push(`New test failures: ${e.newFailures.join("; ")}`);
    if (e.fixedTests.length) lines.push(`Fixed tests: ${e.fixedTests.join("; ")}`);
    if (e.newErrors.length) lines.push(`New errors: ${e.newErrors.slice(0, 10).join("; ")}`);
  }
  for (const n of r.notes ?? []) lines.push(`Note: ${n}`);
  if (r.sarif) lines.push("SARIF 2.1.0 log in structuredContent.sarif.");
  if (r.posted) {
    const p = r.posted as { dryRun?: boolean; action?: string; comments?: unknown[]; url?: string };
    lines.push(
      `${p.dryRun ? "Would post (dry run)" : "Posted"}: ${p.action} one GitHub review with ${p.comments?.length ?? 0} inline comment(s)${p.url ? ` ${p.url}` : ""}; details in structuredContent.posted.`,
    );
  }
  return lines.join("\n");
}
