/**
 * When code-trm may write a session's trees and files in-process, byte for byte, instead of asking git
 * (candidate-tree.ts for a step's tree, tree-move.ts for undo / restore / reset): only where git would
 * store and check out exactly those bytes. Some rules hold for the whole session and are read once from
 * its configuration (autocrlf, fileMode, symlinks, ignoreCase, sparse checkout, object format, shared
 * permissions, configured filters). Attributes are asked per path (git/attributes.ts): a repository with
 * the common `* text=auto eol=lf` (3 of the 5 real repositories tried) keeps every file without a CR
 * as it is, where a .gitattributes anywhere used to send every step through `git add` and `write-tree`.
 */
import os from "node:os";
import path from "node:path";
import { attributesOf, bytesKept, closeAttributes } from "../git/attributes.js";
import { gitOrNull } from "../git/cli.js";

interface RulesSession {
  id: string;
  config: { commonDir: string };
}

/** Why git must write the session's files (null: they may be written in-process), with core.attributesFile. */
interface SessionRules {
  blocker: string | null;
  attributesFile: string | null;
}

const rules = new Map<string, Promise<SessionRules>>();

async function readRules(worktree: string): Promise<SessionRules> {
  const listed = await gitOrNull(worktree, ["config", "-z", "--list"]);
  if (listed === null) return { blocker: "configuration unreadable", attributesFile: null };
  const config = new Map<string, string>();
  let attributesFile: string | null = null;
  for (const item of listed.split("\0")) {
    if (!item) continue;
    const nl = item.indexOf("\n");
    // A key without a value (`[core] autocrlf`) is listed without a newline: git reads it as true.
    if (nl < 0) config.set(item.toLowerCase(), "true");
    else if (nl > 0) config.set(item.slice(0, nl).toLowerCase(), item.slice(nl + 1).toLowerCase());
    // A path, case kept; `~/` is git's own shorthand for the home folder.
    if (nl > 0 && item.slice(0, nl).toLowerCase() === "core.attributesfile") attributesFile = item.slice(nl + 1).replace(/^~\//, `${os.homedir()}/`);
  }
  // git_config_bool: true/yes/on, false/no/off/"" and any integer (non-zero: true).
  const bool = (k: string): boolean | null => {
    const v = config.get(k);
    if (v === undefined) return null;
    if (["true", "yes", "on"].includes(v)) return true;
    if (["false", "no", "off", ""].includes(v)) return false;
    return /^\s*[-+]?\d+\s*$/.test(v) ? Number(v) !== 0 : null;
  };
  const isTrue = (k: string) => bool(k) === true;
  const isFalse = (k: string) => bool(k) === false;
  const blocker = (() => {
    if (config.get("core.autocrlf") === "input" || (config.has("core.autocrlf") && !isFalse("core.autocrlf"))) return "core.autocrlf";
    // A text file's end of line on checkout: only LF (native here) leaves its bytes alone.
    if (!["lf", "native", undefined].includes(config.get("core.eol"))) return "core.eol";
    if (isFalse("core.filemode")) return "core.fileMode=false";
    if (isFalse("core.symlinks")) return "core.symlinks=false";
    if (isTrue("core.ignorecase")) return "core.ignoreCase";
    if (isTrue("core.sparsecheckout")) return "sparse checkout";
    if ((config.get("extensions.objectformat") ?? "sha1") !== "sha1") return "object format";
    if (config.has("core.sharedrepository")) return "shared repository permissions";
    if ([...config.keys()].some((k) => /^filter\..*\.(clean|smudge|process)$/.test(k))) return "filters";
    // Read from where git runs, the worktree: a candidate could write it, unseen by the attribute process.
    if (attributesFile !== null && !path.isAbsolute(attributesFile)) return "core.attributesFile (relative)";
    return null;
  })();
  return { blocker, attributesFile: path.isAbsolute(attributesFile ?? "") ? attributesFile : null };
}

function rulesOf(s: RulesSession, worktree: string): Promise<SessionRules> {
  const key = `${s.config.commonDir}\0${s.id}`;
  let r = rules.get(key);
  if (!r) rules.set(key, (r = readRules(worktree)));
  return r;
}

/** What git's rules allow for an operation's paths, once the session and its paths let it write in-process. */
export interface InProcessRules {
  /**
   * Whether git would keep the bytes of these regular files as they are, going `direction` ("in": stored
   * by `git add`; "out": written by a checkout; "both": a checkout that update-index then stages).
   */
  keepsBytes(files: { path: string; content: Buffer }[], direction: "in" | "out" | "both"): Promise<boolean>;
}

/**
 * The rules for an operation on `paths` in `worktree`, or null when git must do it: the session's
 * configuration forbids in-process writes, or a .gitattributes is among the paths (a change of the rules
 * themselves: what the attribute process read is dropped, even when git then makes the move).
 */
export async function inProcessRules(s: RulesSession, worktree: string, paths: string[]): Promise<InProcessRules | null> {
  if (paths.some((p) => path.posix.basename(p) === ".gitattributes")) {
    closeAttributes(worktree);
    return null;
  }
  const r = await rulesOf(s, worktree);
  if (r.blocker !== null) return null;
  return {
    async keepsBytes(files, direction) {
      const attrs = await attributesOf(
        worktree,
        s.config.commonDir,
        files.map((f) => f.path),
        r.attributesFile,
      );
      return attrs !== null && files.every((f) => bytesKept(attrs.get(f.path)!, f.content, direction));
    },
  };
}

/**
 * Forgets what was read of the session's configuration and attributes (its branch moved, by someone
 * else): read again at the next question.
 */
export function forgetInProcess(s: RulesSession, worktree?: string): void {
  rules.delete(`${s.config.commonDir}\0${s.id}`);
  if (worktree) closeAttributes(worktree);
}

/** Whether git may judge `rel` by rules of its own (.git look-alikes on NTFS / HFS+, odd components): then git writes it. */
export function needsGitRules(rel: string): boolean {
  const parts = rel.split("/");
  return !rel || rel.startsWith("/") || parts.some((p) => p === "" || p === "." || p === ".." || /^\.git[. ]*$|^git~\d|[:\\]|[. ]$|[^\x20-\x7e]/i.test(p));
}
