import { z } from "zod";
import { CATEGORIES, FOCUS, type ReviewInput, type ReviewResult, renderReviewText, reviewPr } from "../../review/index.js";
import { LIMITS } from "../../util/limits.js";
import { defineTool, type SameShape } from "../register.js";

/**
 * Input of trm_review_pr. It is sent to the model with every request, so it is one flat object with
 * terse descriptions; which combinations are valid is checked by reviewPr.
 */
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

const severity = z.enum(["critical", "warning", "info"]);

const commentSchema = z.object({
  file: z.string(),
  line: z.number().int(),
  severity,
  category: z.enum(CATEGORIES),
  rule: z.string(),
  message: z.string(),
  suggestion: z.string().optional(),
  cwe: z.string().optional(),
});

const summarySchema = z.object({
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

const prInfoSchema = z.object({
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

const side = z.object({ commit: z.string(), score: z.number(), okBuild: z.boolean().optional(), okLint: z.boolean().optional(), tests: z.string().optional() });
/** What running the commands on both sides of a change showed. */
const prEvaluationSchema = z.object({
  base: side,
  head: side,
  scoreDelta: z.number(),
  verdict: z.enum(["better", "worse", "same"]),
  newFailures: z.array(z.string()),
  fixedTests: z.array(z.string()),
  newErrors: z.array(z.string()),
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

// The review engine takes and returns plain types (review/schema.ts): a field added to one side and not
// the other, or typed differently, fails the build here.
true satisfies SameShape<z.infer<typeof reviewInputSchema>, ReviewInput>;
true satisfies SameShape<z.infer<typeof reviewOutputSchema>, ReviewResult>;

export function reviewTools() {
  const review = defineTool({
    name: "trm_review_pr",
    description: "Review a PR URL, diff, files or local base..head: line comments on added lines.",
    input: reviewInputShape,
    output: reviewOutputShape,
    notes: {
      base: "with repoPath and head: review base..head",
      focus: "only these categories (formatting: line length only)",
      format: "sarif: also a SARIF 2.1.0 log",
      buildCmd: "with evaluate",
      testCmd: "with evaluate",
      lintCmd: "with evaluate",
      timeoutSec: "with evaluate: per command",
      post: "dry: what would be posted; needs prUrl",
    },
    // Not read-only with evaluate (it runs the repository's commands in temporary worktrees); it
    // reaches GitHub for prUrl.
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    async run(args, ctx) {
      const result = await reviewPr(args, { signal: ctx.signal, onProgress: ctx.progress });
      return { structured: result, text: renderReviewText(result) };
    },
  });
  return [review];
}
