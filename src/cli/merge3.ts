import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { GitError, git, gitBytes } from "../git/cli.js";

export type MergeOutcome = { path: string; ok: true; merged: Buffer } | { path: string; ok: false; conflicts: string[] };

/**
 * A line-level three-way merge of one file: the session's baseline, the user's working copy and the
 * session's result, with `git merge-file` on temporary copies (it writes its result into the first
 * file, which is ours: the user's file, index and objects are never involved). Conflicts are named by
 * the lines of the user's file they sit on.
 */
export async function mergeFile(commonDir: string, top: string, file: string, baseOid: string, targetOid: string): Promise<MergeOutcome> {
  const [base, target, yours] = await Promise.all([
    gitBytes(commonDir, ["cat-file", "blob", baseOid]),
    gitBytes(commonDir, ["cat-file", "blob", targetOid]),
    readFile(path.join(top, file)),
  ]);
  const dir = await mkdtemp(path.join(os.tmpdir(), "trm-merge-"));
  try {
    const f = { yours: path.join(dir, "yours"), base: path.join(dir, "baseline"), target: path.join(dir, "session") };
    await Promise.all([writeFile(f.yours, yours), writeFile(f.base, base), writeFile(f.target, target)]);
    try {
      await git(dir, ["merge-file", "-L", "yours", "-L", "baseline", "-L", "session", "--", f.yours, f.base, f.target]);
      return { path: file, ok: true, merged: await readFile(f.yours) };
    } catch (err) {
      if (!(err instanceof GitError)) throw err;
      // Exit 1..127: that many conflicts, markers written into the copy; anything else: no merge at all (binary).
      if (err.exitCode === undefined || err.exitCode < 1 || err.exitCode > 127) {
        return { path: file, ok: false, conflicts: [`cannot be merged line by line (${err.stderr.trim().split("\n")[0] || "not text"})`] };
      }
      return { path: file, ok: false, conflicts: conflictLines(yours.toString("utf8"), (await readFile(f.yours)).toString("utf8")) };
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Where each conflict of `merged` (git's markers) sits in the user's file: the "yours" side of a
 * conflict is a run of the user's own lines, found in order from the previous conflict on.
 */
export function conflictLines(yours: string, merged: string): string[] {
  const mine = yours.split(/\r?\n/);
  const lines = merged.split(/\r?\n/);
  const out: string[] = [];
  let cursor = 0;
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith("<<<<<<< yours")) continue;
    const side: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.startsWith("=======") && !lines[j]!.startsWith("||||||| ")) side.push(lines[j++]!);
    let at = -1;
    for (let p = cursor; p + side.length <= mine.length && at < 0; p++) if (side.every((l, k) => mine[p + k] === l)) at = p;
    if (side.length === 0) out.push(`where you removed lines, after your line ${cursor}`);
    else if (at < 0) out.push(`your lines "${side[0]!.slice(0, 60)}"...`);
    else {
      out.push(side.length === 1 ? `your line ${at + 1}` : `your lines ${at + 1}-${at + side.length}`);
      cursor = at + side.length;
    }
    i = j;
  }
  return out.length ? out : ["the same lines (git merge-file reported a conflict)"];
}
