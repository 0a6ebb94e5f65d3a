import { lstat, mkdir, readFile, rm, rmdir, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { resolveInside } from "../util/paths.js";
import { UserError, errorMessage } from "../util/errors.js";
import type { FileOp, TreeReader } from "./types.js";

/** Reads files of a worktree for planning; directories and missing files read as null. */
export function worktreeReader(root: string): TreeReader {
  return {
    async read(rel: string): Promise<Buffer | null> {
      const { abs } = await resolveInside(root, rel);
      try {
        const st = await lstat(abs);
        if (!st.isFile() && !st.isSymbolicLink()) return null;
        return await readFile(abs);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR") return null;
        throw err;
      }
    },
  };
}

interface Backup {
  abs: string;
  before: Buffer | null;
}

export interface AppliedPlan {
  /** Repository-relative paths that were written or deleted. */
  paths: string[];
  /** Puts every touched file back as it was, and removes directories the plan created. */
  rollback(): Promise<void>;
}

/**
 * Writes a plan into the worktree. Paths are re-checked against symlinks at write time (the plan may
 * have been computed earlier). On any failure everything already written is restored before the
 * error is rethrown, so the worktree is exactly as before.
 */
export async function applyPlan(root: string, ops: FileOp[]): Promise<AppliedPlan> {
  const backups: Backup[] = [];
  const createdDirs: string[] = [];
  const rollback = async () => {
    for (const b of backups.reverse()) {
      if (b.before === null) await rm(b.abs, { force: true });
      else {
        await mkdir(path.dirname(b.abs), { recursive: true });
        await writeFile(b.abs, b.before);
      }
    }
    // Deepest first, and only if still empty: the plan made them, nothing else should be inside.
    for (const d of createdDirs.sort((a, b) => b.length - a.length)) await rmdir(d).catch(() => undefined);
  };
  try {
    for (const op of ops) {
      const { abs } = await resolveInside(root, op.path);
      const before = await readFile(abs).catch(() => null);
      backups.push({ abs, before });
      if (op.op === "delete") {
        await unlink(abs);
        await removeEmptyParents(root, path.dirname(abs));
      } else {
        await mkdirTracked(root, path.dirname(abs), createdDirs);
        await writeFile(abs, op.content);
      }
    }
  } catch (err) {
    await rollback();
    if (err instanceof UserError) throw err;
    throw new UserError(`Could not write the candidate: ${errorMessage(err)}. Nothing was changed.`);
  }
  return { paths: ops.map((o) => o.path), rollback };
}

async function mkdirTracked(root: string, dir: string, created: string[]): Promise<void> {
  const missing: string[] = [];
  let d = dir;
  while (d.startsWith(root) && d !== root) {
    try {
      const st = await lstat(d);
      if (!st.isDirectory()) throw new UserError(`Cannot create a file below ${path.relative(root, d)}: it is a file, not a directory.`);
      break;
    } catch (err) {
      if (err instanceof UserError) throw err;
      missing.push(d);
      d = path.dirname(d);
    }
  }
  await mkdir(dir, { recursive: true });
  created.push(...missing);
}

/** Git does not track empty directories, so a deleted file's emptied parent would otherwise linger. */
async function removeEmptyParents(root: string, dir: string): Promise<void> {
  let d = dir;
  while (d.startsWith(root) && d !== root) {
    try {
      await rmdir(d);
    } catch {
      return;
    }
    d = path.dirname(d);
  }
}
