import { existsSync } from "node:fs";
import path from "node:path";
import { absolutePathsIn, isInside } from "../util/paths.js";
import { otherEnvironments } from "./python-env.js";
import { dependencyFolders } from "./workspaces.js";

/**
 * What a sandboxed command in a worktree needs of the user's checkout, which the sandbox hides otherwise
 * (exec/sandbox.ts repoSandbox): the tracked files are the worktree's own, so only the ignored ones the
 * worktree links to are shown (the node_modules folders its layers link to, linkPaths) and the Python
 * environments the commands run (the server's VIRTUAL_ENV or the venv of the python on its PATH, one a
 * command names by absolute path), and what else a command names by absolute path in it. Never the rest:
 * a `.env`, keys, other untracked files.
 */

/** dependencyFolders walks a workspace repository's packages: once per checkout and worktree. */
const folders = new Map<string, string[]>();
const MAX_REMEMBERED = 64;

export function checkoutNeeds(top: string, wt: string, opts: { linkPaths?: readonly string[]; commands?: readonly (string | undefined)[] } = {}): string[] {
  const key = `${top}\0${wt}`;
  let deps = folders.get(key);
  if (!deps) {
    deps = dependencyFolders(top, wt);
    if (folders.size >= MAX_REMEMBERED) folders.delete(folders.keys().next().value!);
    folders.set(key, deps);
  }
  const out = new Set([...(opts.linkPaths ?? []), ...deps].map((rel) => path.join(top, rel)));
  const commands = (opts.commands ?? []).filter((c): c is string => !!c);
  for (const e of otherEnvironments(commands)) out.add(e.dir);
  // What a command names by absolute path in the checkout (`node --test /home/me/app/slow.test.mjs`): the
  // commands are the user's (the session's configuration, the reviewer's arguments), never the candidate's.
  for (const cmd of commands) for (const p of absolutePathsIn(cmd)) if (isInside(top, p)) out.add(path.normalize(p));
  return [...out].filter((p) => existsSync(p));
}
