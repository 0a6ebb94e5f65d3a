import { type Dirent, readdirSync, realpathSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { assertSandboxAvailable, repoSandbox, type Sandbox } from "../exec/sandbox.js";
import { sandboxDirOfWorktree } from "../git/refs.js";
import { checkoutNeeds } from "../session/checkout-view.js";
import { isInside } from "../util/paths.js";

/**
 * The sandbox around a head's code in a review (the project's ESLint and tsc, mutate's tests, evaluate's
 * commands): the session's own (exec/sandbox.ts repoSandbox), no network, the review's temporary worktree
 * alone writable, its private folder (the commands' home, the safe copy of the config) removed with it.
 */

/** Whether bubblewrap can make a sandbox here. */
export function sandboxAvailable(): boolean {
  try {
    assertSandboxAvailable();
    return true;
  } catch {
    return false;
  }
}

/**
 * The sandbox for a head checked out at `wt` (one of the review's worktrees), or null without bubblewrap.
 * Of the user's checkout only what `commands` need of it is shown (session/checkout-view.ts): the
 * node_modules folders, a Python environment; never its `.env` or other ignored files.
 */
export function confinement(repo: { top: string; commonDir: string }, wt: string, commands: (string | undefined)[] = []): Sandbox | null {
  if (!sandboxAvailable()) return null;
  const priv = sandboxDirOfWorktree(wt);
  // Never a silent run without the sandbox: a folder that is not one of the review's worktrees is a bug.
  if (!priv) throw new Error(`confinement: ${wt} is not one of code-trm's worktrees.`);
  // What the checkout's packages link to outside it (npm link, a shared store) is shown too.
  return repoSandbox({
    worktree: wt,
    top: repo.top,
    commonDir: repo.commonDir,
    private: priv,
    network: false,
    fromCheckout: checkoutNeeds(repo.top, wt, { commands }),
    readable: linkedPackages(path.join(repo.top, "node_modules"), repo.top),
  });
}

/** Real folders outside `top` that entries of `modules` (and of its @scopes) link to; at most 200. */
function linkedPackages(modules: string, top: string): string[] {
  const out = new Set<string>();
  const scan = (dir: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (out.size >= 200) return;
      const p = path.join(dir, e.name);
      if (e.isDirectory() && e.name.startsWith("@") && depth === 0) scan(p, 1);
      else if (e.isSymbolicLink()) {
        try {
          const real = realpathSync(p);
          // Not a folder that holds the home (a link to `~` would show all of it).
          if (!isInside(top, real) && !isInside(real, os.homedir()) && statSync(real).isDirectory()) out.add(real);
        } catch {
          // A dangling link: nothing to expose.
        }
      }
    }
  };
  scan(modules, 0);
  return [...out];
}
