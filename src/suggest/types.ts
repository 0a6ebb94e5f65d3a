import type { Candidate } from "../candidate/schema.js";
import type { ToolFixerName } from "./fixers/types.js";

/** Contracts of `trm_get_suggestions` and `trm_suggest_fix`. */

export const PRIORITIES = ["critical", "high", "medium", "low"] as const;
export type Priority = (typeof PRIORITIES)[number];

export function priorityRank(p: Priority): number {
  return PRIORITIES.indexOf(p);
}

/** One thing to do next, most important first in a list; `action` says what to do, not only what is wrong. */
export interface Suggestion {
  priority: Priority;
  /** build, test, lint, regression, perf, environment, or a review category (type-safety, error-handling, ...). */
  category: string;
  message: string;
  file?: string;
  line?: number;
  action: string;
}

/** Which fixer produced a candidate: a real tool of the repository, or one of our hand-written rules. */
export type Fixer = "typescript" | "eslint" | "rule" | ToolFixerName;

/** A candidate ready for `trm_submit_candidate`, already proven to apply to the session's current state. */
export interface FixSuggestion {
  priority: Priority;
  /** The problem it fixes, as the evaluation reported it (file:line code message). */
  issue: string;
  candidateToFix: Candidate;
  rationale: string;
  fixer: Fixer;
  /** Files the candidate changes. */
  files: string[];
}

/** A file as it is in the worktree and as a fixer would leave it. */
export interface FileRewrite {
  path: string;
  before: string;
  after: string;
}
