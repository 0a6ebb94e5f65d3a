import { describeLines, findAllBlocks, LineIndex, type MatchKind, placeBlock } from "./hunk-match.js";
import { reindent } from "./indent.js";
import { applyLineEdits, describeRange, findOverlaps, type LineEdit } from "./line-edits.js";
import { normalizeInto } from "./paths.js";
import { capLines, closestPart, plural } from "./report.js";
import type { Candidate, Edit } from "./schema.js";
import { contentLines, decodeText, docToLF, encodeText, type TextDoc, toLF } from "./text.js";
import { CandidateError, type CandidateIssue, type FileOp, type Plan, type TreeReader } from "./types.js";

type EditType = Edit["type"];
type Field = Exclude<keyof Edit, "type">;

const FIELDS: Record<EditType, { required: Field[]; optional?: Field[] }> = {
  replace: { required: ["oldText", "newText"], optional: ["all"] },
  replaceLine: { required: ["line", "content"] },
  replaceRange: { required: ["startLine", "endLine", "content"] },
  insertBefore: { required: ["line", "content"] },
  insertAfter: { required: ["line", "content"] },
  deleteLine: { required: ["line"] },
  deleteRange: { required: ["startLine", "endLine"] },
};

const ALL_FIELDS: Field[] = ["oldText", "newText", "all", "line", "startLine", "endLine", "content"];

/** One file being edited: its original text and the ways edits refer to it. */
class FileCtx {
  readonly index: LineIndex;
  readonly text: string;
  /** Offset in `text` where each line starts, plus a final entry at text.length. */
  readonly starts: number[];
  readonly issues: CandidateIssue[] = [];
  readonly warnings: string[] = [];
  readonly fuzz: string[] = [];

  constructor(
    readonly path: string,
    readonly doc: TextDoc,
  ) {
    this.index = new LineIndex(doc.lines);
    this.text = docToLF(doc);
    this.starts = [0];
    for (let i = 0; i < doc.lines.length; i++)
      this.starts.push(this.starts[i]! + doc.lines[i]!.length + (i < doc.lines.length - 1 || this.text.endsWith("\n") ? 1 : 0));
  }

  get lineCount(): number {
    return this.doc.lines.length;
  }

  /** 0-based line holding character `offset`. */
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.lineCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  issue(edit: number, message: string, extra: Partial<CandidateIssue> = {}): void {
    this.issues.push({ file: this.path, hunk: edit, message: `edit ${edit}: ${message}`, ...extra });
  }
}

interface TextRange {
  s: number;
  e: number;
  text: string;
}

/**
 * Turns character replacements into whole-line edits. A replacement that swallows a line break joins
 * the next line into the edit, so edits on adjacent lines are detected as overlapping instead of
 * silently corrupting each other.
 */
function rangesToEdits(ctx: FileCtx, ranges: TextRange[], label: string, order: number): LineEdit[] {
  const last = ctx.lineCount - 1;
  const groups: Array<{ l1: number; l2: number; ranges: TextRange[] }> = [];
  const segment = (g: { l1: number; l2: number; ranges: TextRange[] }) => {
    let out = "";
    let pos = ctx.starts[g.l1]!;
    for (const r of g.ranges) {
      out += ctx.text.slice(pos, r.s) + r.text;
      pos = r.e;
    }
    return out + ctx.text.slice(pos, ctx.starts[g.l2 + 1]!);
  };
  for (const r of [...ranges].sort((a, b) => a.s - b.s)) {
    const l1 = ctx.lineOf(r.s);
    const l2 = ctx.lineOf(r.e - 1);
    const g = groups[groups.length - 1];
    if (g && l1 <= g.l2) {
      g.ranges.push(r);
      g.l2 = Math.max(g.l2, l2);
    } else groups.push({ l1, l2, ranges: [r] });
    const cur = groups[groups.length - 1]!;
    for (let seg = segment(cur); seg !== "" && !seg.endsWith("\n") && cur.l2 < last; seg = segment(cur)) cur.l2++;
  }
  return groups.map((g) => {
    const seg = segment(g);
    const lines = seg === "" ? [] : (seg.endsWith("\n") ? seg.slice(0, -1) : seg).split("\n");
    const edit: LineEdit = { start: g.l1, end: g.l2 + 1, lines, label, order };
    if (g.l2 === last && seg !== "") edit.finalNewline = seg.endsWith("\n");
    return edit;
  });
}

function lineNumbersOf(ctx: FileCtx, offsets: number[]): string {
  const nums = offsets.slice(0, 20).map((o) => ctx.lineOf(o) + 1);
  return nums.join(", ") + (offsets.length > 20 ? `, … (${offsets.length} in all)` : "");
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function kindNote(kind: MatchKind): string {
  return kind === "whitespace" ? "ignoring whitespace differences" : "ignoring all whitespace";
}

/** `replace` when oldText is not in the file verbatim: first as whole lines, then as whitespace-separated tokens. */
function replaceTolerant(ctx: FileCtx, e: Edit, n: number, order: number, oldText: string, newText: string): LineEdit[] | null {
  const label = `edit ${n} (replace)`;
  const wantLines = contentLines(oldText);
  if (wantLines.some((l) => l.trim() !== "")) {
    const found: { kind: MatchKind; at: number[] } | "ambiguous" | undefined = e.all
      ? findAllBlocks(ctx.index, wantLines)
      : (() => {
          const p = placeBlock(ctx.index, wantLines, null);
          if (p.ok) return { kind: p.kind, at: [p.at] };
          if (p.reason === "ambiguous") {
            ctx.issue(n, `oldText is not in the file verbatim, and ${kindNote(p.kind)} it matches at several places (${describeLines(p.at)})`, {
              expected: capLines(wantLines),
              hint: "Copy oldText exactly from the file, with enough surrounding lines to be unique, or set all: true.",
            });
            return "ambiguous";
          }
          return undefined;
        })();
    if (found === "ambiguous") return [];
    if (found) {
      const newLines = newText === "" ? (oldText.endsWith("\n") ? [] : [""]) : contentLines(newText);
      const notes = new Set<string>();
      const edits = found.at.map((at) => {
        const pairs = wantLines.map((w, i): [string, string] => [w, ctx.doc.lines[at + i]!]);
        const r = reindent(pairs, newLines);
        if (r.note) notes.add(r.note);
        return { start: at, end: at + wantLines.length, lines: r.lines, label, order } satisfies LineEdit;
      });
      ctx.fuzz.push(
        `${ctx.path} ${label}: oldText not found verbatim; matched ${kindNote(found.kind)} at line ${found.at.map((a) => a + 1).join(", ")}` +
          [...notes].map((x) => `; ${x}`).join(""),
      );
      return edits;
    }
  }
  const tokens = oldText.trim().split(/\s+/).filter(Boolean);
  if (tokens.length > 1) {
    const re = new RegExp(tokens.map(escapeRe).join("\\s+"), "g");
    const matches = [...ctx.text.matchAll(re)];
    if (matches.length > 1 && !e.all) {
      ctx.issue(
        n,
        `oldText is not in the file verbatim, and ignoring whitespace it matches at several places (lines ${lineNumbersOf(
          ctx,
          matches.map((m) => m.index),
        )})`,
        {
          hint: "Copy oldText exactly from the file, with enough surrounding text to be unique, or set all: true.",
        },
      );
      return [];
    }
    if (matches.length > 0) {
      // The matched span excludes oldText's outer whitespace, so the same outer whitespace is taken off newText.
      const lead = /^\s*/.exec(oldText)![0];
      const trail = /\s*$/.exec(oldText)![0];
      let core = newText.startsWith(lead) ? newText.slice(lead.length) : newText;
      core = trail && core.endsWith(trail) ? core.slice(0, core.length - trail.length) : core;
      ctx.fuzz.push(
        `${ctx.path} ${label}: oldText not found verbatim; matched ignoring whitespace at line ${lineNumbersOf(
          ctx,
          matches.map((m) => m.index),
        )}`,
      );
      return rangesToEdits(
        ctx,
        matches.map((m) => ({ s: m.index, e: m.index + m[0].length, text: core })),
        label,
        order,
      );
    }
  }
  return null;
}

function planReplace(ctx: FileCtx, e: Edit, n: number, order: number): LineEdit[] {
  const oldText = toLF(e.oldText!);
  const newText = toLF(e.newText!);
  const label = `edit ${n} (replace)`;
  if (oldText === "") {
    ctx.issue(n, "oldText is empty", { hint: "To add lines use insertBefore or insertAfter with a line number." });
    return [];
  }
  if (oldText === newText) ctx.warnings.push(`${ctx.path} ${label}: oldText and newText are identical`);
  else if (oldText.endsWith("\n") && newText !== "" && !newText.endsWith("\n")) {
    ctx.warnings.push(`${ctx.path} ${label}: oldText ends with a line break and newText does not, so the next line is joined to it`);
  }
  const offsets: number[] = [];
  for (let at = ctx.text.indexOf(oldText); at !== -1; at = ctx.text.indexOf(oldText, at + oldText.length)) offsets.push(at);
  if (offsets.length > 1 && !e.all) {
    ctx.issue(n, `oldText occurs ${offsets.length} times (lines ${lineNumbersOf(ctx, offsets)})`, {
      hint: "Include surrounding lines in oldText so it occurs once, or set all: true to replace every occurrence.",
    });
    return [];
  }
  if (offsets.length > 0)
    return rangesToEdits(
      ctx,
      offsets.map((s) => ({ s, e: s + oldText.length, text: newText })),
      label,
      order,
    );
  const tolerant = replaceTolerant(ctx, e, n, order, oldText, newText);
  if (tolerant) return tolerant;
  const want = contentLines(oldText);
  ctx.issue(n, "oldText was not found in the file, even ignoring whitespace", {
    expected: capLines(want),
    ...closestPart(ctx.doc.lines, want, null),
    hint: "Copy oldText exactly from the current file (trm_read_files), or use replaceRange with line numbers.",
  });
  return [];
}

/** Checks a 1-based line number against what the edit type accepts; reports the file's line count if out of range. */
function lineIn(ctx: FileCtx, n: number, type: EditType, field: Field, v: number, min: number, max: number): boolean {
  if (Number.isInteger(v) && v >= min && v <= max) return true;
  ctx.issue(n, `${type} ${field} ${v} is out of range: ${ctx.path} has ${plural(ctx.lineCount, "line")} (${field} must be ${min}-${max})`, {
    hint:
      ctx.lineCount === 0
        ? "The file is empty: use insertAfter with line 0."
        : `Line numbers refer to the file before this candidate; it has ${ctx.lineCount} lines.`,
  });
  return false;
}

function planLineEdit(ctx: FileCtx, e: Edit, n: number, order: number): LineEdit[] {
  const N = ctx.lineCount;
  const label = `edit ${n} (${e.type})`;
  const make = (start: number, end: number, lines: string[]): LineEdit[] => [{ start, end, lines, label, order }];
  switch (e.type) {
    case "replaceLine":
      return lineIn(ctx, n, e.type, "line", e.line!, 1, N) ? make(e.line! - 1, e.line!, contentLines(e.content!)) : [];
    case "deleteLine":
      return lineIn(ctx, n, e.type, "line", e.line!, 1, N) ? make(e.line! - 1, e.line!, []) : [];
    case "insertBefore":
      // Before the line after the last one is the end of the file; allowed so an empty file can be filled.
      return lineIn(ctx, n, e.type, "line", e.line!, 1, N + 1) ? make(e.line! - 1, e.line! - 1, contentLines(e.content!)) : [];
    case "insertAfter":
      return lineIn(ctx, n, e.type, "line", e.line!, 0, N) ? make(e.line!, e.line!, contentLines(e.content!)) : [];
    case "replaceRange":
    case "deleteRange": {
      const a = e.startLine!;
      const b = e.endLine!;
      if (!lineIn(ctx, n, e.type, "startLine", a, 1, N) || !lineIn(ctx, n, e.type, "endLine", b, 1, N)) return [];
      if (a > b) {
        ctx.issue(n, `${e.type} startLine ${a} is after endLine ${b}`, { hint: "startLine and endLine are inclusive, startLine <= endLine." });
        return [];
      }
      if (e.type === "replaceRange" && e.content === "") {
        ctx.warnings.push(`${ctx.path} ${label}: empty content replaces lines ${a}-${b} with one empty line; deleteRange removes them`);
      }
      return make(a - 1, b, e.type === "deleteRange" ? [] : contentLines(e.content!));
    }
    default:
      return [];
  }
}

function checkFields(ctx: FileCtx, e: Edit, n: number): boolean {
  const spec = FIELDS[e.type];
  if (!spec) {
    ctx.issue(n, `unknown edit type ${JSON.stringify(e.type)}`, { hint: `Edit types: ${Object.keys(FIELDS).join(", ")}.` });
    return false;
  }
  const missing = spec.required.filter((f) => e[f] === undefined || e[f] === null);
  if (missing.length > 0) {
    ctx.issue(n, `${e.type} needs ${missing.map((f) => `"${f}"`).join(" and ")}`, {
      hint: `${e.type} takes {${[...spec.required, ...(spec.optional ?? [])].join(", ")}}.`,
    });
    return false;
  }
  const ignored = ALL_FIELDS.filter((f) => e[f] !== undefined && !spec.required.includes(f) && !(spec.optional ?? []).includes(f));
  if (ignored.length > 0) ctx.warnings.push(`${ctx.path} edit ${n} (${e.type}): ${ignored.join(", ")} ignored (not used by ${e.type})`);
  return true;
}

const editKey = (e: Edit) => JSON.stringify([e.type, ...ALL_FIELDS.map((f) => e[f] ?? null)]);

/** Plans one file's edits; every edit refers to the original lines, so they are applied in one pass. */
function planFileEdits(ctx: FileCtx, edits: Edit[]): Buffer | null {
  const lineEdits: LineEdit[] = [];
  const seen = new Map<string, number>();
  edits.forEach((e, i) => {
    const n = i + 1;
    const key = editKey(e);
    const dup = seen.get(key);
    if (dup !== undefined) {
      ctx.issue(n, `repeats edit ${dup} exactly`, { hint: "Send each edit once; line numbers of all edits refer to the original file." });
      return;
    }
    seen.set(key, n);
    if (!checkFields(ctx, e, n)) return;
    lineEdits.push(...(e.type === "replace" ? planReplace(ctx, e, n, i) : planLineEdit(ctx, e, n, i)));
  });
  for (const [a, b] of findOverlaps(lineEdits)) {
    ctx.issues.push({
      file: ctx.path,
      hunk: b.order + 1,
      message: `${b.label} (${describeRange(b)}) overlaps ${a.label} (${describeRange(a)})`,
      hint: "Line numbers of all edits refer to the original file; combine edits that touch the same lines into one replaceRange.",
    });
  }
  if (ctx.issues.length > 0) return null;
  return encodeText(applyLineEdits(ctx.doc, lineEdits));
}

export async function planModify(c: Candidate, tree: TreeReader): Promise<Plan> {
  const issues: CandidateIssue[] = [];
  const warnings: string[] = [];
  const fuzz: string[] = [];
  const ops: FileOp[] = [];
  // One file listed twice: its edits are planned together, still all against the original.
  const byPath = new Map<string, Edit[]>();
  for (const ch of c.changes ?? []) {
    const rel = normalizeInto(ch.file, issues);
    if (rel === null) continue;
    const prev = byPath.get(rel);
    if (prev) {
      warnings.push(`${rel}: listed several times in changes; its edits were combined (numbered on from ${prev.length})`);
      prev.push(...ch.edits);
    } else byPath.set(rel, [...ch.edits]);
  }
  for (const [rel, edits] of byPath) {
    if (edits.length === 0) {
      issues.push({ file: rel, message: "no edits", hint: 'Give at least one edit, e.g. {"type":"replace","oldText":"a","newText":"b"}.' });
      continue;
    }
    const buf = await tree.read(rel);
    if (buf === null) {
      issues.push({ file: rel, message: "does not exist, so it cannot be modified", hint: "Create new files with mode create." });
      continue;
    }
    const d = decodeText(buf);
    if (!d.ok) {
      issues.push({
        file: rel,
        message: `${d.reason}; mode modify only edits UTF-8 text files`,
        hint: "Replace binary files with mode files, or remove them with mode delete.",
      });
      continue;
    }
    const ctx = new FileCtx(rel, d.doc);
    const content = planFileEdits(ctx, edits);
    issues.push(...ctx.issues);
    warnings.push(...ctx.warnings);
    fuzz.push(...ctx.fuzz);
    if (content !== null) ops.push({ op: "write", path: rel, content, create: false });
  }
  if (issues.length > 0) throw new CandidateError(issues);
  return { ops, warnings, fuzz };
}
