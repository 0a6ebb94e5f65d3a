import { describeLines, LineIndex, type MatchKind, NEAR_WINDOW, placeBlock } from "./hunk-match.js";
import { reindent } from "./indent.js";
import { applyLineEdits, describeRange, findOverlaps, type LineEdit, type NewLine } from "./line-edits.js";
import type { Hunk } from "./patch-parse.js";
import { capLines, closestPart } from "./report.js";
import type { TextDoc } from "./text.js";
import type { CandidateIssue } from "./types.js";

export type HunkResult = { ok: true; doc: TextDoc; fuzz: string[]; warnings: string[] } | { ok: false; issues: CandidateIssue[] };

const RESEND_HINT =
  "Read the current lines (trm_read_files) and regenerate this hunk against them, or send the change as mode modify " +
  'with {"type":"replace","oldText":<lines copied from the file>,"newText":...}.';

function placeOne(
  doc: TextDoc,
  index: LineIndex,
  h: Hunk,
  expected: number | null,
  file: string,
): { at: number; kind: MatchKind; stale?: number } | CandidateIssue {
  const oldSide = h.lines.filter((l) => l.kind !== "+");
  const old = oldSide.map((l) => l.text);
  if (old.length === 0) {
    // Nothing to match against: the stated position is all there is.
    if (expected === null && doc.lines.length > 0) {
      return {
        file,
        hunk: h.index,
        message: `hunk ${h.index} only adds lines and its @@ line has no line numbers, so it cannot be placed`,
        hint: "Include 2-3 unchanged lines around the addition as context, or use mode modify with insertAfter.",
      };
    }
    const at = Math.min(doc.lines.length, Math.max(0, expected ?? 0));
    if (h.oldStart !== null && h.oldStart > doc.lines.length) {
      return {
        file,
        hunk: h.index,
        message: `hunk ${h.index} adds lines after line ${h.oldStart}, but the file has ${doc.lines.length} lines`,
        hint: "Include a few unchanged lines as context so the hunk can be placed by content.",
      };
    }
    return { at, kind: "exact" };
  }
  const p = placeBlock(
    index,
    old,
    expected,
    oldSide.map((l) => l.kind === " "),
  );
  if (p.ok) return { at: p.at, kind: p.kind, ...(p.stale !== undefined ? { stale: p.stale } : {}) };
  if (p.reason === "ambiguous") {
    const stated =
      expected === null
        ? "its @@ line has no line numbers"
        : `its stated line ${expected + 1} does not single one out (none is at it, and not exactly one within ${NEAR_WINDOW} lines of it)`;
    return {
      file,
      hunk: h.index,
      message: `hunk ${h.index} (${h.header}) matches at ${describeLines(p.at)}${p.kind === "exact" ? "" : " (ignoring whitespace)"} and ${stated}; refusing to guess`,
      expected: capLines(old),
      hint: "Fix the @@ line number to the place you mean, or add unchanged lines around the change that occur only there.",
    };
  }
  return {
    file,
    hunk: h.index,
    message: `hunk ${h.index} (${h.header}) does not match the file${expected === null ? "" : ` near line ${expected + 1}`}: its context or removed lines are not there`,
    expected: capLines(old),
    ...closestPart(doc.lines, old, expected),
    hint: RESEND_HINT,
  };
}

function toEdit(doc: TextDoc, h: Hunk, at: number, kind: MatchKind, order: number): { edit: LineEdit; note?: string } {
  const lines: NewLine[] = [];
  const pairs: Array<[string, string]> = [];
  const addedAt: number[] = [];
  const anchors: number[] = [];
  let k = 0;
  for (const l of h.lines) {
    if (l.kind === "+") {
      addedAt.push(lines.length);
      anchors.push(Math.max(0, pairs.length - 1));
      lines.push(l.text);
      continue;
    }
    pairs.push([l.text, doc.lines[at + k]!]);
    if (l.kind === " ") lines.push(at + k);
    k++;
  }
  let note: string | undefined;
  if (kind !== "exact") {
    const r = reindent(
      pairs,
      addedAt.map((i) => lines[i] as string),
      (i) => anchors[i]!,
    );
    addedAt.forEach((i, j) => (lines[i] = r.lines[j]!));
    note = r.note;
  }
  const end = at + k;
  const edit: LineEdit = { start: at, end, lines, label: `hunk ${h.index}`, order };
  if (end === doc.lines.length) {
    if (h.newNoEol) edit.finalNewline = false;
    else if (h.oldNoEol) edit.finalNewline = true;
  }
  return { edit, ...(note ? { note } : {}) };
}

/**
 * A placed hunk reduced to the runs of lines it really changes: its context only served to find the
 * place. So hunks made against the same original whose contexts overlap (adjacent edits, each hunk's
 * context holding the other's original line) both apply, and only changed lines can collide.
 */
function changedRuns(e: LineEdit): LineEdit[] {
  const runs: LineEdit[] = [];
  let from = e.start;
  let added: NewLine[] = [];
  const flush = (to: number) => {
    if (to > from || added.length > 0) runs.push({ start: from, end: to, lines: added, label: e.label, order: e.order });
    added = [];
  };
  for (const l of e.lines) {
    if (typeof l === "string") {
      added.push(l);
      continue;
    }
    flush(l);
    from = l + 1;
  }
  flush(e.end);
  const last = runs[runs.length - 1];
  if (e.finalNewline !== undefined) {
    // How the file ends is part of the change: it goes with a run that reaches the end.
    if (last && last.end === e.end) last.finalNewline = e.finalNewline;
    else runs.push({ start: e.end, end: e.end, lines: [], label: e.label, order: e.order, finalNewline: e.finalNewline });
  }
  return runs;
}

/** "hunk 2's context overlaps hunk 1" notes, for hunks whose placed ranges overlap but whose changes do not. */
function sharedContextNotes(edits: LineEdit[]): string[] {
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.order - b.order);
  const notes: string[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    if (b.start < a.end) notes.push(`${b.label} and ${a.label} share ${Math.min(a.end, b.end) - b.start} line(s) of context; both applied`);
  }
  return notes;
}

/**
 * Applies a file's hunks, each placed against the ORIGINAL file. A hunk's expected position is its
 * stated line shifted by how far the previous hunk moved, which is what an edited-above file does.
 */
export function applyHunks(doc: TextDoc, hunks: Hunk[], file: string): HunkResult {
  const index = new LineIndex(doc.lines);
  const issues: CandidateIssue[] = [];
  const fuzz: string[] = [];
  const edits: LineEdit[] = [];
  let drift = 0;
  const warnings: string[] = [];
  hunks.forEach((h, order) => {
    const hasOld = h.lines.some((l) => l.kind !== "+");
    const stated = h.oldStart === null ? null : hasOld ? Math.max(0, h.oldStart - 1) : h.oldStart;
    const placed = placeOne(doc, index, h, stated === null ? null : stated + drift, file);
    if ("message" in placed) {
      issues.push(placed);
      return;
    }
    const { edit, note } = toEdit(doc, h, placed.at, placed.kind, order);
    edits.push(edit);
    const parts: string[] = [];
    if (stated !== null && placed.at !== stated) {
      const d = placed.at - stated;
      parts.push(`applied at line ${placed.at + 1}, ${Math.abs(d)} line(s) ${d > 0 ? "below" : "above"} the stated line ${stated + 1}`);
    } else if (stated === null) parts.push(`placed by content at line ${placed.at + 1} (its @@ line has no line numbers)`);
    if (placed.kind !== "exact") parts.push(`matched ignoring ${placed.kind === "whitespace" ? "whitespace differences" : "all whitespace"}`);
    if (note) parts.push(note);
    if (placed.stale !== undefined) {
      const oldSide = h.lines.filter((l) => l.kind !== "+");
      const line = placed.at + placed.stale;
      warnings.push(
        `${file} hunk ${h.index}: its context line ${JSON.stringify(oldSide[placed.stale]!.text)} is not in the file, whose line ${line + 1} is ${JSON.stringify(doc.lines[line])}; applied because its other lines match only there, and the file's line was kept`,
      );
    }
    if (parts.length > 0) fuzz.push(`${file} hunk ${h.index}: ${parts.join("; ")}`);
    if (stated !== null) drift = placed.at - stated;
  });
  if (issues.length > 0) return { ok: false, issues };
  fuzz.push(...sharedContextNotes(edits).map((n) => `${file}: ${n}`));
  const runs = edits.flatMap(changedRuns);
  const overlaps = findOverlaps(runs);
  if (overlaps.length > 0) {
    return {
      ok: false,
      issues: overlaps.map(([a, b]) => ({
        file,
        hunk: Number(b.label.replace(/\D/g, "")),
        message: `${b.label} changes ${describeRange(b)}, which ${a.label} also changes (${describeRange(a)}) in the original file`,
        hint: "Merge overlapping hunks into one hunk.",
      })),
    };
  }
  return { ok: true, doc: applyLineEdits(doc, runs), fuzz, warnings };
}
