/** Public surface of the review engine (`trm_review_pr`). */

export type { PrEvaluation } from "./evaluate-pr.js";
export { fetchPullRequest, type GitHubOptions, type PrInfo } from "./github.js";
export { REVIEW_DIFF_ARGS, reviewLocalRange } from "./local.js";
export { type PrRef, parsePrUrl } from "./pr-url.js";
export { renderReviewText } from "./render.js";
export { MAX_COMMENTS, type ReviewOptions, reviewPr, selectSource } from "./review.js";
export { toSarif } from "./sarif.js";
export { FOCUS, type ReviewInput, type ReviewResult, type ReviewSummary } from "./schema.js";
export { CATEGORIES, type Category, type ReviewComment, type Severity } from "./types.js";
