import { realpath } from "node:fs/promises";
import type { Session } from "../session/session.js";
import { suggestionsFromEvaluations } from "./from-evaluation.js";
import { rankSuggestions, TOP_SUGGESTIONS } from "./rank.js";
import { staticSuggestions } from "./static.js";
import type { Suggestion } from "./types.js";

export interface SuggestionsResult {
  step: number;
  suggestions: Suggestion[];
  /** Suggestions found beyond the top ones. */
  omitted: number;
  notes: string[];
}

/**
 * `trm_get_suggestions`: the top suggestions, critical first, from the last evaluation (build errors,
 * new and old test failures, lint, regressions against the best step) and from a static review of
 * everything the session changed since its baseline.
 */
export async function getSuggestions(session: Session, limit = TOP_SUGGESTIONS): Promise<SuggestionsResult> {
  // Another process or a person may have moved the branch: read the history as git has it now.
  await session.refresh();
  const notes: string[] = [];
  const entries = session.entries;
  if (entries.length === 0) notes.push("No evaluation yet: submit a candidate (or start the session with preflight) for build and test suggestions.");
  const cwd = await realpath(session.worktree).catch(() => session.worktree);
  const fromEval = suggestionsFromEvaluations({ entries, best: session.bestEntry(), perfDirection: session.config.perfDirection, cwd, sessionId: session.id });
  const review = await staticSuggestions(session.config.commonDir, session.baseline.commit, session.tip);
  if (review.note) notes.push(review.note);
  const { top, omitted } = rankSuggestions([...fromEval, ...review.suggestions], limit);
  if (top.length === 0 && entries.length > 0)
    notes.push("Nothing to suggest: the last step has no recorded problem and the changed files pass the review rules.");
  return { step: session.currentStep, suggestions: top, omitted, notes };
}
