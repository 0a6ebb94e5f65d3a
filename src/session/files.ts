import fs from "node:fs";
import { lstat, readFile } from "node:fs/promises";
import { gitBytes } from "../git/cli.js";
import { entryAt, GITLINK_MODE, readBlobBytes, TREE_MODE } from "../git/objects.js";
import { treeOfCommitFast } from "../git/session-git.js";
import { UserError } from "../util/errors.js";
import { LIMITS } from "../util/limits.js";
import { normalizeRelPath, resolveInside } from "../util/paths.js";
import { countLines } from "../util/text.js";
import { resolvePoint } from "./points.js";
import type { Session } from "./session.js";

export interface FileView {
  path: string;
  exists: boolean;
  content?: string;
  lineCount?: number;
  sizeBytes?: number;
  lastModified?: string;
  /** 1-based first line returned, and how many lines were returned, when a range was asked for. */
  startLine?: number;
  linesReturned?: number;
  binary?: boolean;
  truncated?: boolean;
}

function looksBinary(b: Buffer): boolean {
  return b.subarray(0, 8000).includes(0);
}

/** Reads a file of the session: the worktree now, or a point of its history read in-process from git objects. */
async function readBytes(s: Session, rel: string, at?: string): Promise<{ bytes: Buffer | null; mtime?: Date }> {
  if (at === undefined || at === "current") {
    // Read where the kernel lands, without following a link that appeared since the check.
    const { real } = await resolveInside(s.worktree, rel);
    try {
      const st = await lstat(real);
      if (st.isDirectory()) throw new UserError(`${rel} is a directory.`, "Ask for files, not directories.");
      return { bytes: await readFile(real, { flag: fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW }), mtime: st.mtime };
    } catch (err) {
      if (err instanceof UserError) throw err;
      return { bytes: null };
    }
  }
  const point = await resolvePoint(s, at);
  try {
    const entry = await entryAt(s.config.commonDir, await treeOfCommitFast(s.config.commonDir, point.commit), rel);
    if (entry && entry.mode !== TREE_MODE && entry.mode !== GITLINK_MODE) return { bytes: await readBlobBytes(s.config.commonDir, entry.oid) };
    throw new Error("not a file there");
  } catch {
    // git decides every miss (one more process, only when a file is missing or unreadable here).
    try {
      return { bytes: await gitBytes(s.config.commonDir, ["cat-file", "blob", `${point.commit}:${rel}`]) };
    } catch {
      return { bytes: null };
    }
  }
}

export async function readFiles(s: Session, paths: string[], opts: { offset?: number; limit?: number; at?: string }): Promise<FileView[]> {
  if (paths.length > LIMITS.maxReadPaths) throw new UserError(`Asked for ${paths.length} files; the limit is ${LIMITS.maxReadPaths}.`, "Ask in several calls.");
  let budget = LIMITS.maxReadBytes;
  const out: FileView[] = [];
  for (const p of paths) {
    const rel = normalizeRelPath(p);
    const { bytes, mtime } = await readBytes(s, rel, opts.at);
    if (bytes === null) {
      out.push({ path: rel, exists: false });
      continue;
    }
    const view: FileView = { path: rel, exists: true, sizeBytes: bytes.length, ...(mtime ? { lastModified: mtime.toISOString() } : {}) };
    if (looksBinary(bytes)) {
      out.push({ ...view, binary: true });
      continue;
    }
    let text = bytes.toString("utf8");
    view.lineCount = countLines(text);
    if (opts.offset !== undefined || opts.limit !== undefined) {
      const start = Math.max(1, opts.offset ?? 1);
      const lines = text.split("\n");
      const slice = lines.slice(start - 1, opts.limit !== undefined ? start - 1 + opts.limit : undefined);
      text = slice.join("\n");
      view.startLine = start;
      view.linesReturned = Math.min(slice.length, Math.max(0, view.lineCount - start + 1));
    }
    if (Buffer.byteLength(text) > budget) {
      text = text.slice(0, Math.max(0, budget));
      view.truncated = true;
    }
    budget -= Buffer.byteLength(text);
    out.push({ ...view, content: text });
  }
  return out;
}

/** A numbered line range of one file, at the worktree or a past point (`at`). */
export interface LineRange {
  file: string;
  startLine: number;
  endLine: number;
  at?: string;
}

export async function readLines(s: Session, { file, startLine, endLine, at }: LineRange) {
  if (endLine < startLine) throw new UserError(`endLine ${endLine} is before startLine ${startLine}.`);
  if (endLine - startLine > 2000) throw new UserError("At most 2000 lines per call.", "Ask for a smaller range.");
  const rel = normalizeRelPath(file);
  const { bytes } = await readBytes(s, rel, at);
  if (bytes === null)
    throw new UserError(
      `${rel} does not exist${at ? ` at ${at}` : " in the session worktree"}.`,
      "Check the path (trm_read_files reports exists:false for missing files).",
    );
  if (looksBinary(bytes)) throw new UserError(`${rel} is a binary file.`);
  const text = bytes.toString("utf8");
  const all = text.split("\n");
  const lineCount = countLines(text);
  if (startLine > lineCount && lineCount > 0) throw new UserError(`${rel} has ${lineCount} lines; startLine ${startLine} is past the end.`);
  const width = String(Math.min(endLine, lineCount)).length;
  const lines = all.slice(startLine - 1, Math.min(endLine, lineCount)).map((l, i) => `${String(startLine + i).padStart(width)}: ${l.replace(/\r$/, "")}`);
  return { file: rel, lines, lineCount, startLine, endLine: Math.min(endLine, lineCount) };
}
