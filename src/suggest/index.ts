/** Public surface of the suggestion engine (`trm_get_suggestions`, `trm_suggest_fix`). */

export { type FixesOptions, type FixesResult, MAX_FIX_SUGGESTIONS, suggestFixes, validatedCandidate } from "./fixes.js";
export { REGRESSION_FRACTION, suggestionsFromEvaluations } from "./from-evaluation.js";
export { rankSuggestions, TOP_SUGGESTIONS } from "./rank.js";
export { getSuggestions, type SuggestionsResult } from "./suggestions.js";
export { type Fixer, type FixSuggestion, PRIORITIES, type Priority, type Suggestion } from "./types.js";
