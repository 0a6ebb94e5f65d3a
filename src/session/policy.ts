import type { Sandbox } from "../exec/sandbox.js";
import { sandboxDir } from "../git/refs.js";
import type { SessionConfig } from "./config.js";

/** How the session's commands run: which credentials they may see, and the sandbox around them. */
export function commandPolicy(config: SessionConfig, worktree: string): { passEnv?: string[]; sandbox?: Sandbox } {
  return {
    ...(config.passEnv?.length ? { passEnv: config.passEnv } : {}),
    // The checkout and the git directory are re-exposed read-only over the private /tmp and home (tests
    // keep repositories there, and node_modules and linkPaths point into the checkout); the worktree alone
    // is writable, and the session's private folder holds the commands' home.
    ...(config.sandbox
      ? {
          sandbox: {
            writable: [worktree],
            readable: [config.repoTop, config.commonDir],
            network: config.sandbox.network,
            private: sandboxDir(config.commonDir, config.id),
            gitDir: config.commonDir,
            ...(config.sandbox.paths ? { exposed: config.sandbox.paths } : {}),
          },
        }
      : {}),
  };
}
