import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { UserError } from "../util/errors.js";
import { stateDir } from "../util/state-dir.js";

/**
 * Where a session lives in git. The branch is moved with compare-and-swap `update-ref` while the
 * worktree stays detached, so the user can check the branch out or delete it without git refusing
 * with "already checked out". Notes are per session so concurrent sessions never race on one notes ref.
 */
export interface SessionRefs {
  branch: string;
  baselineTag: string;
  bestTag: string;
  tagPrefix: string;
  notes: string;
  /** Full command outputs per step, apart from the records so that loading a history stays fast. */
  logs: string;
  /** Namespace for refs that keep undone / superseded steps reachable. */
  keepPrefix: string;
}

/** Ids of earlier versions end in 4 hex digits, new ones in 8 (32 random bits per second). */
export const SESSION_ID_RE = /^[0-9]{8}-[0-9]{6}-(?:[0-9a-f]{4}|[0-9a-f]{8})$/;

export function newSessionId(now = new Date()): string {
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  const d = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}`;
  const t = `${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  return `${d}-${t}-${randomBytes(4).toString("hex")}`;
}

export function checkSessionId(id: string): string {
  if (!SESSION_ID_RE.test(id)) {
    // Never echoed whole: a malformed id may be megabytes.
    throw new UserError(
      `Malformed sessionId: ${JSON.stringify(id.slice(0, 60))}${id.length > 60 ? ` (${id.length} characters, shown truncated)` : ""}.`,
      "Use the sessionId returned by trm_start_session or listed by trm_list_sessions.",
    );
  }
  return id;
}

export function sessionRefs(id: string): SessionRefs {
  return {
    branch: `refs/heads/trm/${id}`,
    baselineTag: `refs/tags/trm/${id}/baseline`,
    bestTag: `refs/tags/trm/${id}/best`,
    tagPrefix: `refs/tags/trm/${id}/`,
    notes: `refs/notes/trm/${id}`,
    logs: `refs/notes/trm-logs/${id}`,
    keepPrefix: `refs/trm/${id}/`,
  };
}

/**
 * code-trm's folder for one repository's worktrees (sessions, pool, review), scratch files and sandbox
 * homes: in the user's state folder, keyed by the repository's git directory. Not inside `.git`: jest's
 * crawler, ESLint, Prettier and watchers skip every path with a `.git` component, so a worktree there
 * finds no tests. Not beside the checkout: nothing of ours may appear in the user's folders. A file
 * `commondir` in it names the repository, for code that holds only a worktree's path.
 */
export function workRoot(commonDir: string): string {
  const real = realOrSelf(commonDir);
  const name =
    path
      .basename(path.basename(real) === ".git" ? path.dirname(real) : real)
      .replace(/[^A-Za-z0-9._-]/g, "_")
      .slice(0, 40) || "repo";
  return path.join(stateDir(), "repos", `${name}-${createHash("sha256").update(real).digest("hex").slice(0, 12)}`);
}

/** Where code-trm kept a repository's worktrees before they moved out of `.git` (still read: see worktreePath). */
export function legacyRoot(commonDir: string): string {
  return path.join(commonDir, "trm");
}

/**
 * code-trm's scratch folder of a repository (temporary index files, new files before they are renamed
 * into a worktree, fixers' copies): beside the worktrees, on their file system.
 */
export function scratchDir(commonDir: string): string {
  return path.join(workRoot(commonDir), "tmp");
}

/**
 * A session's worktree: where git has it registered (a session started before the move keeps its
 * folder inside `.git/trm/worktrees`), else its place under {@link workRoot}.
 */
export function worktreePath(commonDir: string, id: string): string {
  const name = `trm-${id}`;
  try {
    const registered = path.dirname(readFileSync(path.join(commonDir, "worktrees", name, "gitdir"), "utf8").trim());
    if (path.isAbsolute(registered) && path.basename(registered) === name) return registered;
  } catch {
    // Not registered: a new session, or its worktree was removed.
  }
  const legacy = path.join(legacyRoot(commonDir), "worktrees", name);
  return existsSync(legacy) ? legacy : path.join(workRoot(commonDir), "worktrees", name);
}

/** A session's private folder for its sandboxed commands (their home, the repository's safe config). */
export function sandboxDir(commonDir: string, id: string): string {
  return path.join(workRoot(commonDir), "sandbox", `trm-${id}`);
}

/**
 * The private sandbox folder that goes with a worktree of the new layout (`<root>/worktrees/trm-<id>`, a
 * review's `<root>/review/trm-review-…`, a best-of-N pool's `<root>/pool/trm-<id>-<k>`), removed with it.
 */
export function sandboxDirOfWorktree(wtPath: string): string | null {
  return ["worktrees", "review", "pool"].includes(path.basename(path.dirname(wtPath))) && path.basename(path.resolve(wtPath, "..", "..")) !== "trm"
    ? path.join(path.resolve(wtPath, "..", ".."), "sandbox", path.basename(wtPath))
    : null;
}

/** The repository of one of code-trm's worktrees, from its path (`<root>/<kind>/<name>`). */
export function commonDirOfWorktree(wtPath: string): string {
  const root = path.resolve(wtPath, "..", "..");
  try {
    return readFileSync(path.join(root, "commondir"), "utf8").trim();
  } catch {
    // A worktree of the legacy layout, `<commonDir>/trm/<kind>/<name>`.
    return path.dirname(root);
  }
}

/** Makes `root` (by default `workRoot(commonDir)`) with its `commondir` file. */
export function ensureWorkRoot(commonDir: string, root = workRoot(commonDir)): string {
  const file = path.join(root, "commondir");
  if (!existsSync(file)) {
    mkdirSync(root, { recursive: true });
    writeFileSync(file, `${realOrSelf(commonDir)}\n`);
  }
  return root;
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

export function shortRef(ref: string): string {
  return ref.replace(/^refs\/(heads|tags)\//, "");
}
