/**
 * Line comparison for fuzzy placement and for "closest lines" reports. Kept separate from placement so
 * the same notion of "whitespace-insensitive" is used by patches and by `replace` edits.
 */

/** Whitespace runs collapse and the ends are trimmed: re-indentation and trailing blanks are ignored. */
export function collapseWs(line: string): string {
  return line.trim().replace(/\s+/g, " ");
}

/** All whitespace removed: also ignores reformatting such as `f(a,b)` against `f(a, b)`. */
export function stripWs(line: string): string {
  return line.replace(/\s+/g, "");
}

const MAX_COMPARED_CHARS = 400;

function bigrams(s: string): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < s.length - 1; i++) {
    const g = s.slice(i, i + 2);
    m.set(g, (m.get(g) ?? 0) + 1);
  }
  return m;
}

/** Sørensen–Dice similarity over character bigrams of the whitespace-collapsed lines, 0..1. */
export function lineSimilarity(a: string, b: string): number {
  const x = collapseWs(a).slice(0, MAX_COMPARED_CHARS);
  const y = collapseWs(b).slice(0, MAX_COMPARED_CHARS);
  if (x === y) return 1;
  if (x.length < 2 || y.length < 2) return 0;
  const gx = bigrams(x);
  let inter = 0;
  for (let i = 0; i < y.length - 1; i++) {
    const g = y.slice(i, i + 2);
    const n = gx.get(g) ?? 0;
    if (n > 0) {
      inter++;
      gx.set(g, n - 1);
    }
  }
  return (2 * inter) / (x.length - 1 + (y.length - 1));
}

/**
 * 1 - (Levenshtein distance / longer length) of the whitespace-collapsed lines: order-sensitive, so
 * a line with swapped arguments is not reported as identical. Too slow for searching; used to score
 * the one window that is reported.
 */
export function editSimilarity(a: string, b: string): number {
  const x = collapseWs(a).slice(0, MAX_COMPARED_CHARS);
  const y = collapseWs(b).slice(0, MAX_COMPARED_CHARS);
  if (x === y) return 1;
  if (x.length === 0 || y.length === 0) return 0;
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  let cur = new Array<number>(y.length + 1);
  for (let i = 1; i <= x.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= y.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (x.charCodeAt(i - 1) === y.charCodeAt(j - 1) ? 0 : 1));
    }
    [prev, cur] = [cur, prev];
  }
  return 1 - prev[y.length]! / Math.max(x.length, y.length);
}

/** Mean {@link editSimilarity} of `want` against the file lines starting at `at`; lines past the end score 0. */
export function windowEditScore(file: string[], at: number, want: string[]): number {
  let sum = 0;
  for (let i = 0; i < want.length && at + i < file.length; i++) sum += editSimilarity(file[at + i]!, want[i]!);
  return sum / want.length;
}

function windowScore(file: string[], at: number, want: string[]): number {
  const n = Math.min(want.length, file.length - at);
  if (n <= 0) return 0;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += lineSimilarity(file[at + i]!, want[i]!);
  // Lines of `want` that fall past the end of the file count as misses.
  return sum / want.length;
}

export interface Closest {
  /** 0-based index of the first line of the best window. */
  at: number;
  score: number;
}

/** Several failing hunks of one file are reported against the same line array: normalise it once. */
const collapsedViews = new WeakMap<string[], string[]>();
function collapsedView(file: string[]): string[] {
  let v = collapsedViews.get(file);
  if (!v) {
    v = file.map(collapseWs);
    collapsedViews.set(file, v);
  }
  return v;
}

/** Above this many line comparisons the full scan is replaced by voting on identical lines. */
const FULL_SCAN_BUDGET = 60_000;

/**
 * The window of the file that looks most like `want`: for small inputs every window is scored; for
 * large ones, windows that share identical (whitespace-collapsed) lines with `want` vote, and the best
 * few plus the neighbourhood of `near` are scored. Returns undefined for an empty file or empty `want`.
 */
export function findClosest(file: string[], want: string[], near: number | null): Closest | undefined {
  if (file.length === 0 || want.length === 0) return undefined;
  const last = Math.max(0, file.length - want.length);
  const candidates = new Set<number>();
  if (file.length * want.length <= FULL_SCAN_BUDGET) {
    for (let p = 0; p <= last; p++) candidates.add(p);
  } else {
    const collapsed = collapsedView(file);
    const wanted = new Map<string, number[]>();
    want.forEach((w, i) => {
      const k = collapseWs(w);
      if (k === "") return;
      const list = wanted.get(k);
      if (list) list.push(i);
      else wanted.set(k, [i]);
    });
    const votes = new Map<number, number>();
    for (let j = 0; j < file.length; j++) {
      const hits = wanted.get(collapsed[j]!);
      if (!hits) continue;
      for (const i of hits) {
        const p = Math.min(last, Math.max(0, j - i));
        votes.set(p, (votes.get(p) ?? 0) + 1);
      }
    }
    [...votes.entries()]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, 12)
      .forEach(([p]) => candidates.add(p));
    const centre = near === null ? 0 : Math.min(last, Math.max(0, near));
    for (let p = Math.max(0, centre - 40); p <= Math.min(last, centre + 40); p++) candidates.add(p);
  }
  let best: Closest | undefined;
  for (const p of candidates) {
    const score = windowScore(file, p, want);
    const better =
      !best || score > best.score + 1e-9 || (Math.abs(score - best.score) <= 1e-9 && near !== null && Math.abs(p - near) < Math.abs(best.at - near));
    if (better) best = { at: p, score };
  }
  return best;
}
