/**
 * The index file read in-process, for a question session start would otherwise ask a git process while
 * `git worktree add` runs on the other core (one process less beside it). Anything unexpected answers
 * null: the caller then asks git, as before.
 */
import { readFileSync } from "node:fs";

const ASSUME_VALID = 0x8000;
const EXTENDED = 0x4000;
const SKIP_WORKTREE = 0x4000;

/**
 * Whether the index file has an entry flagged assume-unchanged or skip-worktree (gitformat-index:
 * versions 2 to 4, SHA-1). Null when it cannot tell (another format, a damaged or unreadable file).
 */
export function indexHasFlaggedEntries(file: string): boolean | null {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch {
    return null;
  }
  if (buf.length < 12 || buf.toString("latin1", 0, 4) !== "DIRC") return null;
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const count = buf.readUInt32BE(8);
  let at = 12;
  for (let i = 0; i < count; i++) {
    const start = at;
    if (at + 62 > buf.length) return null;
    const flags = buf.readUInt16BE(at + 60);
    at += 62;
    if (flags & ASSUME_VALID) return true;
    if (flags & EXTENDED) {
      if (version < 3 || at + 2 > buf.length) return null;
      if (buf.readUInt16BE(at) & SKIP_WORKTREE) return true;
      at += 2;
    }
    if (version === 4) {
      // The path is the previous one cut by a varint count, then this NUL-terminated suffix; no padding.
      while (at < buf.length && buf[at]! & 0x80) at++;
      at++;
      const nul = buf.indexOf(0, at);
      if (nul < 0) return null;
      at = nul + 1;
    } else {
      const len = flags & 0xfff;
      const nul = buf.indexOf(0, at);
      // A name length that does not end at its NUL: not the layout this reads (e.g. longer ids).
      if (nul < 0 || (len < 0xfff && nul !== at + len)) return null;
      // NULs pad the entry to a multiple of eight bytes, at least one.
      at = start + Math.ceil((nul + 1 - start) / 8) * 8;
    }
  }
  return false;
}
