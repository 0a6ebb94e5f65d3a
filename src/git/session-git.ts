import { existsSync } from "node:fs";
import { copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import fs from "node:fs";
import path from "node:path";
import isogit from "isomorphic-git";
import { UserError } from "../util/errors.js";
import { git, gitOrNull } from "./cli.js";

/**
 * The user's checkout as a commit of its own: parent = their HEAD, tree = their working tree as it is
 * (uncommitted and untracked-not-ignored files included). It is built through a temporary index file,
 * so their index, files, HEAD and refs are never written. A commit of our own (never the user's)
 * keeps our tags off their history, where `git describe` and `push --tags` would see them.
 */
export async function snapshotCheckout(repo: { top: string; gitDir: string; commonDir: string }, id: string): Promise<{
  commit: string;
  tree: string;
  head: string | null;
  branch: string | null;
  dirty: boolean;
}> {
  const tmpDir = path.join(repo.commonDir, "trm", "tmp");
  await mkdir(tmpDir, { recursive: true });
  const tmpIndex = path.join(tmpDir, `index-${id}`);
  try {
    // Starting from a copy of the user's index reuses its stat cache: `add -A` then only hashes what changed.
    const userIndex = path.join(repo.gitDir, "index");
    if (existsSync(userIndex)) await copyFile(userIndex, tmpIndex);
    const env = { GIT_INDEX_FILE: tmpIndex };
    await git(repo.top, ["add", "-A", "--ignore-errors", "--", "."], { env });
    const tree = (await git(repo.top, ["write-tree"], { env })).trim();
    const head = (await gitOrNull(repo.top, ["rev-parse", "--verify", "-q", "HEAD^{commit}"]))?.trim() || null;
    const branch = (await gitOrNull(repo.top, ["symbolic-ref", "-q", "--short", "HEAD"]))?.trim() || null;
    const headTree = head ? (await git(repo.top, ["rev-parse", `${head}^{tree}`])).trim() : null;
    const dirty = tree !== headTree;
    const msg = `trm: baseline of session ${id}\n\nThe checkout as it was when the session started${dirty ? " (uncommitted changes included)" : ""}.\n\nTRM-Session: ${id}\nTRM-Step: 0`;
    const args = ["commit-tree", tree, ...(head ? ["-p", head] : []), "-m", msg];
    const commit = (await git(repo.top, args)).trim();
    return { commit, tree, head, branch, dirty };
  } finally {
    await rm(tmpIndex, { force: true });
    await rm(`${tmpIndex}.lock`, { force: true });
  }
}

/** A detached, locked worktree (locked so `git worktree prune` elsewhere leaves a live session alone). */
export async function addWorktree(top: string, wtPath: string, commit: string, id: string): Promise<void> {
  // A directory deleted without `git worktree remove` stays registered and makes `add` fail.
  await git(top, ["worktree", "prune"]);
  if (existsSync(wtPath)) await rm(wtPath, { recursive: true, force: true });
  await mkdir(path.dirname(wtPath), { recursive: true });
  await git(top, ["worktree", "add", "--detach", "--lock", "--reason", `code-trm session ${id}`, wtPath, commit]);
}

export async function removeWorktree(top: string, wtPath: string): Promise<void> {
  if (existsSync(wtPath)) {
    await gitOrNull(top, ["worktree", "unlock", wtPath]);
    await gitOrNull(top, ["worktree", "remove", "--force", "--force", wtPath]);
    await rm(wtPath, { recursive: true, force: true });
  }
  await gitOrNull(top, ["worktree", "prune"]);
}

/** Moves a ref only if it still points where we think (compare-and-swap): a concurrent move is an error, not a lost update. */
export async function casUpdateRef(cwd: string, ref: string, next: string, expected: string | null, reason: string): Promise<void> {
  try {
    await git(cwd, ["update-ref", "-m", reason, ref, next, expected ?? ""]);
  } catch (err) {
    throw new UserError(
      `${ref} was moved outside this server (expected ${expected?.slice(0, 12) ?? "no ref"}): ${(err as Error).message.trim()}`,
      "Another process changed the session. Call trm_get_state to reload it, then retry.",
    );
  }
}

export async function writeNote(cwd: string, commonDir: string, notesRef: string, commit: string, data: unknown): Promise<void> {
  const tmpDir = path.join(commonDir, "trm", "tmp");
  await mkdir(tmpDir, { recursive: true });
  // A file, not -m: evaluation records can exceed the kernel's per-argument limit (128 KiB).
  const file = path.join(tmpDir, `note-${process.pid}-${commit}.json`);
  await writeFile(file, JSON.stringify(data));
  try {
    await git(cwd, ["notes", `--ref=${notesRef}`, "add", "-f", "-F", file, commit]);
  } finally {
    await rm(file, { force: true });
  }
}

export async function readNote<T>(cwd: string, notesRef: string, commit: string): Promise<T | null> {
  const out = await gitOrNull(cwd, ["notes", `--ref=${notesRef}`, "show", commit]);
  if (out === null) return null;
  try {
    return JSON.parse(out) as T;
  } catch {
    return null;
  }
}

export interface LoggedCommit<T> {
  commit: string;
  tree: string;
  note: T | null;
}

/** The first-parent chain from `tip` down to (excluding) `stop`, oldest first, with each commit's note: one git call. */
export async function readChain<T>(cwd: string, notesRef: string, tip: string, stop: string): Promise<LoggedCommit<T>[]> {
  if (tip === stop) return [];
  const out = await git(cwd, ["log", "--first-parent", `--notes=${notesRef}`, "--format=%x1e%H%x1f%T%x1f%N", tip, `^${stop}`, "--"]);
  const entries: LoggedCommit<T>[] = [];
  for (const rec of out.split("\x1e")) {
    if (!rec.trim()) continue;
    const [commit, tree, note] = rec.split("\x1f");
    let parsed: T | null = null;
    try {
      parsed = note?.trim() ? (JSON.parse(note) as T) : null;
    } catch {
      parsed = null;
    }
    entries.push({ commit: commit!.trim(), tree: tree!.trim(), note: parsed });
  }
  return entries.reverse();
}

/** Reads a ref in-process (no git spawn): used on every call to notice moves made outside this server. */
export async function resolveRefFast(commonDir: string, ref: string): Promise<string | null> {
  try {
    return await isogit.resolveRef({ fs, gitdir: commonDir, ref });
  } catch {
    return null;
  }
}

export async function listRefs(cwd: string, prefix: string): Promise<{ ref: string; oid: string }[]> {
  const out = await git(cwd, ["for-each-ref", "--format=%(refname) %(objectname)", prefix]);
  return out
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const [ref, oid] = l.split(" ");
      return { ref: ref!, oid: oid! };
    });
}
