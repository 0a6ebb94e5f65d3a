import { existsSync, readdirSync, readFileSync } from "node:fs";
import { copyFile, mkdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { UserError } from "../util/errors.js";
import { profileMark } from "../util/profile.js";
import { redact, redactDeep } from "../util/secrets.js";
import { GitError, git, gitOrNull, TRM_IDENTITY } from "./cli.js";
import { indexHasFlaggedEntries } from "./index-file.js";
import { encodeCommit, type PreparedNote, prepareNote } from "./notes.js";
import { commitTreeOf, readObjectRaw } from "./object-read.js";
import { writeObject } from "./objects.js";
import { readRefSync } from "./ref-read.js";
import { runRefTransaction } from "./ref-writer.js";
import { scratchDir } from "./refs.js";

/**
 * The user's checkout as a commit of its own: parent = their HEAD, tree = their working tree as it is
 * (uncommitted and untracked-not-ignored files included). It is built through a temporary index file,
 * so their index, files, HEAD and refs are never written. A commit of our own (never the user's)
 * keeps our tags off their history, where `git describe` and `push --tags` would see them.
 */
/** The user's HEAD commit and its tree; null for an unborn HEAD (a repository without commits). */
export async function readHead(top: string): Promise<{ commit: string; tree: string } | null> {
  // `--verify` takes a single revision, so the pair is terminated with `--` instead; an unborn HEAD fails.
  const [commit, tree] = ((await gitOrNull(top, ["rev-parse", "HEAD^{commit}", "HEAD^{tree}", "--"])) ?? "").trim().split("\n");
  return commit && tree ? { commit, tree } : null;
}

/**
 * The commit the user's HEAD names, read in-process (the checkout's HEAD file, then the branch in the
 * common directory): session start begins the worktree's checkout with it, before any git process
 * could have answered. Null when git must say (unborn, a ref kept elsewhere, e.g. reftable): the
 * caller then asks git (readHead).
 */
export function headCommitFast(repo: { gitDir: string; commonDir: string }): string | null {
  try {
    const text = readFileSync(path.join(repo.gitDir, "HEAD"), "utf8").trim();
    if (/^[0-9a-f]{40}$/.test(text)) return text;
    return text.startsWith("ref: refs/heads/") ? readRefSync(repo.commonDir, text.slice(5)) : null;
  } catch {
    return null;
  }
}

/** `head` is the user's HEAD as read by the caller (readHead), so the baseline's parent is that very commit. */
export async function snapshotCheckout(
  repo: { top: string; gitDir: string; commonDir: string },
  id: string,
  userHead: { commit: string; tree: string } | null,
): Promise<{
  commit: string;
  tree: string;
  head: string | null;
  branch: string | null;
  dirty: boolean;
  /** Files that could not be read (e.g. no permission): left out of the baseline. */
  skipped: string[];
}> {
  const tmpDir = scratchDir(repo.commonDir);
  await mkdir(tmpDir, { recursive: true });
  const tmpIndex = path.join(tmpDir, `index-${id}`);
  try {
    // Starting from a copy of the user's index reuses its stat cache: `add -A` then only hashes what changed.
    const userIndex = path.join(repo.gitDir, "index");
    if (existsSync(userIndex)) await copyFile(userIndex, tmpIndex);
    const env = { GIT_INDEX_FILE: tmpIndex };
    // Flags are rare: the index is read in-process first, and git lists entries only when it has some.
    if (indexHasFlaggedEntries(tmpIndex) !== false) await unflagPresentFiles(repo.top, env);
    profileMark("snap-unflag");
    const skipped: string[] = [];
    try {
      await git(repo.top, ["add", "-A", "--ignore-errors", "--", "."], { env });
    } catch (err) {
      // --ignore-errors adds everything it can read and still exits 1: keep going, and say what is missing.
      const unreadable = err instanceof GitError ? [...err.stderr.matchAll(/unable to index file '([^']+)'/g)].map((m) => m[1]!) : [];
      if (unreadable.length === 0) throw err;
      skipped.push(...unreadable);
    }
    profileMark("snap-add");
    const tree = (await git(repo.top, ["write-tree"], { env })).trim();
    profileMark("snap-write-tree");
    const head = userHead?.commit;
    // HEAD read in-process: "ref: refs/heads/<name>" on a branch, a commit id when detached.
    const headText = (await readFile(path.join(repo.gitDir, "HEAD"), "utf8").catch(() => "")).trim();
    let branch = headText.startsWith("ref: refs/heads/") ? headText.slice("ref: refs/heads/".length) : null;
    // The reftable backend keeps a placeholder there: ask git.
    if (branch === ".invalid") branch = (await gitOrNull(repo.top, ["symbolic-ref", "-q", "--short", "HEAD"]))?.trim() || null;
    const dirty = tree !== (userHead?.tree ?? null);
    const msg = `trm: baseline of session ${id}\n\nThe checkout as it was when the session started${dirty ? " (uncommitted changes included)" : ""}.\n\nTRM-Session: ${id}\nTRM-Step: 0\n`;
    const commit = await writeObject(repo.commonDir, "commit", encodeCommit(tree, head ? [head] : [], TRM_IDENTITY, msg));
    return { commit, tree, head: head ?? null, branch, dirty, skipped };
  } finally {
    await rm(tmpIndex, { force: true });
    await rm(`${tmpIndex}.lock`, { force: true });
  }
}

/**
 * Entries the user flagged assume-unchanged or skip-worktree are invisible to `git add`: their local
 * edits would be missing from "the checkout as it is". The flags are cleared in the temporary index
 * only, and only for files present on disk (a sparse checkout's absent files keep theirs).
 */
async function unflagPresentFiles(top: string, env: Record<string, string>): Promise<void> {
  const listing = await git(top, ["ls-files", "-v", "-z"], { env });
  const skipWorktree: string[] = [];
  const assumeUnchanged: string[] = [];
  for (const entry of listing.split("\0")) {
    const tag = entry[0];
    const file = entry.slice(2);
    if (!tag || !file || !existsSync(path.join(top, file))) continue;
    if (tag === "S") skipWorktree.push(file);
    else if (tag >= "a" && tag <= "z") assumeUnchanged.push(file);
  }
  // One flag per call: given both, update-index applies neither (measured with git 2.39). Paths as
  // arguments (it applies no flag to paths read with --stdin), batched under the argument-size limit.
  for (const [flag, files] of [
    ["--no-skip-worktree", skipWorktree],
    ["--no-assume-unchanged", assumeUnchanged],
  ] as const) {
    for (let i = 0; i < files.length; i += 500) await git(top, ["update-index", flag, "--", ...files.slice(i, i + 500)], { env });
  }
}

export interface RefUpdate {
  ref: string;
  next: string;
  /** The value the ref must still have (compare-and-swap); null = must not exist yet; undefined = no check. */
  expected?: string | null;
}

const ZERO = "0".repeat(40);

/**
 * Moves several refs in one atomic transaction (`update-ref --stdin`): either all move or none do.
 * With `expected`, a ref moved by someone else meanwhile fails the whole transaction instead of
 * being overwritten. Run in a worktree, `HEAD` names that worktree's own (detached) HEAD.
 */
export async function updateRefs(cwd: string, updates: RefUpdate[], reason: string): Promise<void> {
  const lines = updates.map((u) => `update ${u.ref} ${u.next}${u.expected === undefined ? "" : ` ${u.expected ?? ZERO}`}`);
  try {
    await git(cwd, ["update-ref", "--no-deref", "-m", reason, "--stdin"], { input: `${lines.join("\n")}\n` });
  } catch (err) {
    const msg = (err as Error).message;
    if (/expected|already exists|is at/.test(msg)) {
      throw new UserError(
        `A session ref was moved outside this server: ${msg.trim()}`,
        "Another process changed the session. Call trm_get_state to reload it, then retry.",
      );
    }
    throw err;
  }
}

/**
 * {@link updateRefs} through the worktree's long-lived `update-ref --stdin` (ref-writer.ts), for a
 * session's hot paths. Its reflog entries all say "code-trm" (the message is the process's; the commits
 * and notes say what each step is). A ref lock held by another git process fails the transaction as a
 * whole: it is then retried through {@link updateRefs}, which waits for the lock, with `reason`.
 */
export async function updateRefsFast(cwd: string, updates: RefUpdate[], reason: string): Promise<void> {
  try {
    await runRefTransaction(cwd, updates, "code-trm");
  } catch (err) {
    const msg = (err as Error).message;
    if (/Unable to create '[^']+\.lock'/.test(msg)) return updateRefs(cwd, updates, reason);
    if (/expected|already exists|is at/.test(msg)) {
      throw new UserError(
        `A session ref was moved outside this server: ${msg.trim()}`,
        "Another process changed the session. Call trm_get_state to reload it, then retry.",
      );
    }
    throw new GitError(["update-ref", "--stdin"], undefined, msg);
  }
}

/**
 * Attaches `data` as the note of `commit`. With `label`, the notes commit says what it holds (e.g.
 * "trm: step 3 record") instead of git's fixed "Notes added by 'git notes add'", which `git log
 * refs/notes/...` would show for every step alike; it is then written in-process in one write (notes.ts)
 * and the notes ref moved with compare-and-swap, re-based when another writer moved it meanwhile.
 */
export async function writeNote(cwd: string, notesRef: string, commit: string, data: unknown, label?: { commonDir: string; message: string }): Promise<void> {
  // Nothing enters the repository with a credential of the server's in it (outputs, rationale, notes).
  const text = JSON.stringify(redactDeep(data));
  if (!label) {
    // Through stdin: evaluation records can exceed the kernel's per-argument limit (128 KiB).
    await git(cwd, ["notes", `--ref=${notesRef}`, "add", "-f", "-F", "-", commit], { input: text });
    return;
  }
  for (let attempt = 0; ; attempt++) {
    const n = await prepareNoteOf(label.commonDir, notesRef, commit, data, label.message);
    try {
      await updateRefs(cwd, [n], label.message);
      return;
    } catch (err) {
      if (attempt >= 3 || (await resolveRefFast(label.commonDir, n.ref)) === n.expected) throw err;
    }
  }
}

/** The note of `commit` written as a notes commit on top of `notesRef` (redacted, in-process); the ref is not moved. */
export function prepareNoteOf(commonDir: string, notesRef: string, commit: string, data: unknown, message: string): Promise<PreparedNote> {
  return prepareNote(commonDir, notesRef, commit, JSON.stringify(redactDeep(data)), message, TRM_IDENTITY);
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

/**
 * Writes a commit object in-process (1.2 ms against 4.0 ms for `git commit-tree`, measured on a
 * 5,000-file repository), renamed into place as git does (objects.ts): a crash leaves no torn object.
 */
export async function writeCommitFast(commonDir: string, tree: string, parent: string, message: string): Promise<string> {
  return writeObject(commonDir, "commit", encodeCommit(tree, [parent], TRM_IDENTITY, redact(message)));
}

/**
 * An annotated tag object on `commit`, written in-process as `git tag -a -F -` writes it: the same
 * header, the fixed identity, the message cleaned the way git's default (strip) cleans it. The ref is
 * not created (the caller's ref transaction does it).
 */
export async function writeTagFast(commonDir: string, commit: string, name: string, message: string): Promise<string> {
  // The header of a commit's author line (identity, time, zone) is the tagger line's too.
  const who = /^author (.*)$/m.exec(encodeCommit(commit, [], TRM_IDENTITY, "").toString("utf8"))![1]!;
  const head = `object ${commit}\ntype commit\ntag ${name}\ntagger ${who}\n\n`;
  return writeObject(commonDir, "tag", Buffer.from(head + stripSpace(message), "utf8"));
}

/** git's stripspace with comments: trailing blanks and `#` lines gone, blank runs to one, none at either end. */
export function stripSpace(text: string): string {
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    if (raw.startsWith("#")) continue;
    const line = raw.replace(/[ \t\r\v\f]+$/, "");
    if (line === "" && (out.length === 0 || out[out.length - 1] === "")) continue;
    out.push(line);
  }
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}

/** A commit's tree, read in-process (`git rev-parse <commit>^{tree}`). */
export async function treeOfCommitFast(commonDir: string, commit: string): Promise<string> {
  const o = await readObjectRaw(commonDir, commit);
  if (o.type !== "commit") throw new GitError(["rev-parse", `${commit}^{tree}`], 128, `${commit} is a ${o.type}, not a commit`);
  return commitTreeOf(o.content);
}

/** The commit a ref's object leads to, tags peeled in-process (`git rev-parse <oid>^{commit}`). */
export async function peelToCommitFast(commonDir: string, oid: string): Promise<string> {
  for (let depth = 0; depth < 16; depth++) {
    const o = await readObjectRaw(commonDir, oid);
    if (o.type === "commit") return oid;
    const target = o.type === "tag" ? /^object ([0-9a-f]{40})\n/.exec(o.content.toString("latin1", 0, 48))?.[1] : undefined;
    if (!target) break;
    oid = target;
  }
  throw new GitError(["rev-parse", `${oid}^{commit}`], 128, `${oid} does not lead to a commit`);
}

/**
 * Which checkout, if any, has `ref` checked out (its HEAD, or a rebase in progress on it). Moving or
 * deleting such a branch would move that checkout's HEAD under it, and update-ref does not check.
 * Read in-process: the HEAD files of the main checkout and of every linked worktree.
 */
export async function branchCheckedOutAt(commonDir: string, ref: string): Promise<string | null> {
  // Read in place (synchronous calls): three small files per worktree before every step, each read
  // otherwise four thread-pool round trips (open, stat, read, close) of ~65 µs measured here.
  const read = (file: string, fallback: string) => {
    try {
      return readFileSync(file, "utf8");
    } catch {
      return fallback;
    }
  };
  let names: string[] = [];
  try {
    names = readdirSync(path.join(commonDir, "worktrees"));
  } catch {
    // No linked worktree.
  }
  for (const dir of [commonDir, ...names.map((n) => path.join(commonDir, "worktrees", n))]) {
    for (const f of ["HEAD", "rebase-merge/head-name", "rebase-apply/head-name"]) {
      const text = read(path.join(dir, f), "").trim();
      if (text === `ref: ${ref}` || text === ref) {
        if (dir === commonDir) return path.dirname(commonDir);
        return read(path.join(dir, "gitdir"), dir)
          .trim()
          .replace(/\/\.git$/, "");
      }
    }
  }
  return null;
}

/** Reads a ref in-process (no git spawn, ref-read.ts): used on every call to notice moves made outside this server. */
export async function resolveRefFast(commonDir: string, ref: string): Promise<string | null> {
  try {
    return readRefSync(commonDir, ref);
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
