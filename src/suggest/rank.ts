import { priorityRank, type Suggestion } from "./types.js";

/** How many suggestions `trm_get_suggestions` returns: a short list is read, a long one skimmed. */
export const TOP_SUGGESTIONS = 5;

function key(s: Suggestion): string {
  return [s.category, s.file ?? "", s.line ?? "", s.message].join("\u0000");
}

/**
 * Deduplicates (keeping the most severe copy), orders by priority and keeps the first `limit`.
 * Within a priority the producers' order is kept (the sort is stable), and every producer emits in a
 * fixed order, so the same session always yields the same list.
 */
export function rankSuggestions(all: Suggestion[], limit = TOP_SUGGESTIONS): { top: Suggestion[]; omitted: number } {
  const best = new Map<string, { s: Suggestion; order: number }>();
  all.forEach((s, order) => {
    const k = key(s);
    const seen = best.get(k);
    if (!seen) best.set(k, { s, order });
    else if (priorityRank(s.priority) < priorityRank(seen.s.priority)) best.set(k, { s, order: seen.order });
  });
  const sorted = [...best.values()].sort((a, b) => priorityRank(a.s.priority) - priorityRank(b.s.priority) || a.order - b.order).map((x) => x.s);
  return { top: sorted.slice(0, limit), omitted: Math.max(0, sorted.length - limit) };
}
