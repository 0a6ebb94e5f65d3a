import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { reviewPr } from "../../src/review/review.js";

/**
 * The real-commit corpus (fixtures/review-real/judged.json): commits of public repositories, reviewed
 * in local-range mode (sha^..sha) from a clone of the mirror the search tool's `fetch` made under
 * /work/.mirror/<owner>+<name>/repo. Only ids, findings and judgements are committed, never code.
 */

export const MIRRORS = process.env.TRM_MIRRORS ?? "/work/.mirror";

export interface Judged {
  file: string;
  line: number;
  rule: string;
  verdict: "right" | "acceptable" | "wrong";
  reason: string;
}
export interface CorpusCommit {
  sha: string;
  subject: string;
  findings: Judged[];
}
export interface CorpusRepo {
  repo: string;
  commits: CorpusCommit[];
}

export const mirrorOf = (repo: string): string => path.join(MIRRORS, repo.replace("/", "+"), "repo");
export const hasMirror = (repo: string): boolean => existsSync(mirrorOf(repo));

/** A throwaway clone with a (never checked out) working tree: local-range review needs one. */
export function cloneMirror(repo: string): { dir: string; cleanup: () => void } {
  const root = mkdtempSync(path.join(tmpdir(), "trm-real-"));
  const dir = path.join(root, "r");
  execFileSync("git", ["clone", "-q", "--no-checkout", mirrorOf(repo), dir], { stdio: "ignore" });
  return { dir, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export async function reviewCommit(dir: string, sha: string) {
  const r = await reviewPr({ repoPath: dir, base: `${sha}^`, head: sha }, { env: {} });
  return r.comments;
}

export const findingKey = (f: { file: string; line: number; rule: string }): string => `${f.file}:${f.line}:${f.rule}`;
