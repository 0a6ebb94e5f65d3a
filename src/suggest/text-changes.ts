/**
 * Character-level text changes as code fixers return them (the TypeScript language service's
 * FileTextChanges, ESLint's fix ranges): applying them and combining several fixers' changes to one
 * file without letting them overwrite each other.
 */

export interface TextChange {
  start: number;
  length: number;
  newText: string;
}

function sameChange(a: TextChange, b: TextChange): boolean {
  return a.start === b.start && a.length === b.length && a.newText === b.newText;
}

function overlaps(a: TextChange, b: TextChange): boolean {
  // Two insertions at one point would have no defined order; a replacement overlapping another is a conflict.
  if (a.start === b.start && (a.length === 0 || b.length === 0)) return true;
  return a.start < b.start + b.length && b.start < a.start + a.length;
}

/** Applies non-overlapping changes given against `text` (in any order). Throws on overlap: that is a caller bug. */
export function applyTextChanges(text: string, changes: TextChange[]): string {
  const sorted = [...changes].sort((x, y) => x.start - y.start || x.length - y.length);
  let out = "";
  let pos = 0;
  for (const c of sorted) {
    if (c.start < pos || c.start + c.length > text.length) throw new Error(`text change at ${c.start} overlaps another or lies outside the text`);
    out += text.slice(pos, c.start) + c.newText;
    pos = c.start + c.length;
  }
  return out + text.slice(pos);
}

/** A fix: the changes it makes, by file. */
export type FileChanges = Map<string, TextChange[]>;

/**
 * Combines fixes into one: a change already present (two diagnostics with the same fix) is taken
 * once, and a fix that conflicts with one accepted before it is left out whole. Returns the combined
 * changes and the indexes of the fixes that were taken.
 */
export function combineFixes(fixes: FileChanges[]): { changes: FileChanges; taken: number[] } {
  const changes: FileChanges = new Map();
  const taken: number[] = [];
  fixes.forEach((fix, i) => {
    const fresh = new Map<string, TextChange[]>();
    for (const [file, cs] of fix) {
      const have = changes.get(file) ?? [];
      const f = cs.filter((c) => !have.some((d) => sameChange(c, d)));
      if (f.some((c) => have.some((d) => overlaps(c, d)))) return;
      fresh.set(file, f);
    }
    for (const [file, f] of fresh) changes.set(file, [...(changes.get(file) ?? []), ...f]);
    taken.push(i);
  });
  return { changes, taken };
}
