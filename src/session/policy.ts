import { repoSandbox, type Sandbox } from "../exec/sandbox.js";
import { sandboxDir, sandboxDirOfWorktree } from "../git/refs.js";
import { checkoutNeeds } from "./checkout-view.js";
import type { SessionConfig } from "./config.js";

/**
 * The private folder (the commands' home) of a session worktree or of one of its pool worktrees: each
 * its own, so that candidates of one batch running side by side share no home.
 */
export function privateDir(config: SessionConfig, worktree: string): string {
  // The session worktree's is sandboxDir; one of the layout inside `.git/trm` (older sessions) has none of its own.
  return sandboxDirOfWorktree(worktree) ?? sandboxDir(config.commonDir, config.id);
}

/** How the session's commands run: which credentials they may see, and the sandbox around them. */
export function commandPolicy(config: SessionConfig, worktree: string): { passEnv?: string[]; sandbox?: Sandbox } {
  return {
    ...(config.passEnv?.length ? { passEnv: config.passEnv } : {}),
    // The sandbox a review's head runs in too (exec/sandbox.ts): the worktree writable, of the checkout only
    // what the worktree links to (checkout-view.ts), the git directory reduced to what git reads; the
    // session's private folder holds the commands' home.
    ...(config.sandbox
      ? {
          sandbox: repoSandbox({
            worktree,
            top: config.repoTop,
            commonDir: config.commonDir,
            fromCheckout: checkoutNeeds(config.repoTop, worktree, {
              linkPaths: config.linkPaths,
              commands: [...Object.values(config.commands), ...config.checks.map((c) => c.cmd)],
            }),
            network: config.sandbox.network,
            private: privateDir(config, worktree),
            ...(config.sandbox.paths ? { exposed: config.sandbox.paths } : {}),
          }),
        }
      : {}),
  };
}
