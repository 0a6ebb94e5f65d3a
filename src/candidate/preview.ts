import { diffRegions, type Region } from "./line-diff.js";
import { capLine } from "./report.js";
import { decodeText } from "./text.js";
import { linkTextOf, type Plan, type Preview, type PreviewExcerpt, type PreviewFile, type TreeReader } from "./types.js";

/** Previews go back to the model: a few lines around each change, never whole files. */
const CONTEXT = 2;
const MAX_EXCERPTS_PER_FILE = 8;
const MAX_SIDE_LINES = 16;
const MAX_LINE_CHARS = 200;

function textLines(buf: Buffer | null): string[] | "binary" {
  if (buf === null) return [];
  const d = decodeText(buf);
  return d.ok ? d.doc.lines : "binary";
}

function capSide(lines: string[]): string[] {
  const out = lines.slice(0, lines.length > MAX_SIDE_LINES ? MAX_SIDE_LINES - 1 : MAX_SIDE_LINES).map((l) => capLine(l, MAX_LINE_CHARS));
  if (lines.length > MAX_SIDE_LINES) out.push(`… (${lines.length - out.length} more lines)`);
  return out;
}

/** Regions closer than two contexts are shown as one excerpt, as `diff -U2` would. */
function excerpts(a: string[], b: string[], regions: Region[]): PreviewExcerpt[] {
  const groups: Region[][] = [];
  for (const r of regions) {
    const g = groups[groups.length - 1];
    const last = g?.[g.length - 1];
    if (g && last && r.aStart - last.aEnd <= 2 * CONTEXT) g.push(r);
    else groups.push([r]);
  }
  const out: PreviewExcerpt[] = groups.slice(0, MAX_EXCERPTS_PER_FILE).map((g) => {
    const first = g[0]!;
    const last = g[g.length - 1]!;
    const lead = Math.min(CONTEXT, first.aStart, first.bStart);
    const trail = Math.min(CONTEXT, a.length - last.aEnd, b.length - last.bEnd);
    return {
      startLine: first.aStart - lead + 1,
      before: capSide(a.slice(first.aStart - lead, last.aEnd + trail)),
      after: capSide(b.slice(first.bStart - lead, last.bEnd + trail)),
    };
  });
  if (groups.length > MAX_EXCERPTS_PER_FILE) {
    out.push({
      startLine: groups[MAX_EXCERPTS_PER_FILE]![0]!.aStart + 1,
      before: [`… (${groups.length - MAX_EXCERPTS_PER_FILE} more changed regions)`],
      after: [],
    });
  }
  return out;
}

/** What applying `plan` to `tree` would change; reads only, writes nothing. */
export async function previewPlan(plan: Plan, tree: TreeReader): Promise<Preview> {
  const files: PreviewFile[] = [];
  for (const op of plan.ops) {
    // A link being deleted is not read through (it may point at a folder, at nothing, or outside).
    if (op.op === "delete" && (await linkTextOf(tree, op.path)) !== null) {
      files.push({ path: op.path, status: "deleted", linesAdded: 0, linesRemoved: 0, excerpts: [{ startLine: 1, before: ["(symbolic link)"], after: [] }] });
      continue;
    }
    const before = await tree.read(op.path);
    const status: PreviewFile["status"] = op.op === "delete" ? "deleted" : before === null ? "added" : "modified";
    const a = textLines(before);
    const b = op.op === "delete" ? [] : textLines(op.content);
    if (a === "binary" || b === "binary") {
      const size = (buf: Buffer | null) => (buf === null ? "none" : `${buf.length} bytes`);
      const after = op.op === "delete" ? null : op.content;
      files.push({
        path: op.path,
        status,
        linesAdded: 0,
        linesRemoved: 0,
        excerpts: [{ startLine: 1, before: [`(binary content, ${size(before)})`], after: [`(binary content, ${size(after)})`] }],
      });
      continue;
    }
    const regions = diffRegions(a, b);
    files.push({
      path: op.path,
      status,
      linesAdded: regions.reduce((n, r) => n + r.bEnd - r.bStart, 0),
      linesRemoved: regions.reduce((n, r) => n + r.aEnd - r.aStart, 0),
      excerpts: excerpts(a, b, regions),
    });
  }
  return {
    filesAffected: files.map((f) => f.path),
    linesAdded: files.reduce((n, f) => n + f.linesAdded, 0),
    linesRemoved: files.reduce((n, f) => n + f.linesRemoved, 0),
    files,
  };
}

/**
 * Everything a dry run should warn about: the planners' warnings (unchanged files, whitespace-only
 * changes, converted line endings, ignored fields, combined duplicates) and each use of fuzz.
 */
export function validationWarnings(plan: Plan): string[] {
  return [...new Set([...plan.warnings, ...plan.fuzz.map((f) => `fuzz: ${f}`)])];
}
