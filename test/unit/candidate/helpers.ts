import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import path from "node:path";
import { planCandidate } from "../../../src/candidate/plan.js";
import type { Candidate } from "../../../src/candidate/schema.js";
import { CandidateError, type CandidateIssue, type FileOp, type Plan, type TreeReader } from "../../../src/candidate/types.js";

export type Files = Record<string, string | Buffer>;

export function memTree(files: Files): TreeReader {
  return {
    async read(p: string) {
      const v = files[p];
      return v === undefined ? null : Buffer.isBuffer(v) ? v : Buffer.from(v, "utf8");
    },
  };
}

/** The file set after applying ops in memory, as strings (utf8) keyed by path. */
export function applyOps(files: Files, ops: FileOp[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(files)) out[k] = Buffer.isBuffer(v) ? v.toString("utf8") : v;
  for (const op of ops) {
    if (op.op === "delete") delete out[op.path];
    else out[op.path] = op.content.toString("utf8");
  }
  return out;
}

export async function run(files: Files, c: Candidate): Promise<{ plan: Plan; files: Record<string, string> }> {
  const plan = await planCandidate(c, memTree(files));
  return { plan, files: applyOps(files, plan.ops) };
}

/** Plans a candidate that must fail, returning the issues. */
export async function issuesOf(files: Files, c: Candidate): Promise<CandidateIssue[]> {
  try {
    await planCandidate(c, memTree(files));
  } catch (err) {
    if (err instanceof CandidateError) return err.issues;
    throw err;
  }
  throw new Error("expected the candidate to fail");
}

export const lines = (n: number, f: (i: number) => string = (i) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1)).join("\n") + "\n";

/** Every entry under `dir` (not following links) with its type, mode and bytes, for before/after comparison. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    for (const name of (await readdir(d)).sort()) {
      const abs = path.join(d, name);
      const rel = path.relative(dir, abs);
      const st = await lstat(abs);
      if (st.isSymbolicLink()) out[rel] = `link -> ${await readlink(abs)}`;
      else if (st.isDirectory()) {
        out[rel] = "dir";
        await walk(abs);
      } else out[rel] = `file ${(st.mode & 0o777).toString(8)} ${(await readFile(abs)).toString("base64")}`;
    }
  };
  await walk(dir);
  return out;
}

/** What `git rm <name> && git diff --cached` prints for a committed link whose text is `text` (git 2.39). */
export const linkDeletionDiff = (name: string, text: string) =>
  `diff --git a/${name} b/${name}\ndeleted file mode 120000\nindex 5425ec0..0000000\n--- a/${name}\n+++ /dev/null\n@@ -1 +0,0 @@\n-${text}\n\\ No newline at end of file\n`;
