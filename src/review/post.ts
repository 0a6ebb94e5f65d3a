import type { Octokit } from "@octokit/rest";
import { UserError } from "../util/errors.js";
import { codeSpan } from "../util/text.js";
import { type GitHubOptions, githubError, octokitFor, redact } from "./github.js";
import { boundedPages } from "./github-fetch.js";
import type { PrRef } from "./pr-url.js";
import type { ReviewResult } from "./schema.js";
import type { ReviewComment } from "./types.js";

/**
 * Posting a review to the pull request: ONE review with inline comments on the head commit, found
 * again on the next run by a hidden marker in its body and updated instead of adding another. GitHub
 * cannot add inline comments to a review once submitted, so an update rewrites the body (summary and
 * every finding), edits the inline comments whose finding is still there, and deletes those whose
 * finding is gone. At most {@link MAX_POSTED} inline comments, most severe first; the body lists the rest.
 * `dry` returns exactly what would be sent, after reading which review would be updated.
 */

export const REVIEW_MARKER = "<!-- code-trm:review -->";
export const MAX_POSTED = 25;
const RANK = { critical: 0, warning: 1, info: 2 } as const;
const ICON = { critical: "🛑", warning: "⚠️", info: "ℹ️" } as const;

export interface PlannedComment {
  path: string;
  line: number;
  side: "RIGHT";
  body: string;
}

export interface PostOutcome {
  dryRun: boolean;
  action: "create" | "update";
  reviewId?: number;
  commitId: string;
  body: string;
  comments: PlannedComment[];
  /** Findings beyond the cap: in the body only. */
  notInline: number;
  url?: string;
  /** On update: inline comments edited and deleted. */
  edited?: number;
  deleted?: number;
}

/**
 * The hidden key that finds a finding's comment again, the comment's last line. A path's `>` and line
 * breaks are escaped (a path may hold `-->`), and only the last line is read as the key: the comment's
 * text above it quotes the PR (a mutant's diff, test names), which may hold a key of another comment.
 */
const keyOf = (c: ReviewComment): string =>
  `<!-- code-trm:${c.file.replace(/[%>\r\n]/g, (ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, "0").toUpperCase()}`)}:${c.line}:${c.rule} -->`;
export const keyIn = (body: string | undefined): string | undefined => {
  const last = (body ?? "").slice((body ?? "").lastIndexOf("\n") + 1);
  return /^<!-- code-trm:[^>]*-->$/.test(last) ? last : undefined;
};

/** A finding as a line of the review's body; the path is the PR's: a code span no backtick in it closes. */
const listed = (c: ReviewComment): string => `- ${codeSpan(`${c.file}:${c.line}`)} ${c.severity} \`${c.rule}\`: ${c.message}`;

function commentBody(c: ReviewComment): string {
  return `${ICON[c.severity]} **${c.severity}** · ${c.category} · \`${c.rule}\`${c.cwe ? ` · ${c.cwe}` : ""}\n\n${c.message}${c.suggestion ? `\n\n**Fix:** ${c.suggestion}` : ""}\n\n${keyOf(c)}`;
}

/** The review's body and inline comments (pure: what is sent is what this returns). */
export function planReview(
  r: ReviewResult,
  max = MAX_POSTED,
): { body: string; comments: PlannedComment[]; inline: ReviewComment[]; notInline: ReviewComment[] } {
  const ranked = [...r.comments].sort((a, b) => RANK[a.severity] - RANK[b.severity]);
  const inline = ranked.slice(0, max);
  const notInline = ranked.slice(max);
  const s = r.summary;
  const lines = [
    REVIEW_MARKER,
    `### code-trm review: ${s.assessment}`,
    "",
    `${s.filesChanged} file(s), +${s.linesAdded}/-${s.linesRemoved}: ${s.criticalCount} critical, ${s.warningCount} warning, ${s.infoCount} info.`,
    ...s.highlights.map((h) => `- ${h}`),
  ];
  if (notInline.length) {
    lines.push("", `${notInline.length} more finding(s), not commented inline (cap ${max}):`);
    for (const c of notInline.slice(0, 100)) lines.push(listed(c));
  }
  return { body: lines.join("\n"), comments: inline.map((c) => ({ path: c.file, line: c.line, side: "RIGHT", body: commentBody(c) })), inline, notInline };
}

async function findOwnReview(octokit: Octokit, ref: PrRef): Promise<{ id: number } | undefined> {
  const { items: reviews } = await boundedPages(
    octokit.paginate.iterator(octokit.rest.pulls.listReviews, { owner: ref.owner, repo: ref.repo, pull_number: ref.number, per_page: 100 }),
  );
  const own = reviews.filter((rv) => (rv.body ?? "").includes(REVIEW_MARKER));
  return own.length ? { id: own[own.length - 1]!.id } : undefined;
}

export async function postReview(ref: PrRef, r: ReviewResult, headSha: string, dryRun: boolean, opts: GitHubOptions = {}): Promise<PostOutcome> {
  const { octokit, ctx, token, sendToken } = octokitFor(ref, opts);
  if (!dryRun && !sendToken) {
    throw new UserError(
      `Posting a review to ${ref.owner}/${ref.repo}#${ref.number} needs a token for ${ref.host}.`,
      'Set GITHUB_TOKEN (or GH_TOKEN) to a token with "Pull requests: write", or use post: "dry" to see what would be posted.',
    );
  }
  const plan = planReview(r);
  const p = { owner: ref.owner, repo: ref.repo, pull_number: ref.number };
  try {
    const earlier = await findOwnReview(octokit, ref);
    const base = { commitId: headSha, body: plan.body, comments: plan.comments, notInline: plan.notInline.length };
    if (dryRun) return { dryRun, action: earlier ? "update" : "create", ...(earlier ? { reviewId: earlier.id } : {}), ...base };
    if (!earlier) {
      const { data } = await octokit.rest.pulls.createReview({ ...p, commit_id: headSha, body: plan.body, event: "COMMENT", comments: plan.comments });
      return { dryRun, action: "create", reviewId: data.id, url: data.html_url, ...base };
    }
    const { items: old } = await boundedPages(
      octokit.paginate.iterator(octokit.rest.pulls.listCommentsForReview, { ...p, review_id: earlier.id, per_page: 100 }),
    );
    const had = new Set(old.map((oc) => keyIn(oc.body)));
    const fresh = plan.inline.filter((c) => !had.has(keyOf(c)));
    const body = fresh.length
      ? `${plan.body}\n\nNew since the review was first posted (GitHub cannot add inline comments to a submitted review):\n${fresh.map(listed).join("\n")}`
      : plan.body;
    const { data } = await octokit.rest.pulls.updateReview({ ...p, review_id: earlier.id, body });
    const wanted = new Map(plan.inline.map((c) => [keyOf(c), c]));
    let edited = 0;
    let deleted = 0;
    for (const oc of old) {
      const key = keyIn(oc.body);
      const c = key ? wanted.get(key) : undefined;
      if (c) {
        const body = commentBody(c);
        if (body !== oc.body) {
          await octokit.rest.pulls.updateReviewComment({ owner: ref.owner, repo: ref.repo, comment_id: oc.id, body });
          edited++;
        }
      } else {
        await octokit.rest.pulls.deleteReviewComment({ owner: ref.owner, repo: ref.repo, comment_id: oc.id });
        deleted++;
      }
    }
    return { dryRun, action: "update", reviewId: earlier.id, url: data.html_url, edited, deleted, ...base, body };
  } catch (err) {
    const e = githubError(err, ctx);
    e.message = redact(e.message, token);
    throw e;
  }
}
