import { isGeneratedByProject } from "./generated.js";
import { type FileKind, fileKind } from "./lang.js";
import { lex, looksInsideBlockComment, type Masked } from "./lex.js";
import type { FileChange, ProjectInfo } from "./types.js";

/**
 * What a rule sees of one file: the known lines of the new file grouped in contiguous segments,
 * each lexed once (code / comments / strings), and a per-line view.
 */

export interface Segment {
  startLine: number;
  endLine: number;
  text: string;
  masked: Masked;
  /** Offset in `text` of the start of each line of the segment. */
  lineStarts: number[];
}

export interface LineView {
  line: number;
  raw: string;
  /** Code with string contents and comments blanked (same columns as raw). */
  code: string;
  /** Comment text only (same columns as raw). */
  comment: string;
  added: boolean;
  segment: Segment;
}

export interface FileContext {
  file: FileChange;
  kind: FileKind;
  segments: Segment[];
  lines: Map<number, LineView>;
  addedLines: LineView[];
  addedSet: Set<number>;
  project: ProjectInfo;
}

/** Line number (in the new file) of an offset within a segment. */
export function lineAt(seg: Segment, offset: number): number {
  let lo = 0;
  let hi = seg.lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (seg.lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return seg.startLine + lo;
}

export function buildContext(file: FileChange, project: ProjectInfo = {}): FileContext {
  const byPath = fileKind(file.path);
  const kind = byPath.isGenerated || !isGeneratedByProject(file, project) ? byPath : { ...byPath, isGenerated: true };
  const numbers = [...file.known.keys()].sort((a, b) => a - b);
  const segments: Segment[] = [];
  const lines = new Map<number, LineView>();
  const addedSet = new Set(file.added);
  let i = 0;
  while (i < numbers.length) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j]! + 1) j++;
    const startLine = numbers[i]!;
    const endLine = numbers[j]!;
    const rawLines: string[] = [];
    for (let ln = startLine; ln <= endLine; ln++) rawLines.push(file.known.get(ln) ?? "");
    const text = rawLines.join("\n");
    const lineStarts: number[] = [];
    let off = 0;
    for (const l of rawLines) {
      lineStarts.push(off);
      off += l.length + 1;
    }
    // Only a segment that does not start at the top of the file can start inside a comment.
    const startInBlockComment = startLine > 1 && looksInsideBlockComment(rawLines[0] ?? "");
    const masked = lex(text, kind.syntax, { startInBlockComment });
    const seg: Segment = { startLine, endLine, text, masked, lineStarts };
    segments.push(seg);
    rawLines.forEach((raw, k) => {
      const s = lineStarts[k]!;
      const ln = startLine + k;
      lines.set(ln, {
        line: ln,
        raw,
        code: masked.code.slice(s, s + raw.length),
        comment: masked.comments.slice(s, s + raw.length),
        added: addedSet.has(ln),
        segment: seg,
      });
    });
    i = j + 1;
  }
  const addedLines = file.added.map((ln) => lines.get(ln)).filter((l): l is LineView => l !== undefined);
  return { file, kind, segments, lines, addedLines, addedSet, project };
}
