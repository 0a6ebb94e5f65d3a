/**
 * Undo, restore and reset move the session worktree from the tip's tree to another recorded tree. git's
 * `reset --hard` checks every tracked file to do it (33 ms at 5,000 files, measured); the paths that
 * differ between the two trees are known, so here they alone are written, and the index follows after
 * the reply (syncIndexChecked, without a refresh: no command ran). Anything unusual leaves the move to
 * git, as before: a file whose bytes git would change (git-rules.ts: attributes, filters, autocrlf...), a worktree
 * not known to be exactly at the tip, a file that is not as the tip has it, a submodule, a path that is a
 * file on one side and a folder on the other, a link on the way, more than MAX_PATHS paths.
 */
import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { removeEmptyParents } from "../candidate/write.js";
import { entryAt, type PathChange, readBlobBytes } from "../git/objects.js";
import { scratchDir } from "../git/refs.js";
import { type IndexSync, indexStamp, stillIs } from "./candidate-tree.js";
import { inProcessRules, needsGitRules } from "./git-rules.js";

/** Past this many paths git's own checkout is as quick, and a move that large is rare. */
const MAX_PATHS = 256;
const FILE_MODES = new Set(["100644", "100755", "120000"]);

export interface TreeMove {
  /** What the index needs once the files are written (candidate-tree.ts syncIndexChecked). */
  sync: IndexSync;
  /** Writes the files; throws on any failure, after which the caller lets git finish the move. */
  apply(): void;
}

interface MovingSession {
  id: string;
  worktree: string;
  tip: string;
  tipTree: string;
  worktreeAt: string | null;
  config: { commonDir: string };
}

/**
 * Reads only: the move from `fromTree` (the tip's) to `toTree` over the `changed` paths (diffPaths),
 * ready to write; null when git must make it.
 */
export async function planTreeMove(s: MovingSession, fromTree: string, toTree: string, changed: string[]): Promise<TreeMove | null> {
  // First, whatever else decides: a .gitattributes among the paths must drop what was read of the
  // attributes even when git makes this move (the trees it leads to carry it unchanged).
  const rules = await inProcessRules(s, s.worktree, changed);
  if (!rules || s.worktreeAt !== s.tip || s.tipTree !== fromTree || changed.length > MAX_PATHS) return null;
  const at = await indexStamp(s.worktree);
  if (!at) return null;
  const commonDir = s.config.commonDir;
  const all = new Set(changed);
  const changes: PathChange[] = [];
  for (const rel of changed) {
    // update-index would read a leading "-" as an option (syncIndexChecked refuses it too).
    if (needsGitRules(rel) || rel.startsWith("-")) return null;
    // A changed path that is a folder of another: a file became a folder, or the reverse.
    for (let i = rel.indexOf("/"); i > 0; i = rel.indexOf("/", i + 1)) if (all.has(rel.slice(0, i))) return null;
    const [old, next] = await Promise.all([entryAt(commonDir, fromTree, rel), entryAt(commonDir, toTree, rel)]);
    if ((old && !FILE_MODES.has(old.mode)) || (next && !FILE_MODES.has(next.mode))) return null;
    if (!foldersOnTheWay(s.worktree, rel) || !stillIs(s.worktree, rel, old && { mode: old.mode, oid: old.oid })) return null;
    changes.push({ path: rel, entry: next ? { mode: next.mode, oid: next.oid } : null });
  }
  const contents = await Promise.all(changes.map((c) => (c.entry ? readBlobBytes(commonDir, c.entry.oid) : null)));
  // Written by git's checkout, then staged by update-index: both ways, git must keep the bytes.
  const files = changes.flatMap((c, i) => (c.entry && c.entry.mode !== "120000" ? [{ path: c.path, content: contents[i]! }] : []));
  if (!(await rules.keepsBytes(files, "both"))) return null;
  const scratch = scratchDir(commonDir);
  return { sync: { at, changes }, apply: () => writeChanges(s.worktree, scratch, changes, contents) };
}

/** Each folder above `rel` is a real folder (not a link, not a file) or absent, and absent below the first absent one. */
function foldersOnTheWay(root: string, rel: string): boolean {
  const parts = rel.split("/").slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    const st = lstatSync(path.join(root, ...parts.slice(0, i)), { throwIfNoEntry: false });
    if (!st) return true;
    if (!st.isDirectory()) return false;
  }
  return true;
}

/**
 * Removals first (git's order), then each new file or link written beside the worktree and renamed into
 * place, as git's checkout leaves them: 0666 or 0777 less the umask, a link's text as its blob holds it.
 * rename replaces the entry itself, never what a link there points to.
 */
function writeChanges(root: string, scratch: string, changes: PathChange[], contents: (Buffer | null)[]): void {
  for (const c of changes) {
    if (c.entry) continue;
    const abs = path.join(root, c.path);
    unlinkSync(abs);
    removeEmptyParents(root, path.dirname(abs));
  }
  mkdirSync(scratch, { recursive: true });
  changes.forEach((c, i) => {
    if (!c.entry) return;
    // Checked again just before the write: nothing runs in the worktree now, but a link must never be followed.
    if (!foldersOnTheWay(root, c.path)) throw new Error(`a link or file is on the way to ${c.path}`);
    const abs = path.join(root, c.path);
    mkdirSync(path.dirname(abs), { recursive: true });
    const tmp = path.join(scratch, `move-${randomBytes(6).toString("hex")}`);
    try {
      if (c.entry.mode === "120000") symlinkSync(contents[i]!, tmp);
      else writeFileSync(tmp, contents[i]!, { flag: "wx", mode: c.entry.mode === "100755" ? 0o777 : 0o666 });
      renameSync(tmp, abs);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  });
}
