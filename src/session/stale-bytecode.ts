/**
 * Python trusts a cached .pyc whose source has the same size and the same mtime second. Outside the sandbox
 * the session's commands keep their bytecode in its prefix (python-env.ts), so a source written within the
 * second of the run that compiled it, at the same size (`a - b` -> `a + b`), would be tested as the old code:
 * the candidate's own files, and also those the session wrote itself since that run (an undo, a move, a pool
 * slot's reset to another tip). Before each run the bytecode of every .py file that differs from the tree the
 * worktree last ran is dropped; when that tree is not known (the first run of this process there, or a reset
 * after commands changed tracked files, in the session worktree or a pool slot) or it holds a symbolic link, all of the worktree's. The standard library's and the packages'
 * bytecode, under other folders of the prefix, stays. In the sandbox there is no prefix, and the worktree's
 * own __pycache__ goes with each step's leftovers (leftovers.ts).
 */
import { existsSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import { diffPaths, readTreeEntries, TREE_MODE } from "../git/objects.js";
import type { Session } from "./session.js";

/** The folders (repository paths) of the .py files among `paths`. Pure. */
export function pythonFolders(paths: Iterable<string>): string[] {
  return [...new Set([...paths].filter((f) => f.endsWith(".py")).map((f) => path.dirname(f)))];
}

/** Whether `name` is a bytecode file of the module `stem` (`calc.cpython-311.pyc`, `calc.cpython-311.opt-1.pyc`). Pure. */
export const isBytecodeOf = (name: string, stem: string): boolean => name.startsWith(`${stem}.`) && name.endsWith(".pyc");

/** The bytecode of each .py file among `paths` in `own` (the prefix's mirror of the worktree): of that file only, not its folder's others. */
async function dropBytecodeOf(own: string, paths: string[]): Promise<void> {
  for (const dir of pythonFolders(paths)) {
    const stems = new Set(paths.filter((f) => f.endsWith(".py") && path.dirname(f) === dir).map((f) => path.basename(f, ".py")));
    const names = await readdir(path.join(own, dir)).catch(() => [] as string[]);
    for (const n of names) if ([...stems].some((st) => isBytecodeOf(n, st))) await rm(path.join(own, dir, n), { force: true });
  }
}

/** Whether tree `oid` holds a symbolic link anywhere; by oid, once per process: a step reads only the subtrees it changed. */
const linked = new Map<string, Promise<boolean>>();
/** Trees remembered at most (a long-lived server's sessions each add the subtrees their steps change). */
const MAX_LINKED = 50_000;
function holdsLink(commonDir: string, oid: string): Promise<boolean> {
  let p = linked.get(oid);
  if (!p) {
    if (linked.size >= MAX_LINKED) linked.clear();
    p = readTreeEntries(commonDir, oid).then(
      async (es) =>
        es.some((e) => e.mode === "120000") ||
        (await Promise.all(es.filter((e) => e.mode === TREE_MODE).map((e) => holdsLink(commonDir, e.oid)))).some(Boolean),
      // Not known: as if it did (all of the bytecode goes).
      () => {
        linked.delete(oid);
        return true;
      },
    );
    linked.set(oid, p);
  }
  return p;
}

export async function dropStaleBytecode(s: Session, worktree: string, changedFiles: string[], tree: string | undefined): Promise<void> {
  const last = s.ranTrees.get(worktree);
  // Until this run has begun, the worktree's files are no longer known to be the last run's tree.
  s.ranTrees.delete(worktree);
  const own = path.join(s.pycacheDir, worktree);
  if (last === undefined || tree === undefined) await rm(own, { recursive: true, force: true });
  else {
    const differ = last === tree ? [] : await diffPaths(s.config.commonDir, last, tree);
    // Through a symbolic link (`mypkg -> src/mypkg`) Python caches a module under the link's path, while
    // the trees differ in the target's: with a link in the tree, all of the worktree's bytecode goes.
    if (differ.length > 0 && existsSync(own) && (await holdsLink(s.config.commonDir, tree))) await rm(own, { recursive: true, force: true });
    else await dropBytecodeOf(own, [...new Set([...changedFiles, ...differ])]);
  }
  // A __pycache__ beside the sources (Python before 3.8 ignores the prefix; a command may write one).
  for (const dir of pythonFolders(changedFiles)) await rm(path.join(worktree, dir, "__pycache__"), { recursive: true, force: true });
  if (tree !== undefined) s.ranTrees.set(worktree, tree);
}
