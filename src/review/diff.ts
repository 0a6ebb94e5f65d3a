import { structuredPatch } from "diff";
import parseDiff from "parse-diff";
import { type FilePatch, parsePatch } from "../candidate/patch-parse.js";
import { isBinaryPath } from "./lang.js";
import type { FileChange, FileStatus } from "./types.js";

/**
 * Turns the three textual inputs (a unified diff, a per-file GitHub patch, whole files) into
 * {@link FileChange}s whose line numbers are NEW-file line numbers, which is what review comments
 * must point at.
 */

const DEV_NULL = "/dev/null";

/** Strips the CR of CRLF diffs so that rules and line lengths see the text as written. */
function clean(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

function fromParsed(file: parseDiff.File, fallbackPath?: string): FileChange {
  const from = file.from && file.from !== DEV_NULL ? file.from : undefined;
  const to = file.to && file.to !== DEV_NULL ? file.to : undefined;
  const path = to ?? from ?? fallbackPath ?? "";
  let status: FileStatus = "modified";
  if (file.new || (file.from === DEV_NULL && to)) status = "added";
  else if (file.deleted || (file.to === DEV_NULL && from)) status = "deleted";
  else if (from && to && from !== to) status = "renamed";

  const known = new Map<number, string>();
  const added: number[] = [];
  let removed = 0;
  for (const chunk of file.chunks) {
    for (const change of chunk.changes) {
      // parse-diff reports "\ No newline at end of file" as a copy of the previous change.
      if (change.content.startsWith("\\")) continue;
      const text = clean(change.content.slice(1));
      if (change.type === "add") {
        known.set(change.ln, text);
        added.push(change.ln);
      } else if (change.type === "normal") {
        known.set(change.ln2, text);
      } else {
        removed++;
      }
    }
  }
  added.sort((a, b) => a - b);
  const change: FileChange = {
    path,
    status,
    binary: file.chunks.length === 0 && isBinaryPath(path),
    linesAdded: added.length,
    linesRemoved: removed,
    known,
    added,
  };
  if (status === "renamed" && from) change.oldPath = from;
  return change;
}

/**
 * Parses a unified diff (git or plain) into file changes, in the order of the diff. Diffs pasted by
 * people and models have wrong `@@` counts and C-quoted names (non-ASCII paths); the candidate parser
 * already repairs both, so it is used here too: a wrong count must not move comments to other lines.
 */
export function parseUnifiedDiff(diff: string): FileChange[] {
  return parsePatch(diff)
    .map(fromFilePatch)
    .filter((f) => f.path !== "");
}

function fromFilePatch(fp: FilePatch): FileChange {
  const path = fp.newPath ?? fp.oldPath ?? "";
  const status: FileStatus = fp.isNew ? "added" : fp.isDeleted ? "deleted" : fp.isRename ? "renamed" : "modified";
  const known = new Map<number, string>();
  const added: number[] = [];
  let removed = 0;
  let offset = 0; // new minus old, for hunks whose `@@` line has no numbers
  for (const h of fp.hunks) {
    const stated = /\+(\d+)/.exec(h.header.replace(/^@@[^+]*/, ""));
    let ln = stated ? Number(stated[1]) : (h.oldStart ?? 1) + offset;
    if (ln === 0) ln = 1; // "+0,0": the new side is empty
    for (const l of h.lines) {
      if (l.kind === "-") {
        removed++;
        offset--;
        continue;
      }
      const text = clean(l.text);
      known.set(ln, text);
      if (l.kind === "+") {
        added.push(ln);
        offset++;
      }
      ln++;
    }
  }
  const change: FileChange = {
    path,
    status,
    binary: fp.binary || (fp.hunks.length === 0 && isBinaryPath(path)),
    linesAdded: added.length,
    linesRemoved: removed,
    known,
    added,
  };
  if (status === "renamed" && fp.oldPath) change.oldPath = fp.oldPath;
  return change;
}

/**
 * Parses the hunk-only patch GitHub returns per file (it has no `diff --git` / `---` / `+++`
 * headers) for a file whose path and status come from the API.
 */
export function parseFilePatch(patch: string, path: string, status: FileStatus, oldPath?: string): FileChange {
  const parsed = parseDiff(patch);
  const first = parsed[0] ?? { chunks: [], additions: 0, deletions: 0 };
  const change = fromParsed({ ...first, from: undefined, to: undefined }, path);
  change.status = status;
  if (oldPath && oldPath !== path) change.oldPath = oldPath;
  return change;
}

export function splitLines(s: string): string[] {
  if (s === "") return [];
  const lines = s.split("\n").map(clean);
  // A trailing newline ends the last line; it does not start a new one.
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * Builds a file change from whole contents. Without `originalContent` the file is new: every line
 * is added. The whole new file is known (one segment), so rules see complete functions.
 * Returns null when the contents are identical (nothing to review).
 */
export function fileChangeFromContents(path: string, content: string, originalContent?: string): FileChange | null {
  const lines = splitLines(content);
  const known = new Map<number, string>();
  lines.forEach((l, i) => known.set(i + 1, l));
  if (originalContent === undefined) {
    return {
      path,
      status: "added",
      binary: false,
      linesAdded: lines.length,
      linesRemoved: 0,
      known,
      added: lines.map((_, i) => i + 1),
      content,
    };
  }
  if (originalContent === content) return null;
  const patch = structuredPatch(path, path, originalContent, content, undefined, undefined, { context: 0 });
  const added: number[] = [];
  let removed = 0;
  for (const hunk of patch.hunks) {
    let ln = hunk.newStart;
    for (const l of hunk.lines) {
      if (l.startsWith("\\")) continue;
      if (l.startsWith("+")) added.push(ln++);
      else if (l.startsWith("-")) removed++;
      else ln++;
    }
  }
  // A change that only adds or removes a final newline has no added text line to comment on, but
  // it is still a change of the file.
  return { path, status: "modified", binary: false, linesAdded: added.length, linesRemoved: removed, known, added, content };
}
