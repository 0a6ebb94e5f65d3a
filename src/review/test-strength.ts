/**
 * `mutate` in a review: the head's tests run with coverage in temporary checkouts of the head (never the
 * user's), and the added lines no test runs and the mutants of the covered ones that every test passes
 * become comments on those lines. The PR's code runs here: in the bubblewrap sandbox when it works.
 */
import { randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { changedSourceLines } from "../evaluate/coverage/changed-lines.js";
import { DEFAULT_MUTATION_BUDGET_SEC, measureTestStrength, strengthFindings } from "../evaluate/test-strength.js";
import { INSTALL_BWRAP, rootNotice } from "../exec/sandbox.js";
import { gitOrNull, openRepo } from "../git/cli.js";
import { workRoot } from "../git/refs.js";
import { addWorktree, removeWorktree } from "../git/worktrees.js";
import { layerWorkspaces } from "../session/workspaces.js";
import { codeBlock } from "../util/text.js";
import { confinement, sandboxAvailable } from "./confinement.js";
import type { FileChange, ReviewComment } from "./types.js";

export interface ReviewStrengthOptions {
  testCmd: string;
  buildCmd?: string;
  timeoutSec?: number;
  budgetSec?: number;
  parallel?: number;
  /** Run the head's tests even when no sandbox can confine them (the caller trusts the change). */
  trustPr?: boolean;
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
}

/** Comments for the findings, on the review's added lines only. Pure. */
export function strengthComments(findings: ReturnType<typeof strengthFindings>, files: FileChange[]): ReviewComment[] {
  const added = new Map(files.map((f) => [f.path, new Set(f.added)]));
  return findings
    .filter((f) => added.get(f.file)?.has(f.line))
    .map((f) => ({
      file: f.file,
      line: f.line,
      severity: "warning" as const,
      category: "testing" as const,
      rule: f.kind === "untested" ? "untested-change" : "surviving-mutant",
      message: f.message,
      // The diff is the PR's own code: fenced, so GitHub renders none of it (a `-` line as a list, a mention, HTML).
      ...(f.diff ? { suggestion: `A test that fails on this mutant:\n${codeBlock(f.diff, "diff")}` } : {}),
    }));
}

export async function reviewTestStrength(
  repoPath: string,
  base: string,
  head: string,
  files: FileChange[],
  opts: ReviewStrengthOptions,
): Promise<{ comments: ReviewComment[]; notes: string[] }> {
  const repo = await openRepo(repoPath);
  // The head's tests are the change's own code: confined, or run only when the caller trusts the change
  // (as the project's ESLint on a change of the code it runs: project-tools.ts).
  const sandboxed = sandboxAvailable();
  if (!sandboxed && !opts.trustPr)
    return {
      comments: [],
      notes: [
        `mutate was not run: it runs the head's tests, and bubblewrap, which would confine them, is not available (${INSTALL_BWRAP}). Pass trustPr: true (code-trm review --trust-pr) to run them unconfined.`,
      ],
    };
  const mergeBase = (await gitOrNull(repo.top, ["merge-base", base, head]))?.trim() || base;
  const inReview = new Set(files.filter((f) => f.status !== "deleted").map((f) => f.path));
  const changed = new Map([...(await changedSourceLines(repo.top, mergeBase, head))].filter(([f]) => inReview.has(f)));
  const run = randomBytes(4).toString("hex");
  const made: string[] = [];
  const checkouts = new Map<number, Promise<string>>();
  const checkout = (k: number) => {
    let p = checkouts.get(k);
    if (!p) {
      // One at a time: `git worktree add` reads the others' admin folders (worktree-pool.ts).
      p = (async () => {
        await Promise.all([...checkouts.entries()].filter(([j]) => j < k).map(([, q]) => q.catch(() => undefined)));
        const wt = path.join(workRoot(repo.commonDir), "review", `trm-review-${run}-m${k}`);
        opts.onProgress?.(`checking out head ${head.slice(0, 12)} (${k + 1})`);
        await addWorktree(repo.top, wt, head, `review-mutate-${k}`);
        made.push(wt);
        // Node resolves node_modules by walking up: a layer of links to the checkout's (read-only in the
        // sandbox), the head's own workspace packages linked to its copies, as in a session's worktree.
        await layerWorkspaces(repo.top, wt);
        return wt;
      })();
      checkouts.set(k, p);
    }
    return p;
  };
  const notes: string[] = [];
  if (!sandboxed) notes.push(`The head's tests ran without a sandbox because trustPr was passed: bubblewrap is not available (${INSTALL_BWRAP}).`);
  else if (rootNotice()) notes.push(rootNotice()!);
  try {
    const s = await measureTestStrength({
      checkout,
      parallel: opts.parallel ?? Math.max(1, Math.min(4, os.availableParallelism() - 1)),
      testCmd: opts.testCmd,
      ...(opts.buildCmd ? { buildCmd: opts.buildCmd } : {}),
      changed,
      timeoutSec: opts.timeoutSec ?? 300,
      budgetMs: (opts.budgetSec ?? DEFAULT_MUTATION_BUDGET_SEC) * 1000,
      sandbox: (cwd) => confinement(repo, cwd, [opts.testCmd, ...(opts.buildCmd ? [opts.buildCmd] : [])]) ?? undefined,
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    });
    notes.push(...s.notes);
    return { comments: strengthComments(strengthFindings(s), files), notes };
  } finally {
    for (const wt of made) await removeWorktree(repo.top, wt).catch(() => undefined);
  }
}
