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

export const lines = (n: number, f: (i: number) => string = (i) => `line ${i}`) =>
  Array.from({ length: n }, (_, i) => f(i + 1)).join("\n") + "\n";
