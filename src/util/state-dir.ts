import os from "node:os";
import path from "node:path";

/** code-trm's per-user state folder: the session index and the folders of each repository's worktrees. */
export function stateDir(): string {
  if (process.env.CODE_TRM_STATE_DIR) return process.env.CODE_TRM_STATE_DIR;
  const base = process.env.XDG_STATE_HOME || path.join(os.homedir(), ".local", "state");
  return path.join(base, "code-trm");
}
