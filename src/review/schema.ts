import type { PrEvaluation } from "./evaluate-pr.js";
import type { PrInfo } from "./github.js";
import { CATEGORIES, type ReviewComment } from "./types.js";

/**
 * The input and the result of a review, as plain types. trm_review_pr's zod schemas (what a client is
 * shown and what its arguments are checked against) live with the tool in mcp/tools/review-tools.ts,
 * checked at compile time to describe exactly these types; which combinations of inputs are valid is
 * checked by reviewPr with messages that say what to send.
 */

/** Focus values: the categories, plus `formatting` (line length only), as the original accepted. */
export const FOCUS = [...CATEGORIES, "formatting"] as const;

export interface ReviewInput {
  prUrl?: string;
  /** A unified diff. */
  diff?: string;
  /** Files of the change; no originalContent = a new file. */
  files?: { path: string; content: string; originalContent?: string }[];
  /** A local repository: with base and head, or with prUrl. */
  repoPath?: string;
  base?: string;
  head?: string;
  focus?: (typeof FOCUS)[number][];
  format?: "json" | "sarif";
  /** Run the commands on the head and on the base. */
  evaluate?: boolean;
  /** Run the tests with coverage on the head and mutate its changed, covered lines (docs/review-runs-code.md). */
  mutate?: boolean;
  buildCmd?: string;
  testCmd?: string;
  lintCmd?: string;
  timeoutSec?: number;
  /** Post one GitHub review (dry: say what would be posted). */
  post?: "dry" | "submit";
  /** Run the PR's own lint code. */
  trustPr?: boolean;
}

export interface ReviewSummary {
  filesChanged: number;
  linesAdded: number;
  linesRemoved: number;
  commentsCount: number;
  criticalCount: number;
  warningCount: number;
  infoCount: number;
  assessment: "approved" | "needs-changes" | "comments";
  highlights: string[];
}

export interface ReviewResult {
  summary: ReviewSummary;
  comments: ReviewComment[];
  prInfo?: PrInfo;
  notes?: string[];
  /** A SARIF 2.1.0 log (format: "sarif"). */
  sarif?: Record<string, unknown>;
  /** With evaluate: the commands run on the base and on the head. */
  evaluation?: PrEvaluation;
  /** With post: the review sent (or, dry, that would be sent) to GitHub. */
  posted?: Record<string, unknown>;
}
