/**
 * A candidate applied and judged, the part of a step before it is recorded (submit.ts) and of each
 * best-of-N candidate (batch.ts): planned against a worktree and written all or nothing, then evaluated
 * (or taken from the cache by tree id) and judged against the tests of earlier steps.
 */
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { suggestMode } from "../candidate/mode-suggest.js";
import { planCandidate } from "../candidate/plan.js";
import type { Candidate } from "../candidate/schema.js";
import { applyPlan, worktreeReader } from "../candidate/write.js";
import type { Evaluation, EvaluationRun } from "../evaluate/evaluate.js";
import { judgeEvaluation, lastUnheldPoint, referencePoint } from "../evaluate/judge.js";
import { projectRunners } from "../evaluate/runner-hint.js";
import { rescore } from "../evaluate/score-evaluation.js";
import { gitOrNull } from "../git/cli.js";
import { scratchDir } from "../git/refs.js";
import { crashPoint } from "../util/crash-point.js";
import { UserError } from "../util/errors.js";
import { profileMark } from "../util/profile.js";
import { type IndexSync, writeCandidateTree } from "./candidate-tree.js";
import type { CallContext } from "./context.js";
import { assertNoSecretsIn } from "./secret-scan.js";
import type { Session } from "./session.js";
import {
  assertTestsUntouched,
  failingTestFiles,
  landedOps,
  onlyTestsSince,
  type TestFileChange,
  testConfigChanges,
  testEditsSince,
  testFileChanges,
  withLoadsPresent,
} from "./test-files.js";
import { clearWrites, recordWrites } from "./write-journal.js";

/** A candidate written into a worktree, with what it touched and how to take it back. */
export interface AppliedCandidate {
  worktree: string;
  plan: Awaited<ReturnType<typeof planCandidate>>;
  paths: string[];
  testFiles: ReturnType<typeof testFileChanges>;
  modeSuggestion: Awaited<ReturnType<typeof suggestMode>>;
  /** Restores the worktree's files and index as they were before the write. */
  undo(): Promise<void>;
}

/**
 * Plans the candidate against `worktree`, checks it (protected tests, not empty) and writes it all or
 * nothing. Nothing is written when a check fails. `journal` null: a pool worktree, which is reset and
 * cleaned before each use instead (worktree-pool.ts).
 */
export async function applyCandidate(
  s: Session,
  worktree: string,
  candidate: Candidate,
  journal: string | null = s.writeJournal,
  /** Runs once the candidate is planned and checked, before anything is written (preflight.ts). */
  beforeWrite?: (testFiles: TestFileChange[]) => Promise<void>,
): Promise<AppliedCandidate> {
  const reader = worktreeReader(worktree);
  const plan = await planCandidate(candidate, reader);
  profileMark("plan");
  // Matched where the kernel lands too: a link inside the repository (`t -> test`) must not hide a test.
  const landed = await landedOps(worktree, plan.ops);
  assertTestsUntouched(landed, s.config.protectTests ?? []);
  const testFiles = testFileChanges(landed, s.config.protectTests);
  profileMark("landed");
  // Never reach `git add -A --` with no path: an empty pathspec would stage everything, build
  // artifacts included.
  if (plan.ops.length === 0) {
    throw new UserError("The candidate changes nothing.", "Send a candidate that changes at least one file (read the current content with trm_read_files).");
  }
  // Compared with the files as they are before the write: what the same change would cost in another mode.
  const modeSuggestion = await suggestMode(candidate, plan, reader);
  await beforeWrite?.([...testFiles, ...testConfigChanges(landed)]);
  profileMark("mode");
  if (worktree === s.worktree) s.worktreeAt = null;
  // Where each op lands too (`dot/x` through `dot -> .` creates `x`): git lists nothing beyond a link,
  // so a crash's heal (write-journal.ts) would leave a new file written through one.
  if (journal) await recordWrites(journal, [...new Set([...plan.ops.map((o) => o.path), ...landed.map((o) => o.path)])]);
  profileMark("journal-w");
  // New content is written beside the worktree and renamed into it (candidate/write.ts writeReplacing).
  const scratch = scratchDir(s.config.commonDir);
  mkdirSync(scratch, { recursive: true });
  const applied = await applyPlan(worktree, plan.ops, scratch).catch(async (err: unknown) => {
    if (journal) await clearWrites(journal);
    throw err;
  });
  const undo = async () => {
    await applied.rollback();
    await gitOrNull(worktree, ["reset", "-q"]);
    if (journal) await clearWrites(journal);
  };
  return { worktree, plan, paths: applied.paths, testFiles, modeSuggestion, undo };
}

/** The applied candidate's tree, its evaluation (run, or taken from the cache) and the logs of a run. */
export interface JudgedTree {
  tree: string;
  ev: Evaluation;
  logs: Record<string, string>;
  cachedFrom?: string;
  /** The tree was written in-process: the worktree's index still has the tip's entries. */
  indexStale?: boolean;
  /** Then: what the index needs after the reply (candidate-tree.ts syncIndexChecked). */
  indexSync?: IndexSync;
  /** The worktree the commands ran in for this tree, if they ran (not for a cached evaluation). */
  ranIn?: string;
}

/**
 * Records the applied files as a tree, then evaluates it (or rescores a cached evaluation of the same
 * tree) and judges it against the tests of earlier steps. Throws on a tree equal to the tip's; the
 * caller undoes the write on any failure.
 */
export async function evaluateApplied(
  s: Session,
  applied: AppliedCandidate,
  step: number,
  ctx: CallContext,
  inflight?: Map<string, Promise<EvaluationRun>>,
  wholeSuite = false,
): Promise<JudgedTree> {
  await assertNoSecretsIn(applied.worktree, applied.paths);
  assertNoNestedRepository(applied.worktree, applied.paths);
  profileMark("secret-scan");
  const { tree, indexStale, indexSync, written } = await writeCandidateTree(s, applied.worktree, s.tipTree, applied.paths);
  profileMark("tree");
  try {
    const ev = await evaluateTree(s, applied, step, ctx, tree, inflight, wholeSuite, written);
    // The tree's files, written while the commands ran, are on disk before a commit may refer to them.
    await written;
    profileMark("judge");
    return { tree, ...ev, ...(indexStale ? { indexStale, indexSync } : {}) };
  } catch (err) {
    await written.catch(() => undefined);
    throw err;
  }
}

/**
 * A candidate's file inside a folder that is a repository of its own (a command's `git init`, with or
 * without a commit): git records such a folder as a link to its commit, never the files in it, so the
 * candidate would silently change nothing (or fail in `git add`). Said plainly, with the fix.
 */
function assertNoNestedRepository(worktree: string, paths: string[]): void {
  for (const rel of paths) {
    const parts = rel.split("/");
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join("/");
      if (!existsSync(path.join(worktree, folder, ".git"))) continue;
      throw new UserError(
        `${folder} in the worktree is a git repository of its own (a command or a candidate ran \`git init\` there), so git records neither the files in it nor, without a commit, the folder: ${rel} cannot be part of a step.`,
        `Delete ${folder}/.git (fix the command that creates it, or send a candidate that deletes the folder), or write the file elsewhere. Nothing was changed.`,
      );
    }
  }
}

async function evaluateTree(
  s: Session,
  applied: AppliedCandidate,
  step: number,
  ctx: CallContext,
  tree: string,
  inflight: Map<string, Promise<EvaluationRun>> | undefined,
  wholeSuite: boolean,
  written: Promise<void>,
) {
  await crashPoint("step-tree-written");
  if (tree === s.tipTree) {
    throw new UserError(
      "The candidate changes nothing: every file already has that content.",
      "Send a candidate that changes at least one file (read the current content with trm_read_files).",
    );
  }
  const prevBest = s.previousBestPerf();
  // A partial run is judged against the history it ran in (its last full run): never reused elsewhere.
  const hit = s.cache.get(tree)?.evaluation.partial ? undefined : s.cache.get(tree);
  let ev: Evaluation;
  let logs: Record<string, string> = {};
  let cachedFrom: string | undefined;
  let ranIn: string | undefined;
  if (hit) {
    cachedFrom = hit.commit;
    ev = rescore(hit.evaluation, s.config.weights, s.config.checks, s.config.perfDirection, prevBest);
  } else if (inflight?.has(tree)) {
    // The same tree in the same batch: one run serves both (its logs are kept with the first).
    ev = (await inflight.get(tree)!).evaluation;
  } else {
    const run = s.evaluateHere(step, ctx, prevBest, applied.paths, applied.worktree, wholeSuite, tree);
    inflight?.set(tree, run);
    ranIn = applied.worktree;
    ({ evaluation: ev, logs } = await run);
  }
  // The tree's objects are written in the background (a cached evaluation runs no command meanwhile).
  await written;
  ev = await judgeTree(s, step, tree, ev, applied.testFiles, applied.worktree);
  profileMark("judge");
  return { ev, logs, ...(cachedFrom ? { cachedFrom } : {}), ...(ranIn ? { ranIn } : {}) };
}

/**
 * A tree's evaluation judged against the session's earlier steps: tests that ran at an earlier step of this
 * history and are now skipped or gone count as failing, test edits since the baseline are held (judge.ts).
 */
export async function judgeTree(s: Session, step: number, tree: string, ev: Evaluation, testFiles: TestFileChange[], worktree: string): Promise<Evaluation> {
  const runners = s.config.commands.test ? projectRunners(s.config.commands.test, worktree) : [];
  const declared = failingTestFiles(referencePoint(s.entries)?.evaluation.tests, runners);
  const protect = s.config.protectTests ?? [];
  const edits = await testEditsSince(s.config.commonDir, s.baseline.tree, tree, protect, runners, declared);
  // Against the last step before that was not held for its test edits too, when it is not the baseline: a failed
  // code attempt left in place (h29), then the tests alone changed, in one step or more (h33).
  const anchor = lastUnheldPoint(s.entries);
  const sinceLast =
    edits.onlyTests || !anchor || anchor.tree === s.baseline.tree
      ? undefined
      : await onlyTestsSince(s.config.commonDir, anchor.tree, tree, protect, runners, declared);
  const earlier = await withLoadsPresent(s.config.commonDir, tree, s.entries);
  return judgeEvaluation(ev, step, earlier, s.config.weights, s.config.checks, {
    changedTests: testFiles.map((f) => f.path),
    ...edits,
    ...(sinceLast ? { onlyTestsSinceLast: sinceLast, sinceLastStep: anchor!.step } : {}),
  });
}
