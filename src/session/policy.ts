import { repoSandbox, type Sandbox } from "../exec/sandbox.js";
import { sandboxDir } from "../git/refs.js";
import { checkoutNeeds } from "./checkout-view.js";
import type { SessionConfig } from "./config.js";

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
            private: sandboxDir(config.commonDir, config.id),
            ...(config.sandbox.paths ? { exposed: config.sandbox.paths } : {}),
          }),
        }
      : {}),
  };
}
