/** code-trm's own worktrees: added detached and locked, removed with git's registration of them. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { GitError, git, gitOrNull } from "./cli.js";
import { commonDirOfWorktree, ensureWorkRoot, sandboxDirOfWorktree } from "./refs.js";

/**
 * Removes git's registration of one of code-trm's own worktrees (the `.git/worktrees/<name>` folder
 * whose gitdir points at `wtPath`). Never a repository-wide `git worktree prune`: that would also drop
 * the user's worktrees whose folder is only temporarily missing (an unmounted drive), losing their
 * index and HEAD.
 */
export async function forgetWorktreeEntry(commonDir: string, wtPath: string): Promise<void> {
  const admin = path.join(commonDir, "worktrees");
  const want = path.join(wtPath, ".git");
  let names: string[] = [];
  try {
    names = readdirSync(admin);
  } catch {
    return;
  }
  // One small file per worktree, read in place: before every session start, as many as the repository has
  // worktrees, each asynchronous read four thread-pool round trips (~65 µs apiece here).
  for (const name of names) {
    let gitdir = "";
    try {
      gitdir = readFileSync(path.join(admin, name, "gitdir"), "utf8");
    } catch {
      continue;
    }
    if (gitdir.trim() === want) await rm(path.join(admin, name), { recursive: true, force: true });
  }
}

/** A detached, locked worktree (locked so a `git worktree prune` run by the user leaves a live session alone). */
export async function addWorktree(top: string, wtPath: string, commit: string, id: string): Promise<void> {
  // A folder deleted without `git worktree remove` stays registered and makes `add` fail.
  if (!existsSync(wtPath)) await forgetWorktreeEntry(commonDirOfWorktree(wtPath), wtPath);
  else await rm(wtPath, { recursive: true, force: true });
  await mkdir(path.dirname(wtPath), { recursive: true });
  await markWorkRoot(top, wtPath);
  for (let attempt = 1; ; attempt++) {
    try {
      await git(top, ["worktree", "add", "--detach", "--lock", "--reason", `code-trm session ${id}`, wtPath, commit]);
      return;
    } catch (err) {
      // `worktree add` reads every other worktree's admin folder; one another process is adding at
      // that moment has no commondir file yet, and git fails ("failed to read .../commondir: Success",
      // seen with 8 sessions starting at once in one repository). That entry is complete a moment later.
      if (attempt >= 6 || !(err instanceof GitError) || !/failed to read .*commondir/.test(err.stderr)) throw err;
      await forgetWorktreeEntry(commonDirOfWorktree(wtPath), wtPath);
      await rm(wtPath, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 25 * attempt + Math.floor(Math.random() * 50)));
    }
  }
}

/** Names the repository in a new work root (`<root>/<kind>/<name>`), so that removal finds git's entry. */
async function markWorkRoot(top: string, wtPath: string): Promise<void> {
  const root = path.resolve(wtPath, "..", "..");
  if (path.basename(root) === "trm" || existsSync(path.join(root, "commondir"))) return;
  const common = path.resolve(top, (await git(top, ["rev-parse", "--git-common-dir"])).trim());
  ensureWorkRoot(common, root);
}

export async function removeWorktree(top: string, wtPath: string): Promise<void> {
  if (existsSync(wtPath)) {
    await gitOrNull(top, ["worktree", "unlock", wtPath]);
    // git refuses to remove a worktree with submodules; the folder and the entry then go by hand.
    await gitOrNull(top, ["worktree", "remove", "--force", "--force", wtPath]);
    await rm(wtPath, { recursive: true, force: true });
  }
  const priv = sandboxDirOfWorktree(wtPath);
  if (priv) await rm(priv, { recursive: true, force: true });
  await forgetWorktreeEntry(commonDirOfWorktree(wtPath), wtPath);
}
