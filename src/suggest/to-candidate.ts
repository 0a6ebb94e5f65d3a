import { diffRegions } from "../candidate/line-diff.js";
import type { Candidate, Edit } from "../candidate/schema.js";
import type { FileRewrite } from "./types.js";

/**
 * Turns "this file as a fixer would leave it" into a `modify` candidate of `replace` edits. Replace
 * edits anchor on text rather than line numbers, so a suggestion stays valid after another suggestion
 * for the same file was submitted first, and they are short: only the changed lines and as much
 * context as makes each anchor unique.
 */

/** Lines with their terminators, so joining a slice gives back the exact text. */
function linesOf(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    if (nl === -1) break;
    out.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

function occurrences(haystack: string, needle: string, stopAt = 2): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1 && n < stopAt; i = haystack.indexOf(needle, i + 1)) n++;
  return n;
}

/**
 * A run of changed regions [i..j] of the line diff with `up` / `down` unchanged context lines. The
 * lines between regions are unchanged and aligned one to one, so the old and new ranges of a group
 * follow from its first and last region.
 */
interface Group {
  i: number;
  j: number;
  up: number;
  down: number;
}

/**
 * Replace edits that turn `before` into `after`: empty when they are equal, null when replace edits
 * cannot say it (an empty file has no text to anchor on).
 */
export function replaceEdits(before: string, after: string): Edit[] | null {
  if (before === after) return [];
  if (before === "") return null;
  const a = linesOf(before);
  const b = linesOf(after);
  const regions = diffRegions(a, b);
  const aLo = (g: Group) => regions[g.i]!.aStart - g.up;
  const aHi = (g: Group) => regions[g.j]!.aEnd + g.down;
  let groups: Group[] = regions.map((_, k) => ({ i: k, j: k, up: 0, down: 0 }));
  // Grow each group until its old text is non-empty and found exactly once, and merge groups that
  // meet (edits of one file may not overlap). Groups only grow, so this ends at the latest with the
  // whole file as one edit.
  for (let changed = true; changed; ) {
    changed = false;
    for (const g of groups) {
      const old = a.slice(aLo(g), aHi(g)).join("");
      if (old !== "" && occurrences(before, old) === 1) continue;
      if (aLo(g) > 0) {
        g.up++;
        changed = true;
      }
      if (aHi(g) < a.length) {
        g.down++;
        changed = true;
      }
    }
    const merged: Group[] = [];
    for (const g of groups) {
      const prev = merged[merged.length - 1];
      if (prev && aLo(g) <= aHi(prev)) {
        const lo = Math.min(aLo(prev), aLo(g));
        const hi = Math.max(aHi(prev), aHi(g));
        merged[merged.length - 1] = { i: prev.i, j: g.j, up: regions[prev.i]!.aStart - lo, down: hi - regions[g.j]!.aEnd };
        changed = true;
      } else merged.push(g);
    }
    groups = merged;
  }
  return groups.map((g) => {
    const first = regions[g.i]!;
    const last = regions[g.j]!;
    return {
      type: "replace" as const,
      oldText: a.slice(aLo(g), aHi(g)).join(""),
      newText: b.slice(first.bStart - g.up, last.bEnd + g.down).join(""),
    };
  });
}

/**
 * A `modify` candidate for rewrites of existing files (files whose content does not change are left
 * out), or whole files when one of them cannot be expressed as replace edits.
 */
export function rewritesToCandidate(rewrites: FileRewrite[]): Candidate {
  const sorted = [...rewrites].filter((r) => r.before !== r.after).sort((x, y) => x.path.localeCompare(y.path));
  const changes: { file: string; edits: Edit[] }[] = [];
  for (const r of sorted) {
    const edits = replaceEdits(r.before, r.after);
    if (edits === null) return rewritesToFilesCandidate(sorted);
    changes.push({ file: r.path, edits });
  }
  return { mode: "modify", changes };
}

/** Whole-file replacement: the fallback when replace edits cannot express a rewrite exactly. */
export function rewritesToFilesCandidate(rewrites: FileRewrite[]): Candidate {
  return { mode: "files", files: [...rewrites].sort((x, y) => x.path.localeCompare(y.path)).map((r) => ({ path: r.path, content: r.after })) };
}
