/**
 * What an evaluation reads of its surroundings: the worktree's real path and Go module, and plain
 * statements about the environment the commands met (a timeout, a path of the checkout missing in the
 * worktree, dependencies not installed). Read in place (synchronous calls): each asynchronous call is a
 * thread-pool round trip of ~65 µs measured here, against a few µs for the call itself.
 */
import { existsSync, lstatSync, realpathSync } from "node:fs";
import path from "node:path";
import type { RunResult } from "../exec/run.js";
import { readPrefix } from "../util/read-prefix.js";
import { missingPathNotice } from "./missing-paths.js";
import { notFoundProgram, notInstalledNotice } from "./missing-program.js";

/** The real path of `p` (e.g. macOS /tmp is a link), or `p` itself when it cannot be resolved. */
export function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** The module path a go.mod at the worktree's root declares, if any. */
export function readGoModule(cwd: string): string | undefined {
  // Through the bounded reader, as runner-hint.ts reads it: the repository's go.mod may be a FIFO or a link to /dev/zero.
  return /^module\s+(\S+)/m.exec(readPrefix(path.join(cwd, "go.mod"), 10_000))?.[1];
}

const succeeded = (r: RunResult) => r.exitCode === 0 && !r.timedOut;

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

/** Plain statements about what the commands met: a timeout, a missing path, dependencies not installed. */
export function environmentNotices(cwd: string, results: Record<string, RunResult>, checkout?: { root: string }, sandboxed = false): string[] {
  const notices: string[] = [];
  if (sandboxed) {
    const denied = Object.values(results)
      .map((r) => (succeeded(r) ? null : readOnlyPath(r.output.all)))
      .find((p) => p);
    // A tool that writes into its own package folder (vitest --typecheck keeps its build info there) writes
    // into the checkout's node_modules, which the worktree's links lead to: no setting moves that.
    const fix = /(^|\/)node_modules\//.test(denied ?? "")
      ? `That is in the node_modules the worktree links from your checkout: give the worktree a node_modules of its own (setupCmd "rm -rf node_modules && npm ci", or your package manager's install, with network: true), or start without sandbox.`
      : "Make the tool write inside the worktree (its cache or output folder, often an environment variable set in the command), or start without sandbox.";
    if (denied) notices.push(`The sandbox keeps everything outside the worktree read-only, and a command could not write ${denied}. ${fix}`);
  }
  for (const r of Object.values(results)) {
    if (r?.timedOut) notices.push(`"${r.cmd}" timed out and was killed with its child processes; raise timeoutSec if it needs longer.`);
  }
  if (checkout) {
    for (const r of Object.values(results)) {
      const n = missingPathNotice(
        r.cmd,
        r.timedOut ? null : r.exitCode,
        r.output.all,
        (rel) => lexists(path.join(cwd, rel)),
        (rel) => lexists(path.join(checkout.root, rel)),
      );
      if (n && !notices.includes(n)) notices.push(n);
    }
  }
  // A program the shell could not find (`sh: 1: pnpm: not found`, exit 127) is named as not installed,
  // not blamed on dependencies (issue 24: pnpm missing read as "dependencies may be missing").
  const named = new Set<RunResult>();
  for (const r of Object.values(results)) {
    const prog = r && !r.timedOut ? notFoundProgram(r.output.all, r.exitCode) : undefined;
    if (!prog) continue;
    named.add(r);
    const n = notInstalledNotice(prog, r.cmd, existsSync(path.join(cwd, "package.json")));
    if (!notices.includes(n)) notices.push(n);
  }
  const missing = Object.values(results).some((r) => r && !named.has(r) && !succeeded(r) && MISSING_DEP_RE.test(r.output.all));
  if (missing && existsSync(path.join(cwd, "package.json")) && !nodeModulesReachable(cwd)) {
    notices.push(
      'Dependencies not installed: the worktree has no node_modules. Start the session with setupCmd (e.g. "npm ci") or linkPaths: ["node_modules"].',
    );
  } else if (missing) {
    notices.push(
      "A command could not find a module or program: dependencies may be missing in the worktree (setupCmd / linkPaths), or the candidate imports something that does not exist.",
    );
  }
  return notices;
}

/** The path a command was refused for a read-only file system (node, Python, shells, coreutils), or null. */
export function readOnlyPath(out: string): string | null {
  const m =
    /EROFS: read-only file system, \w+ '([^'\n]+)'/.exec(out) ??
    /\[Errno 30\] Read-only file system: '([^'\n]+)'/.exec(out) ??
    /([^\s:'"`]+)'?: Read-only file system/.exec(out);
  return m ? m[1]! : /EROFS|Read-only file system/.test(out) ? "a path outside the worktree" : null;
}
