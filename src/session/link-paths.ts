import { lstat, mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { UserError } from "../util/errors.js";
import { resolveInside } from "../util/paths.js";

/** Symlinks ignored paths (e.g. .env, a nested node_modules) from the checkout into the worktree. */
export async function linkIgnored(top: string, wt: string, rels: string[]): Promise<void> {
  for (const rel of rels) {
    const src = path.join(top, rel);
    // The link is made inside the worktree only: a tracked symlink on the way must not lead elsewhere.
    // `entry`: the folders on the way resolved as the kernel does, the name itself not followed.
    const { entry: dst } = await resolveInside(wt, rel);
    const exists = await lstat(src).then(
      () => true,
      () => false,
    );
    if (!exists) throw new UserError(`linkPaths: ${rel} does not exist in the checkout.`, "List only paths that exist in the repository's working tree.");
    if (
      await lstat(dst).then(
        () => true,
        () => false,
      )
    )
      continue; // tracked: the worktree already has it
    await mkdir(path.dirname(dst), { recursive: true });
    await symlink(src, dst);
  }
}
