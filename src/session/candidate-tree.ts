/**
 * The applied candidate's tree, written in-process from its own changed paths against the tip's tree:
 * one blob per changed file and the trees on their paths, no `git add`, no whole-index `write-tree`.
 * git's rules that matter for what a path records are kept: the executable bit (100755), a symlink's
 * text as a 120000 blob, a deleted path, a file that became a folder or the reverse, a new file that
 * .gitignore excludes refused. Anything git would transform or judge by rules of its own (attributes,
 * filters, autocrlf, sparse checkout, submodules, nested repositories, links on the way) goes through
 * `git add` + `write-tree` as before: correctness first. The worktree's index is left behind and
 * brought up to date after the reply (syncIndexChecked), the next operation waiting for it.
 */
import { existsSync, lstatSync, readFileSync, readlinkSync, type Stats } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { GitError, git, gitOrNull } from "../git/cli.js";
import { blobId, entryAt, GITLINK_MODE, NeedsGit, type PathChange, putObject, putTreeWith, TREE_MODE } from "../git/objects.js";
import { UserError } from "../util/errors.js";
import { fileStamp } from "../util/file-stamp.js";
import { type InProcessRules, inProcessRules, needsGitRules } from "./git-rules.js";

/**
 * The tree of `worktree` = `baseTree` + the files at `paths`; `indexStale`: the index was not written.
 * `written` settles once its blob and trees are on disk: an in-process tree's id is known at once and
 * its files are written in the thread pool meanwhile (while the commands run, 0.9 ms of a step's own
 * time measured under load), so the caller awaits it before anything refers to the tree.
 */
export async function writeCandidateTree(
  s: { id: string; config: { commonDir: string } },
  worktree: string,
  baseTree: string,
  paths: string[],
): Promise<{ tree: string; indexStale: boolean; indexSync?: IndexSync; written: Promise<void> }> {
  const commonDir = s.config.commonDir;
  const writes: Promise<void>[] = [];
  const rules = await inProcessRules(s, worktree, paths);
  if (rules) {
    const changes = await changesOf(commonDir, rules, worktree, baseTree, paths, writes).catch(async (err: unknown) => {
      await Promise.allSettled(writes);
      throw err;
    });
    if (changes) {
      try {
        const tree = await putTreeWith(commonDir, baseTree, changes, writes, true);
        const written = Promise.all(writes).then(() => undefined);
        // Handled here too: a caller that fails before awaiting it must not leave a rejection unhandled.
        written.catch(() => undefined);
        return { tree, indexStale: true, indexSync: { at: await indexStamp(worktree), changes }, written };
      } catch (err) {
        await Promise.allSettled(writes);
        if (!(err instanceof NeedsGit)) throw err;
      }
    }
  }
  await Promise.allSettled(writes);
  await stageCandidate(worktree, paths);
  return { tree: (await git(worktree, ["write-tree"])).trim(), indexStale: false, written: Promise.resolve() };
}

/** After an in-process tree: the index as `git add` would have left it. */
export async function syncIndex(worktree: string, paths: string[]): Promise<void> {
  await stageCandidate(worktree, paths);
}

const indexFiles = new Map<string, Promise<string | null>>();

/** The linked worktree's own index file, as its `.git` file names it (read once per worktree). */
function indexFileOf(worktree: string): Promise<string | null> {
  let p = indexFiles.get(worktree);
  if (!p) {
    p = readFile(path.join(worktree, ".git"), "utf8")
      .then((t) => /^gitdir: (.+)$/m.exec(t)?.[1])
      .then((dir) => (dir ? path.join(path.resolve(worktree, dir.trim()), "index") : null))
      .catch(() => null);
    indexFiles.set(worktree, p);
  }
  return p;
}

/**
 * Which version of the worktree's index is on disk: git writes an index only by renaming a new file
 * over it, so any write by anyone (a command's `git add`, a refresh) changes inode or times.
 */
export async function indexStamp(worktree: string): Promise<string | null> {
  const file = await indexFileOf(worktree);
  return file ? fileStamp(file) : null;
}

/** What an in-process tree left for the index: its stamp then (the tip's tree) and the step's entries. */
export interface IndexSync {
  at: string | null;
  changes: PathChange[];
}

/** Whether the file at `rel` is still exactly `entry` (null: absent), hashed as git would store it. */
export function stillIs(worktree: string, rel: string, entry: PathChange["entry"]): boolean {
  const abs = path.join(worktree, rel);
  let st: Stats | null;
  try {
    st = lstatSync(abs);
  } catch {
    st = null;
  }
  if (!entry) return st === null;
  if (!st) return false;
  if (entry.mode === "120000") return st.isSymbolicLink() && blobId(Buffer.from(readlinkSync(abs, { encoding: "buffer" }))) === entry.oid;
  if (!st.isFile() || (st.mode & 0o100 ? "100755" : "100644") !== entry.mode) return false;
  return blobId(readFileSync(abs)) === entry.oid;
}

/**
 * After an in-process tree, when the index is still the one the step started from (the tip's tree):
 * the step's files are checked in-process against the tree, then one git process stages them and checks
 * every other tracked file against the index (update-index runs its arguments in order: the paths, then
 * --refresh, which fails on a file that differs or is gone). True: index and files are exactly the step.
 * False: the caller falls back to `git add` and a full status (a path git would read as an option, an
 * index someone else wrote, a file the commands changed). `commandsRan` false: no command ran in the
 * worktree since it was last found clean, so the step's paths are staged without the refresh.
 */
export async function syncIndexChecked(worktree: string, sync: IndexSync | undefined, commandsRan = true): Promise<boolean> {
  if (!sync?.at || sync.changes.length === 0 || sync.changes.some((c) => c.path.startsWith("-"))) return false;
  if ((await indexStamp(worktree)) !== sync.at) return false;
  for (const c of sync.changes) if (!stillIs(worktree, c.path, c.entry)) return false;
  // Without commands run there, nothing else of the worktree can have changed: no refresh (half the time).
  return (await gitOrNull(worktree, ["update-index", "--add", "--remove", ...sync.changes.map((c) => c.path), ...(commandsRan ? ["--refresh"] : [])])) !== null;
}

/** The changes as tree entries (blobs written), or null when git's own rules must decide. */
async function changesOf(
  commonDir: string,
  rules: InProcessRules,
  worktree: string,
  baseTree: string,
  paths: string[],
  writes: Promise<void>[],
): Promise<PathChange[] | null> {
  const changes: PathChange[] = [];
  const added: string[] = [];
  /** Regular files: stored only once git's attributes are known to keep their bytes. */
  const files: { path: string; content: Buffer; mode: string; at: number }[] = [];
  for (const rel of paths) {
    const parts = rel.split("/");
    if (needsGitRules(rel)) return null;
    const old = await entryAt(commonDir, baseTree, rel);
    if (old?.mode === GITLINK_MODE) return null;
    const abs = path.join(worktree, rel);
    // In place (synchronous calls) like the candidate's write (candidate/write.ts): a few small calls.
    let st: Stats | null;
    try {
      st = lstatSync(abs);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
      st = null;
    }
    if (!st) {
      changes.push({ path: rel, entry: null });
      continue;
    }
    if (old?.mode === TREE_MODE) return null;
    if (st.isDirectory()) {
      // A file that became a folder: the file goes; what the folder holds comes with its own paths.
      if (!old) return null;
      changes.push({ path: rel, entry: null });
      continue;
    }
    let entry: PathChange["entry"] = null;
    if (st.isSymbolicLink())
      entry = { mode: "120000", oid: putObject(commonDir, "blob", Buffer.from(readlinkSync(abs, { encoding: "buffer" })), writes, true) };
    else if (st.isFile()) files.push({ path: rel, content: readFileSync(abs), mode: st.mode & 0o100 ? "100755" : "100644", at: changes.length });
    else return null;
    if (!old) {
      // A new path: git refuses it under a link and records a nested repository as a gitlink.
      for (let i = 1; i < parts.length; i++) {
        const dir = path.join(worktree, ...parts.slice(0, i));
        if (!lstatSync(dir).isDirectory()) return null;
        if (existsSync(path.join(dir, ".git"))) return null;
      }
      added.push(rel);
    }
    changes.push({ path: rel, entry });
  }
  if (!(await rules.keepsBytes(files, "in"))) return null;
  for (const f of files) changes[f.at] = { path: f.path, entry: { mode: f.mode, oid: putObject(commonDir, "blob", f.content, writes, true) } };
  if (added.length > 0) {
    // Exit 0: its output lists the paths .gitignore (or info/exclude) excludes; exit 1: none is; any
    // other failure leaves the decision to `git add`.
    let ignored = "";
    try {
      ignored = await git(worktree, ["check-ignore", "-z", "--stdin"], { input: added.join("\0") + "\0" });
    } catch (err) {
      if (!(err instanceof GitError) || err.exitCode !== 1) return null;
    }
    if (ignored.split("\0").some(Boolean)) {
      throw new UserError(
        `git will not record the candidate's files: ignored by .gitignore: ${ignored.split("\0").filter(Boolean).slice(0, 6).join(", ")}`,
        "Write only files the repository tracks or may track: not ignored by .gitignore, not inside a submodule, inside the sparse checkout. Nothing was changed.",
      );
    }
  }
  return changes;
}

/**
 * Stages the candidate's paths. git refuses paths it would not track here (ignored by .gitignore,
 * outside a sparse checkout, inside a submodule): that is the candidate's problem, said as such.
 */
async function stageCandidate(worktree: string, paths: string[]): Promise<void> {
  try {
    await git(worktree, ["add", "-A", "--", ...paths], { env: { GIT_LITERAL_PATHSPECS: "1" } });
  } catch (err) {
    if (!(err instanceof GitError)) throw err;
    // A folder that is a repository of its own with no commit (a `git init` by a command or a candidate's
    // files inside one): git can record neither its files nor the folder.
    const empty = /'([^'\n]+?)\/?' does not have a commit checked out/.exec(err.stderr);
    if (empty) {
      throw new UserError(
        `${empty[1]} in the worktree is a git repository of its own with no commit (a command or a candidate ran \`git init\` there), so git records neither the folder nor the files in it.`,
        `Delete ${empty[1]}/.git (fix the command that creates it, or send a candidate that deletes the folder). Nothing was changed.`,
      );
    }
    const why = err.stderr
      .split("\n")
      .filter((l) => l.trim() && !l.startsWith("hint:"))
      .slice(0, 6)
      .join(" ");
    throw new UserError(
      `git will not record the candidate's files: ${why}`,
      "Write only files the repository tracks or may track: not ignored by .gitignore, not inside a submodule, inside the sparse checkout. Nothing was changed.",
    );
  }
}
