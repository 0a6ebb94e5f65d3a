/** Public surface of the suggestion engine (`trm_get_suggestions`, `trm_suggest_fix`). */
export { getSuggestions, type SuggestionsResult } from "./suggestions.js";
export { suggestFixes, validatedCandidate, MAX_FIX_SUGGESTIONS, type FixesOptions, type FixesResult } from "./fixes.js";
export { rankSuggestions, TOP_SUGGESTIONS } from "./rank.js";
export { suggestionsFromEvaluations, REGRESSION_FRACTION } from "./from-evaluation.js";
export { PRIORITIES, type FixSuggestion, type Fixer, type Priority, type Suggestion } from "./types.js";
