/** Public surface of the review engine (`trm_review_pr`). */
export { reviewPr, selectSource, MAX_COMMENTS, type ReviewOptions } from "./review.js";
export { FOCUS, type ReviewInput, type ReviewResult, type ReviewSummary } from "./schema.js";
export type { PrEvaluation } from "./evaluate-pr.js";
export { renderReviewText } from "./render.js";
export { toSarif } from "./sarif.js";
export { parsePrUrl, type PrRef } from "./pr-url.js";
export { fetchPullRequest, type GitHubOptions, type PrInfo } from "./github.js";
export { reviewLocalRange } from "./local.js";
export { CATEGORIES, type Category, type ReviewComment, type Severity } from "./types.js";
