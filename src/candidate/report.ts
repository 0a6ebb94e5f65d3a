import { findClosest, windowEditScore } from "./similarity.js";
import type { CandidateIssue } from "./types.js";

/** Issues are sent back to the model: bound them so one huge hunk or line cannot flood its context. */
const MAX_LINES = 30;
const MAX_LINE_CHARS = 300;

export function capLine(s: string, max = MAX_LINE_CHARS): string {
  return s.length <= max ? s : `${s.slice(0, max)}… (${s.length - max} more characters)`;
}

export function capLines(lines: string[], max = MAX_LINES): string[] {
  const out = lines.slice(0, max).map((l) => capLine(l));
  if (lines.length > max) out.push(`… (${lines.length - max} more lines)`);
  return out;
}

/**
 * The `closest` part of an issue: where the file looks most like `want`, and how alike they are
 * (0..1, 1 = identical ignoring whitespace; edit distance per line, averaged).
 */
export function closestPart(fileLines: string[], want: string[], near: number | null): Pick<CandidateIssue, "closest"> {
  const c = findClosest(fileLines, want, near);
  if (!c) return {};
  return {
    closest: {
      line: c.at + 1,
      text: capLines(fileLines.slice(c.at, c.at + Math.max(1, want.length))),
      score: Math.round(windowEditScore(fileLines, c.at, want) * 100) / 100,
    },
  };
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
