import { collapseWs, stripWs } from "./similarity.js";

/**
 * Where a block of lines (a hunk's old side, or a `replace`'s oldText lines) sits in a file.
 * Strategies are tried from strict to tolerant; within each, every occurrence in the file is found and
 * one is taken only when it is the only one or the stated line singles it out (see singleOut). Several
 * occurrences the stated line does not decide between are a failure, never a guess.
 */
export type MatchKind = "exact" | "whitespace" | "whitespace-stripped";

/**
 * How far (in lines) from the stated line the only occurrence of a repeated block still counts as the
 * one meant: models' line numbers drift by a few lines, rarely by more, while repeated blocks
 * (closing braces, the same call in two branches) are often a dozen lines apart.
 */
export const NEAR_WINDOW = 8;

export type Placement =
  | { ok: true; at: number; kind: MatchKind; stale?: number }
  | { ok: false; reason: "not-found" }
  | { ok: false; reason: "ambiguous"; kind: MatchKind; at: number[] };

type Normalizer = (line: string) => string;

const STRATEGIES: ReadonlyArray<[MatchKind, Normalizer | null]> = [
  ["exact", null],
  ["whitespace", collapseWs],
  ["whitespace-stripped", stripWs],
];

/**
 * Lazily normalised copies of a file's lines, and where each distinct line occurs, shared by all
 * blocks placed in one file: each normalisation runs once, and a search only visits the positions
 * where the block's first line occurs.
 */
export class LineIndex {
  private readonly views = new Map<Normalizer | null, { lines: string[]; at?: Map<string, number[]> }>();
  constructor(readonly lines: string[]) {}

  view(norm: Normalizer | null): string[] {
    return this.entry(norm).lines;
  }

  /** Ascending positions of `line` in the view. */
  positions(norm: Normalizer | null, line: string): number[] {
    const e = this.entry(norm);
    if (!e.at) {
      e.at = new Map();
      e.lines.forEach((l, i) => {
        const list = e.at!.get(l);
        if (list) list.push(i);
        else e.at!.set(l, [i]);
      });
    }
    return e.at.get(line) ?? [];
  }

  private entry(norm: Normalizer | null) {
    let e = this.views.get(norm);
    if (!e) {
      e = { lines: norm ? this.lines.map(norm) : this.lines };
      this.views.set(norm, e);
    }
    return e;
  }
}

function matchesAt(file: string[], want: string[], at: number): boolean {
  for (let i = 0; i < want.length; i++) if (file[at + i] !== want[i]) return false;
  return true;
}

/** Every position (ascending) where the block matches in the normalised view; only the first line's occurrences are visited. */
function search(index: LineIndex, norm: Normalizer | null, want: string[]): number[] {
  const file = index.view(norm);
  const last = file.length - want.length;
  if (last < 0) return [];
  return index.positions(norm, want[0]!).filter((p) => p <= last && matchesAt(file, want, p));
}

/**
 * The occurrence a stated line singles out among `found` (ascending): the only one; else the one at
 * the stated line itself (what git apply takes); else the only one within NEAR_WINDOW lines of it.
 * Null when none qualifies: without a stated line, several occurrences are never decided between.
 */
export function singleOut(found: number[], expected: number | null): number | null {
  if (found.length === 1) return found[0]!;
  if (expected === null || found.length === 0) return null;
  if (found.includes(expected)) return expected;
  const near = found.filter((p) => Math.abs(p - expected) <= NEAR_WINDOW);
  return near.length === 1 ? near[0]! : null;
}

/**
 * Positions where every line of the block matches but one, and that one may differ (a context line
 * the model remembered from an older version). Since at most one line differs, the block starts at an
 * occurrence of its first line or one before an occurrence of its second.
 */
function searchOneStale(index: LineIndex, norm: Normalizer | null, want: string[], mayDiffer: boolean[]): { at: number; stale: number }[] {
  const file = index.view(norm);
  const last = file.length - want.length;
  if (last < 0 || want.length < 2) return [];
  const starts = new Set<number>(index.positions(norm, want[0]!));
  for (const p of index.positions(norm, want[1]!)) starts.add(p - 1);
  const out: { at: number; stale: number }[] = [];
  for (const p of [...starts].filter((x) => x >= 0 && x <= last).sort((a, b) => a - b)) {
    let stale = -1;
    for (let i = 0; i < want.length; i++) {
      if (file[p + i] === want[i]) continue;
      if (stale !== -1 || !mayDiffer[i]) {
        stale = -2;
        break;
      }
      stale = i;
    }
    if (stale >= 0) out.push({ at: p, stale });
  }
  return out;
}

/**
 * @param want lines to find (non-empty)
 * @param expected 0-based index where the block is believed to start, or null if unknown
 * @param mayDiffer lines (a hunk's context) of which one may be stale when nothing matches otherwise;
 *   the block must then have three lines or more, two of the others not blank, so the rest decides
 */
export function placeBlock(index: LineIndex, want: string[], expected: number | null, mayDiffer?: boolean[]): Placement {
  for (const [kind, norm] of STRATEGIES) {
    const w = norm ? want.map(norm) : want;
    // Blank-only blocks normalise to nothing but empty lines; placing them by whitespace alone is a guess.
    if (norm && w.every((l) => l === "")) continue;
    const found = search(index, norm, w);
    if (found.length === 0) continue;
    const at = singleOut(found, expected);
    if (at !== null) return { ok: true, at, kind };
    return { ok: false, reason: "ambiguous", kind, at: found };
  }
  if (mayDiffer && want.length >= 3) {
    for (const [kind, norm] of STRATEGIES.slice(0, 2)) {
      const w = norm ? want.map(norm) : want;
      const found = searchOneStale(index, norm, w, mayDiffer).filter((f) => w.filter((l, i) => i !== f.stale && l.trim() !== "").length >= 2);
      if (found.length === 0) continue;
      const starts = found.map((f) => f.at);
      const at = singleOut(starts, expected);
      if (at !== null) return { ok: true, at, kind, stale: found.find((f) => f.at === at)!.stale };
      return { ok: false, reason: "ambiguous", kind, at: starts };
    }
  }
  return { ok: false, reason: "not-found" };
}

/** Every non-overlapping occurrence of `want`, using the first strategy that finds any (for `replace` with `all`). */
export function findAllBlocks(index: LineIndex, want: string[]): { kind: MatchKind; at: number[] } | undefined {
  for (const [kind, norm] of STRATEGIES) {
    const file = index.view(norm);
    const w = norm ? want.map(norm) : want;
    if (norm && w.every((l) => l === "")) continue;
    const at: number[] = [];
    for (let p = 0; p + w.length <= file.length; p++) {
      if (matchesAt(file, w, p)) {
        at.push(p);
        p += w.length - 1;
      }
    }
    if (at.length > 0) return { kind, at };
  }
  return undefined;
}

/** "lines 78, 83, 87 and 92" (1-based), the first few of many followed by how many there are. */
export function describeLines(at: number[], max = 6): string {
  const shown = at.slice(0, max).map((a) => String(a + 1));
  if (at.length > max) return `lines ${shown.join(", ")}, ... (${at.length} places)`;
  return shown.length === 1 ? `line ${shown[0]}` : `lines ${shown.slice(0, -1).join(", ")} and ${shown[shown.length - 1]}`;
}
