import { z } from "zod";
import { prEvaluationSchema } from "./evaluate-pr.js";
import { LIMITS } from "../util/limits.js";
import { CATEGORIES } from "./types.js";

/**
 * Input and output schemas of `trm_review_pr`. The input schema is sent to the model with every
 * request, so it is one flat object with terse descriptions; which combinations are valid is
 * checked by reviewPr with messages that say what to send.
 */

/** Focus values: the categories, plus `formatting` (line length only), as the original accepted. */
export const FOCUS = [...CATEGORIES, "formatting"] as const;

export const reviewInputShape = {
  prUrl: z.string().optional().describe("GitHub PR URL"),
  diff: z.string().optional().describe("unified diff"),
  files: z
    .array(z.object({ path: z.string(), content: z.string(), originalContent: z.string().optional() }))
    .optional()
    .describe("no originalContent = new file"),
  repoPath: z.string().optional().describe("local clone: base+head or prUrl"),
  base: z.string().optional(),
  head: z.string().optional(),
  focus: z.array(z.enum(FOCUS)).optional(),
  format: z.enum(["json", "sarif"]).optional(),
  evaluate: z.boolean().optional().describe("cmds: head vs base"),
  mutate: z.boolean().optional().describe("untested lines+mutants"),
  buildCmd: z.string().optional(),
  testCmd: z.string().optional(),
  lintCmd: z.string().optional(),
  timeoutSec: z.number().int().min(1).max(LIMITS.maxTimeoutSec).optional(),
  post: z.enum(["dry", "submit"]).optional().describe("one GitHub review"),
  trustPr: z.boolean().optional().describe("run PR's lint code"),
};
export const reviewInputSchema = z.object(reviewInputShape);
export type ReviewInput = z.infer<typeof reviewInputSchema>;

const severity = z.enum(["critical", "warning", "info"]);

export const commentSchema = z.object({
  file: z.string(),
  line: z.number().int(),
  severity,
  category: z.enum(CATEGORIES),
  rule: z.string(),
  message: z.string(),
  suggestion: z.string().optional(),
  cwe: z.string().optional(),
});

export const summarySchema = z.object({
  filesChanged: z.number().int(),
  linesAdded: z.number().int(),
  linesRemoved: z.number().int(),
  commentsCount: z.number().int(),
  criticalCount: z.number().int(),
  warningCount: z.number().int(),
  infoCount: z.number().int(),
  assessment: z.enum(["approved", "needs-changes", "comments"]),
  highlights: z.array(z.string()),
});

export const prInfoSchema = z.object({
  title: z.string(),
  author: z.string(),
  base: z.string(),
  head: z.string(),
  state: z.string(),
  url: z.string().optional(),
  number: z.number().int().optional(),
  draft: z.boolean().optional(),
  baseSha: z.string().optional(),
  headSha: z.string().optional(),
});

export const reviewOutputShape = {
  summary: summarySchema,
  comments: z.array(commentSchema),
  prInfo: prInfoSchema.optional(),
  notes: z.array(z.string()).optional(),
  /** A SARIF 2.1.0 log (format: "sarif"). */
  sarif: z.record(z.string(), z.unknown()).optional(),
  /** With evaluate: the commands run on the base and on the head. */
  evaluation: prEvaluationSchema.optional(),
  /** With post: the review sent (or, dry, that would be sent) to GitHub. */
  posted: z.record(z.string(), z.unknown()).optional(),
};
export const reviewOutputSchema = z.object(reviewOutputShape);
export type ReviewResult = z.infer<typeof reviewOutputSchema>;
export type ReviewSummary = z.infer<typeof summarySchema>;
