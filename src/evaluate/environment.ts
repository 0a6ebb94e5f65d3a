/** Plain statements about the environment a step's commands ran in: timeouts, missing dependencies and paths. */
import { existsSync, lstatSync } from "node:fs";
import path from "node:path";
import { missingPathNotice } from "./missing-paths.js";
import type { RunResult } from "./run.js";

function succeeded(r: RunResult): boolean {
  return r.exitCode === 0 && !r.timedOut;
}

const MISSING_DEP_RE = /Cannot find module|ERR_MODULE_NOT_FOUND|Cannot find package|: command not found|: not found\b|ModuleNotFoundError/;

/** Node and tsc resolve node_modules by walking up, so a worktree inside .git may still find the checkout's. */
function nodeModulesReachable(dir: string): boolean {
  let d = dir;
  for (;;) {
    if (existsSync(path.join(d, "node_modules"))) return true;
    const up = path.dirname(d);
    if (up === d) return false;
    d = up;
  }
}

const lexists = (p: string) => {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

export function environmentNotices(cwd: string, results: Record<string, RunResult>, checkout?: { root: string }): string[] {
  const notices: string[] = [];
  for (const r of Object.values(results)) {
    if (r?.timedOut) notices.push(`"${r.cmd}" timed out and was killed with its child processes; raise timeoutSec if it needs longer.`);
  }
  if (checkout) {
    for (const r of Object.values(results)) {
      const n = missingPathNotice(r.cmd, r.timedOut ? null : r.exitCode, r.output.all, (rel) => lexists(path.join(cwd, rel)), (rel) => lexists(path.join(checkout.root, rel)));
      if (n && !notices.includes(n)) notices.push(n);
    }
  }
  const missing = Object.values(results).some((r) => r && !succeeded(r) && MISSING_DEP_RE.test(r.output.all));
  if (missing && existsSync(path.join(cwd, "package.json")) && !nodeModulesReachable(cwd)) {
    notices.push("Dependencies not installed: the worktree has no node_modules. Start the session with setupCmd (e.g. \"npm ci\") or linkPaths: [\"node_modules\"].");
  } else if (missing) {
    notices.push("A command could not find a module or program: dependencies may be missing in the worktree (setupCmd / linkPaths), or the candidate imports something that does not exist.");
  }
  return notices;
}
