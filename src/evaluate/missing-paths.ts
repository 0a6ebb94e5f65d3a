/**
 * A command that names an ignored path (`.venv/bin/python`, `node_modules/.bin/jest`) fails in a new
 * worktree with exit 127 or "No such file or directory": git does not check ignored files out. That
 * is a missing dependency of the session, not a fault of the candidate, and it says how to fix it.
 */
import path from "node:path";

/**
 * Relative paths a shell command names, as a person would read them (no expansion), relative to the
 * worktree: after `cd tests`, `../.venv/bin/python` is `.venv/bin/python`. Paths that leave the
 * worktree, and everything after a `cd` that cannot be followed, are not named.
 */
export function pathsInCommand(cmd: string): string[] {
  const out: string[] = [];
  let cwd: string | null = "";
  let cdNext = false;
  for (const raw of cmd.split(/[\s;&|()<>]+/)) {
    let t = raw.replace(/^['"]|['"]$/g, "");
    if (cdNext) {
      cdNext = false;
      cwd = cwd === null || !t || /^[/$~-]/.test(t) ? null : within(cwd, t);
      continue;
    }
    if (t === "cd" || t === "pushd") {
      cdNext = true;
      continue;
    }
    const assign = /^[A-Za-z_][A-Za-z0-9_]*=(.*)$/.exec(t);
    if (assign) t = assign[1]!;
    if (cwd === null || !t || t.startsWith("-") || t.startsWith("/") || t.startsWith("$") || t.startsWith("~") || t.includes("://")) continue;
    if (!t.includes("/") && !t.startsWith(".")) continue;
    const rel = within(cwd, t);
    if (rel) out.push(rel);
  }
  return [...new Set(out)];
}

/** `t` joined onto `cwd` (both relative to the worktree): null when it leaves the worktree, "" for the worktree itself. */
function within(cwd: string, t: string): string | null {
  const p = path.posix.normalize(path.posix.join(cwd, t));
  return p === ".." || p.startsWith("../") ? null : p === "." ? "" : p;
}

const NOT_FOUND_RE = /No such file or directory|: not found\b|command not found|can't open file|ENOENT/;

/**
 * Names the first path of `cmd` that the checkout has and the worktree lacks, with what to do.
 * `inWorktree` / `inCheckout` say whether a relative path exists there (lstat, links included).
 */
export function missingPathNotice(
  cmd: string,
  exitCode: number | null,
  output: string,
  inWorktree: (rel: string) => boolean,
  inCheckout: (rel: string) => boolean,
): string | undefined {
  if (exitCode === 0 || (exitCode !== 127 && exitCode !== 126 && !NOT_FOUND_RE.test(output))) return undefined;
  for (const p of pathsInCommand(cmd)) {
    if (inWorktree(p) || !inCheckout(p)) continue;
    // The shortest missing prefix is what to link (.venv, not .venv/bin/python).
    const segs = p.split("/");
    let top = p;
    for (let k = 1; k <= segs.length; k++) {
      const pre = segs.slice(0, k).join("/");
      if (!inWorktree(pre)) {
        top = pre;
        break;
      }
    }
    return `Dependency missing in the worktree: "${cmd}" uses ${p}, which your checkout has but the worktree does not (${top} is not tracked by git, so new worktrees lack it). Link it with linkPaths: ["${top}"] or create it with setupCmd; the failure is not the candidate's.`;
  }
  return undefined;
}
