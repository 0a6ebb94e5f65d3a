import { LineIndex, placeBlock, type MatchKind } from "./hunk-match.js";
import { reindent } from "./indent.js";
import { applyLineEdits, describeRange, findOverlaps, type LineEdit, type NewLine } from "./line-edits.js";
import type { Hunk } from "./patch-parse.js";
import { capLines, closestPart } from "./report.js";
import type { TextDoc } from "./text.js";
import type { CandidateIssue } from "./types.js";

export type HunkResult = { ok: true; doc: TextDoc; fuzz: string[] } | { ok: false; issues: CandidateIssue[] };

const RESEND_HINT =
  "Read the current lines (trm_read_files) and regenerate this hunk against them, or send the change as mode modify " +
  'with {"type":"replace","oldText":<lines copied from the file>,"newText":...}.';

function placeOne(doc: TextDoc, index: LineIndex, h: Hunk, expected: number | null, file: string): { at: number; kind: MatchKind } | CandidateIssue {
  const old = h.lines.filter((l) => l.kind !== "+").map((l) => l.text);
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
  const p = placeBlock(index, old, expected);
  if (p.ok) return { at: p.at, kind: p.kind };
  if (p.reason === "ambiguous") {
    const where = p.at.map((a) => a + 1).join(" and ");
    return {
      file,
      hunk: h.index,
      message: `hunk ${h.index} (${h.header}) matches equally well at lines ${where}${p.kind === "exact" ? "" : " (ignoring whitespace)"}; refusing to guess`,
      expected: capLines(old),
      hint: "Add unchanged lines around the change to make the context unique, or fix the @@ line numbers.",
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
 * Two hunks that share only unchanged lines (an LLM splitting one change in two) can both apply: the
 * later one's leading context is dropped. Anything else overlapping is left for the overlap check.
 */
function trimSharedContext(edits: LineEdit[]): string[] {
  const notes: string[] = [];
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.order - b.order);
  let reach: LineEdit | undefined;
  for (const e of sorted) {
    if (reach && e.start < reach.end && e.end >= reach.end && e.start < e.end) {
      const shared = reach.end - e.start;
      const tailOk = reach.lines.slice(reach.lines.length - shared).every((l, i) => l === e.start + i);
      const headOk = e.lines.slice(0, shared).every((l, i) => l === e.start + i);
      if (tailOk && headOk) {
        e.lines = e.lines.slice(shared);
        e.start = reach.end;
        notes.push(`${e.label} shares ${shared} context line(s) with ${reach.label}; both applied`);
      }
    }
    if (!reach || e.end > reach.end) reach = e;
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
    if (parts.length > 0) fuzz.push(`${file} hunk ${h.index}: ${parts.join("; ")}`);
    if (stated !== null) drift = placed.at - stated;
  });
  if (issues.length > 0) return { ok: false, issues };
  fuzz.push(...trimSharedContext(edits).map((n) => `${file}: ${n}`));
  const overlaps = findOverlaps(edits);
  if (overlaps.length > 0) {
    return {
      ok: false,
      issues: overlaps.map(([a, b]) => ({
        file,
        hunk: Number(b.label.replace(/\D/g, "")),
        message: `${b.label} (${describeRange(b)}) overlaps ${a.label} (${describeRange(a)}) in the original file`,
        hint: "Merge overlapping hunks into one hunk.",
      })),
    };
  }
  return { ok: true, doc: applyLineEdits(doc, edits), fuzz };
}
