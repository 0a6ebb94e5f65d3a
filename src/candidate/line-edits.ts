import { hasFinalNewline, type TextDoc } from "./text.js";

/**
 * A new line of an edit: a string is new text; a number is the index of an original line kept as it
 * is (text and terminator), which is how context lines keep the file's real whitespace and endings.
 */
export type NewLine = string | number;

/**
 * One replacement of a range of ORIGINAL lines. Every mode (hunks, modify edits) is reduced to these,
 * so all of a file's edits refer to the file as it was and are applied in one pass.
 */
export interface LineEdit {
  /** 0-based, half-open range of original lines replaced; start === end inserts before line `start`. */
  start: number;
  end: number;
  lines: NewLine[];
  /** Set only when the edit says how the file ends (it reaches the end and states the final newline). */
  finalNewline?: boolean;
  /** How the edit is named in messages, e.g. "hunk 2" or "edit 3 (replaceLine)". */
  label: string;
  /** Position in the model's list: keeps inserts at the same place in the order they were sent. */
  order: number;
}

const isInsert = (e: LineEdit) => e.start === e.end;

function byPosition(a: LineEdit, b: LineEdit): number {
  return a.start - b.start || Number(!isInsert(a)) - Number(!isInsert(b)) || a.order - b.order;
}

/** Pairs of edits that touch the same original lines (inserting inside a replaced range counts). */
export function findOverlaps(edits: LineEdit[]): Array<[LineEdit, LineEdit]> {
  const sorted = [...edits].sort(byPosition);
  const out: Array<[LineEdit, LineEdit]> = [];
  let reach: LineEdit | undefined;
  for (const e of sorted) {
    if (reach && e.start < reach.end) out.push([reach, e]);
    if (!reach || e.end > reach.end) reach = e;
  }
  return out;
}

/** Applies non-overlapping edits (check with {@link findOverlaps} first) to `doc` and returns the new document. */
export function applyLineEdits(doc: TextDoc, edits: LineEdit[]): TextDoc {
  const sorted = [...edits].sort(byPosition);
  const lines: string[] = [];
  const eols: string[] = [];
  const keep = (i: number) => {
    lines.push(doc.lines[i]!);
    eols.push(doc.eols[i]!);
  };
  let cursor = 0;
  let finalNewline: boolean | undefined;
  for (const e of sorted) {
    for (; cursor < e.start; cursor++) keep(cursor);
    for (const nl of e.lines) {
      if (typeof nl === "number") keep(nl);
      else {
        lines.push(nl);
        eols.push("");
      }
    }
    cursor = Math.max(cursor, e.end);
    if (e.end === doc.lines.length && e.finalNewline !== undefined) finalNewline = e.finalNewline;
  }
  for (; cursor < doc.lines.length; cursor++) keep(cursor);
  const endsWithNewline = finalNewline ?? hasFinalNewline(doc);
  const last = lines.length - 1;
  for (let i = 0; i < last; i++) if (eols[i] === "") eols[i] = doc.eol;
  if (last >= 0) eols[last] = endsWithNewline ? eols[last] || doc.eol : "";
  return { bom: doc.bom, lines, eols, eol: doc.eol };
}

/** "line 5" or "lines 5-9" for the original lines an edit replaces, 1-based. */
export function describeRange(e: LineEdit): string {
  if (isInsert(e)) return e.start === 0 ? "at the top" : `after line ${e.start}`;
  return e.end - e.start === 1 ? `line ${e.start + 1}` : `lines ${e.start + 1}-${e.end}`;
}
