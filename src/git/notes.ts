/**
 * Notes written in-process: the note blob, the notes tree with it and the notes commit (with a message
 * saying what it holds) in one write each, then the notes ref moved with compare-and-swap by the caller,
 * usually in the same transaction as the step's own refs. The layout is git's: a tree keyed by the
 * annotated commit's id, with or without fanout folders (`ab/cdef...`); an existing note is replaced
 * where it lies (git would concatenate two notes of one commit found at different depths), a new one
 * goes at the deepest fanout level already present, which `git notes show` and `git log --notes` read.
 * What is in memory is keyed by object id (immutable), so a note written meanwhile by git is never lost:
 * the ref is read once per write, and the compare-and-swap refuses a ref that moved after that read.
 */
import { commitTreeOf, readObjectRaw } from "./object-read.js";
import { putObject, putTreeObject, readTreeEntries, TREE_MODE } from "./objects.js";
import { readRefSync } from "./ref-read.js";

const treeOfCommit = new Map<string, string>();

async function commitTree(commonDir: string, commit: string): Promise<string> {
  let tree = treeOfCommit.get(commit);
  if (!tree) {
    tree = commitTreeOf((await readObjectRaw(commonDir, commit)).content);
    if (treeOfCommit.size > 1024) treeOfCommit.clear();
    treeOfCommit.set(commit, tree);
  }
  return tree;
}

/** `notesTree` with `blob` as the note of `commit`; returns the new tree. */
async function withNote(commonDir: string, notesTree: string | null, rest: string, blob: string, writes: Promise<void>[]): Promise<string> {
  const entries = notesTree ? [...(await readTreeEntries(commonDir, notesTree))] : [];
  const i = entries.findIndex((e) => e.name === rest && e.mode !== TREE_MODE);
  if (i >= 0) {
    entries[i] = { mode: "100644", name: rest, oid: blob };
    return putTreeObject(commonDir, entries, writes);
  }
  const fan = entries.findIndex((e) => e.mode === TREE_MODE && e.name === rest.slice(0, 2));
  if (fan >= 0 && rest.length > 2) {
    entries[fan] = { mode: TREE_MODE, name: rest.slice(0, 2), oid: await withNote(commonDir, entries[fan]!.oid, rest.slice(2), blob, writes) };
    return putTreeObject(commonDir, entries, writes);
  }
  entries.push({ mode: "100644", name: rest, oid: blob });
  return putTreeObject(commonDir, entries, writes);
}

export interface PreparedNote {
  ref: string;
  next: string;
  /** The notes ref's value the write was based on (null: it did not exist). */
  expected: string | null;
}

/**
 * Writes the note `text` of `commit` into a new notes commit on top of `notesRef`'s current value,
 * with `message`; the ref itself is not moved (the caller does, with `expected` as the old value).
 */
export async function prepareNote(
  commonDir: string,
  notesRef: string,
  commit: string,
  text: string,
  message: string,
  sig: { name: string; email: string },
): Promise<PreparedNote> {
  const ref = notesRef.startsWith("refs/") ? notesRef : `refs/notes/${notesRef}`;
  let parent: string | null = null;
  try {
    parent = readRefSync(commonDir, ref);
  } catch {
    // Unreadable: as if absent; the compare-and-swap on `expected` then refuses a ref that does exist.
  }
  // `git notes add -F` ends a note with a newline (stripspace); the same bytes here.
  // Blob, trees and commit are written side by side, all on disk before the ref may move to them.
  const writes: Promise<void>[] = [];
  let next: string;
  try {
    const blob = putObject(commonDir, "blob", Buffer.from(text.endsWith("\n") ? text : `${text}\n`, "utf8"), writes);
    const tree = await withNote(commonDir, parent ? await commitTree(commonDir, parent) : null, commit, blob, writes);
    next = putObject(commonDir, "commit", encodeCommit(tree, parent ? [parent] : [], sig, message), writes);
    await Promise.all(writes);
    treeOfCommit.set(next, tree);
  } catch (err) {
    await Promise.allSettled(writes);
    throw err;
  }
  return { ref, next, expected: parent };
}

/** A commit object as git writes it; `when` defaults to now, in the local time zone. */
export function encodeCommit(tree: string, parents: string[], sig: { name: string; email: string }, message: string, when = new Date()): Buffer {
  const off = -when.getTimezoneOffset();
  const abs = Math.abs(off);
  const tz = `${off < 0 ? "-" : "+"}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
  const who = `${sig.name} <${sig.email}> ${Math.floor(when.getTime() / 1000)} ${tz}`;
  const head = [`tree ${tree}`, ...parents.map((p) => `parent ${p}`), `author ${who}`, `committer ${who}`].join("\n");
  return Buffer.from(`${head}\n\n${message.endsWith("\n") ? message : `${message}\n`}`, "utf8");
}
