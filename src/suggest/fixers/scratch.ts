import { copyFile, lstat, mkdir, readFile, readlink, symlink } from "node:fs/promises";
import path from "node:path";
import { git } from "../../git/cli.js";
import { LIMITS } from "../../util/limits.js";
import { isInside, resolveInside, resolveLinks } from "../../util/paths.js";
import { readPrefix } from "../../util/read-prefix.js";
import type { FileRewrite } from "../types.js";

/**
 * The scratch copy every fixer of the repository writes in: the session's tracked files copied (links
 * stay links, never followed), so that neither the worktree nor the user's checkout is ever written.
 */

export const MAX_TRACKED_FILES = 50_000;

/** Copies the tracked files of `worktree` into `dest` (links stay links); returns their paths. */
export async function copyTracked(worktree: string, dest: string, tool = "eslint --fix"): Promise<string[]> {
  const files = (await git(worktree, ["ls-files", "-z", "--cached"])).split("\0").filter(Boolean);
  if (files.length > MAX_TRACKED_FILES) throw new Error(`${files.length} tracked files: too many to copy for ${tool}`);
  const dirs = new Set<string>();
  let i = 0;
  const worker = async () => {
    while (i < files.length) {
      const rel = files[i++]!;
      const src = path.join(worktree, rel);
      const dst = path.join(dest, rel);
      const st = await lstat(src).catch(() => null);
      if (!st || (!st.isFile() && !st.isSymbolicLink())) continue; // deleted, or a submodule directory
      const dir = path.dirname(dst);
      if (!dirs.has(dir)) {
        await mkdir(dir, { recursive: true });
        dirs.add(dir);
      }
      if (st.isSymbolicLink()) await symlink(await readlink(src), dst);
      else await copyFile(src, dst);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return files;
}

/**
 * Files of `files` that are reached, inside `scratch`, through a link leading out of it: a fixer writes
 * with an ordinary write, which follows links, so it would fix them in place wherever they point.
 */
export async function escapingPaths(scratch: string, files: string[]): Promise<string[]> {
  const real = await resolveLinks(scratch);
  const out: string[] = [];
  for (const f of files) if (!isInside(real, await resolveLinks(path.join(scratch, f)))) out.push(f);
  return out;
}

/** Tracked symbolic links of the copy that lead out of it (a fixer that rewrites a whole tree could follow them). */
export async function escapingLinks(scratch: string, tracked: string[]): Promise<string[]> {
  const links: string[] = [];
  for (const f of tracked) if ((await lstat(path.join(scratch, f)).catch(() => null))?.isSymbolicLink()) links.push(f);
  return escapingPaths(scratch, links);
}

/** The files a fixer changed: `files` as they are in the worktree and as the fixer left them in the copy. */
export async function rewritesOf(worktree: string, scratch: string, files: string[]): Promise<FileRewrite[]> {
  const out: FileRewrite[] = [];
  for (const f of files) {
    const st = await lstat(path.join(worktree, f)).catch(() => null);
    // Links are the link's business, and a huge file is no candidate anyone should read.
    if (!st?.isFile() || st.size > LIMITS.maxFileBytes) continue;
    const [before, after] = await Promise.all([readFile(path.join(worktree, f), "utf8"), fixedText(scratch, f)]);
    if (after !== null && after !== before) out.push({ path: f, before, after });
  }
  return out;
}

/**
 * What a fixer left at `f` in the copy, when it is a regular file there, reached through no link: the fixer
 * runs the repository's own code (an ESLint config), which may leave a link to `~/.ssh/id_rsa` or a FIFO in
 * its place, and the server reading it unconfined handed the key to the model as a fix (h30).
 */
async function fixedText(scratch: string, f: string): Promise<string | null> {
  const at = await resolveInside(scratch, f).catch(() => null);
  if (!at || at.real !== path.join(await resolveLinks(scratch), ...f.split("/"))) return null;
  const st = await lstat(at.real).catch(() => null);
  if (!st?.isFile() || st.size > LIMITS.maxFileBytes) return null;
  return readPrefix(at.real, LIMITS.maxFileBytes, "refuse");
}
