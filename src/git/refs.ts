import { randomBytes } from "node:crypto";
import path from "node:path";
import { UserError } from "../util/errors.js";

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
    throw new UserError(`Malformed sessionId: ${JSON.stringify(id.slice(0, 60))}${id.length > 60 ? ` (${id.length} characters, shown truncated)` : ""}.`, "Use the sessionId returned by trm_start_session or listed by trm_list_sessions.");
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

/** The worktree sits inside the common git directory: outside the user's working tree, and git never looks there. */
/**
 * code-trm's scratch folder of a repository (temporary index files, new files before they are renamed
 * into a worktree, fixers' copies): inside the git directory, on the worktrees' file system.
 */
export function scratchDir(commonDir: string): string {
  return path.join(commonDir, "trm", "tmp");
}

export function worktreePath(commonDir: string, id: string): string {
  return path.join(commonDir, "trm", "worktrees", `trm-${id}`);
}

export function shortRef(ref: string): string {
  return ref.replace(/^refs\/(heads|tags)\//, "");
}
