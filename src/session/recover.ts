import { existsSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import { gitOrNull } from "../git/cli.js";
import { SESSION_ID_RE, scratchDir, worktreePath } from "../git/refs.js";
import { resolveRefFast } from "../git/session-git.js";
import { addWorktree, removeWorktree } from "../git/worktrees.js";
import { acquireOwner, ownerAlive, ownerFile, readOwner, startingFile } from "./owner-lock.js";
import { registryDelete } from "./registry.js";
import type { Session } from "./session.js";
import { layerWorkspaces } from "./workspaces.js";

/**
 * A start killed half-way (kill -9, a crash) leaves a `.starting` mark whose owner is dead, possibly
 * with refs, a worktree and a temporary index. Nothing of the user's is in it (the start never
 * answered), so all of it goes.
 */
export async function interruptedStarts(commonDir: string): Promise<string[]> {
  const dir = path.join(commonDir, "trm", "run");
  const ids: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const id = name.endsWith(".starting") ? name.slice(0, -".starting".length) : "";
    if (!SESSION_ID_RE.test(id)) continue;
    const owner = readOwner(ownerFile(commonDir, id));
    if (!owner || !ownerAlive(owner)) ids.push(id);
  }
  return ids;
}

/** What an interrupted start of `id` left: its worktree, refs and temporary files. */
export async function interruptedStartLeftovers(commonDir: string, id: string) {
  const refs = (
    (await gitOrNull(commonDir, [
      "for-each-ref",
      "--format=%(refname)",
      `refs/heads/trm/${id}`,
      `refs/tags/trm/${id}/`,
      `refs/notes/trm/${id}`,
      `refs/notes/trm-logs/${id}`,
      `refs/trm/${id}/`,
    ])) ?? ""
  )
    .split("\n")
    .filter(Boolean);
  const wt = worktreePath(commonDir, id);
  const tmpIndex = path.join(scratchDir(commonDir), `index-${id}`);
  const files = [tmpIndex, `${tmpIndex}.lock`, ownerFile(commonDir, id), startingFile(commonDir, id)].filter((f) => existsSync(f));
  return { refs, worktree: existsSync(wt) ? wt : null, files };
}

/** Removes everything an interrupted start left; returns the ids cleaned. */
export async function cleanInterruptedStarts(top: string, commonDir: string): Promise<string[]> {
  const ids = await interruptedStarts(commonDir);
  for (const id of ids) {
    const left = await interruptedStartLeftovers(commonDir, id);
    if (left.worktree) await removeWorktree(top, left.worktree).catch(() => undefined);
    for (const r of left.refs) await gitOrNull(top, ["update-ref", "-d", "--end-of-options", r]);
    await registryDelete(id);
    // The mark goes last: a cleanup interrupted in turn is found and finished next time.
    for (const f of left.files) await rm(f, { force: true });
  }
  return ids;
}

/**
 * Re-creates the worktree of an abandoned session (e.g. `.git/trm` removed by hand) when a tool is used
 * on it. Listing never does this: looking at sessions must not resurrect one.
 */
export async function healAbandoned(s: Session): Promise<void> {
  if (s.status !== "abandoned") return;
  // Inside the mutex, checked again: an end() or another heal may be half-way through.
  await s.mutex.run(async () => {
    if (s.status !== "abandoned") return;
    if (await resolveRefFast(s.config.commonDir, `${s.refs.keepPrefix}ended`)) {
      s.ended = true;
      return;
    }
    if (!(await resolveRefFast(s.config.commonDir, s.refs.branch))) return;
    await acquireOwner(s.config.commonDir, s.id);
    await addWorktree(s.top, s.worktree, s.tip, s.id);
    await layerWorkspaces(s.top, s.worktree);
  });
}
