import { renderReviewText, reviewInputShape, reviewOutputShape, reviewPr } from "../../review/index.js";
import { defineTool } from "../register.js";

export function reviewTools() {
  const review = defineTool({
    name: "trm_review_pr",
    description: "Review a PR URL, diff, files or local base..head: line comments on added lines.",
    input: reviewInputShape,
    output: reviewOutputShape,
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
