import { collapseWs, stripWs } from "./similarity.js";

/**
 * Where a block of lines (a hunk's old side, or a `replace`'s oldText lines) sits in a file.
 * Strategies are tried from strict to tolerant; within each, the expected line is tried first, then
 * the nearest match in the whole file. Two matches equally near are a failure, never a guess.
 */
export type MatchKind = "exact" | "whitespace" | "whitespace-stripped";

export type Placement =
  | { ok: true; at: number; kind: MatchKind }
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

/**
 * Visits the occurrences of the block's first line outward from `expected`: the first distance with a
 * match decides; a match on both sides at that distance is ambiguous. Without an expected line the
 * match must be unique in the whole file.
 */
function search(index: LineIndex, norm: Normalizer | null, want: string[], expected: number | null): number[] {
  const file = index.view(norm);
  const last = file.length - want.length;
  if (last < 0) return [];
  const pos = index.positions(norm, want[0]!);
  const fits = (p: number) => p <= last && matchesAt(file, want, p);
  if (expected === null) return pos.filter(fits).slice(0, 2);
  const centre = Math.min(last, Math.max(0, expected));
  let hi = 0;
  while (hi < pos.length && pos[hi]! < centre) hi++;
  let lo = hi - 1;
  while (lo >= 0 || hi < pos.length) {
    const dl = lo >= 0 ? centre - pos[lo]! : Infinity;
    const dh = hi < pos.length ? pos[hi]! - centre : Infinity;
    const d = Math.min(dl, dh);
    const found: number[] = [];
    if (dl === d) {
      if (fits(pos[lo]!)) found.push(pos[lo]!);
      lo--;
    }
    if (dh === d) {
      if (fits(pos[hi]!)) found.push(pos[hi]!);
      hi++;
    }
    if (found.length > 0) return found;
  }
  return [];
}

/**
 * @param want lines to find (non-empty)
 * @param expected 0-based index where the block is believed to start, or null if unknown
 */
export function placeBlock(index: LineIndex, want: string[], expected: number | null): Placement {
  for (const [kind, norm] of STRATEGIES) {
    const w = norm ? want.map(norm) : want;
    // Blank-only blocks normalise to nothing but empty lines; placing them by whitespace alone is a guess.
    if (norm && w.every((l) => l === "")) continue;
    const found = search(index, norm, w, expected);
    if (found.length === 1) return { ok: true, at: found[0]!, kind };
    if (found.length > 1) return { ok: false, reason: "ambiguous", kind, at: found };
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
