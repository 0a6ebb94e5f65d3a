/**
 * One step: the candidate is planned against the worktree, applied all-or-nothing, evaluated (or taken
 * from the cache by tree id), judged against the tests of earlier steps, and recorded as a commit with
 * its note; the branch, HEAD and (when it beats the session's best) the best tag move in one transaction.
 * Any failure before the refs move rolls the worktree back and records nothing.
 */
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { suggestMode } from "../candidate/mode-suggest.js";
import { planCandidate } from "../candidate/plan.js";
import type { Candidate } from "../candidate/schema.js";
import { applyPlan, worktreeReader } from "../candidate/write.js";
import { type Evaluation, EvaluationCancelled, type EvaluationRun, rescore } from "../evaluate/evaluate.js";
import { correlateDiagnostics, correlateFailures, renderFeedback } from "../evaluate/feedback.js";
import { judgeEvaluation } from "../evaluate/judge.js";
import { foldProgress, IMPROVEMENT_EPSILON } from "../evaluate/score.js";
import { gitOrNull } from "../git/cli.js";
import { scratchDir } from "../git/refs.js";
import { prepareNoteOf, type RefUpdate, resolveRefFast, updateRefsFast, writeCommitFast } from "../git/session-git.js";
import { crashPoint } from "../util/crash-point.js";
import { UserError } from "../util/errors.js";
import { LIMITS } from "../util/limits.js";
import { profileMark } from "../util/profile.js";
import { type IndexSync, syncIndex, syncIndexChecked, writeCandidateTree } from "./candidate-tree.js";
import type { CallContext } from "./context.js";
import { ensureReference } from "./preflight.js";
import { bestOffHistoryNote, type StepNote, stepMessage } from "./record.js";
import { assertNoSecretsIn } from "./secret-scan.js";
import type { Session } from "./session.js";
import { assertTestsUntouched, describeTestChanges, landedOps, type TestFileChange, testConfigChanges, testFileChanges } from "./test-files.js";
import { testStrengthNotes } from "./test-strength.js";
import { clearWrites, recordWrites } from "./write-journal.js";

/** One candidate to submit: the change, why (the commit message), and notes carried to later steps. */
export interface SubmitOptions {
  candidate: Candidate;
  rationale: string;
  zNotes?: string;
}

export async function submitCandidate(s: Session, { candidate, rationale, zNotes }: SubmitOptions, ctx: CallContext) {
  if (rationale.length > LIMITS.maxRationaleChars) {
    throw new UserError(`rationale is ${rationale.length} characters; the limit is ${LIMITS.maxRationaleChars}.`, "Shorten it; put long reasoning in zNotes.");
  }
  return s.mutex.run(async () => {
    profileMark("lock");
    await s.sync();
    profileMark("sync");
    await s.assertBranchFree();
    profileMark("branch-free");
    let lazy: string | undefined;
    const applied = await applyCandidate(s, s.worktree, candidate, s.writeJournal, async (tests) => {
      lazy = await ensureReference(s, tests, ctx);
    });
    const step = s.currentStep + 1;
    profileMark("apply");
    let judged: JudgedTree;
    try {
      judged = await evaluateApplied(s, applied, step, ctx);
    } catch (err) {
      await applied.undo();
      if (err instanceof EvaluationCancelled) throw new UserError("Cancelled: the evaluation was stopped and the candidate rolled back; no step was recorded.");
      throw err;
    }
    const res = await recordStep(s, { step, candidate, rationale, zNotes, applied, judged, ...(lazy ? { notes: [lazy] } : {}) });
    // testStrength: a success that weak tests allowed is told which lines no test checks (test-strength.ts).
    if (s.config.testStrength && res.ev.testsPass && res.halt.shouldHalt && res.halt.reasons.some((r) => r.startsWith("success"))) {
      res.feedback = `${res.feedback}\n${(await testStrengthNotes(s, res.commit, ctx)).join("\n")}`;
    }
    return res;
  });
}

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
    const ev = await evaluateTree(s, applied, step, ctx, tree, inflight, wholeSuite);
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
    const run = s.evaluateHere(step, ctx, prevBest, applied.paths, applied.worktree, wholeSuite);
    inflight?.set(tree, run);
    ranIn = applied.worktree;
    ({ evaluation: ev, logs } = await run);
  }
  // Tests that ran at an earlier step of this history and are now skipped or gone count as failing.
  ev = judgeEvaluation(ev, step, s.entries, s.config.weights, s.config.checks, { changedTests: applied.testFiles.map((f) => f.path) });
  profileMark("judge");
  return { ev, logs, ...(cachedFrom ? { cachedFrom } : {}), ...(ranIn ? { ranIn } : {}) };
}

/**
 * Records an evaluated candidate as the next step: its commit and note, then the branch, HEAD and
 * (when it beats the session's best) the best tag in one transaction; then the session's memory and
 * the step's answer. A failure before the refs move undoes the write and records nothing.
 */
export async function recordStep(
  s: Session,
  r: {
    step: number;
    candidate: Candidate;
    rationale: string;
    zNotes: string | undefined;
    applied: AppliedCandidate;
    judged: JudgedTree;
    /** More refs to move in the same transaction (a batch's alternatives), given the step's commit. */
    extraRefs?: (commit: string) => RefUpdate[];
    /** Statements about the step for its feedback (e.g. that the baseline's tests ran first). */
    notes?: string[];
  },
) {
  const { step, candidate, rationale, zNotes, applied } = r;
  const { tree, ev, logs, cachedFrom } = r.judged;
  const { plan, testFiles, modeSuggestion } = applied;
  const earlier = s.entries;
  const { note, progress } = stepNoteOf(s, step, { candidate, rationale, zNotes, applied, judged: r.judged });
  // A step equal to a best left off the current history (by undo, restore or reset) takes the tag: the
  // best stays as high, and `apply --best` brings in the work the session went on with (the field trial
  // undid a test-deleting 1.000 step, submitted the real fix at 1.000, and --best named the deletion).
  // A partial run (failing-first.ts) never takes it: its score keeps untested tests at an earlier status.
  const newBest = !ev.partial && (!s.best || ev.score > s.best.score + IMPROVEMENT_EPSILON || (!s.best.onCurrentHistory && ev.score >= s.best.score));
  let commit: string;
  try {
    profileMark("note-json");
    commit = await writeCommitFast(s.config.commonDir, tree, s.tip, stepMessage(s.id, note));
    profileMark("commit");
    await crashPoint("step-commit-written");
    // The record moves with the branch, in one transaction: a crash before it leaves only unreachable
    // objects, and a step is never visible without its record. A notes ref moved meanwhile by another
    // writer (e.g. `git notes` by hand) is re-read rather than overwritten.
    for (let attempt = 0; ; attempt++) {
      // The full logs go in the same transaction: written in-process, they cost less than a deferred write.
      // The two notes refs are independent: their objects are written side by side. Logs the record
      // already holds whole (every command's output under the record's cap) are not written twice:
      // trm_read_log reads them from the record (logs.ts).
      const [record, logNote] = await Promise.all([
        prepareNoteOf(s.config.commonDir, s.refs.notes, commit, note, `trm: step ${step} record`),
        Object.entries(logs).some(([k, text]) => ev.commands[k]?.output !== text)
          ? prepareNoteOf(s.config.commonDir, s.refs.logs, commit, logs, `trm: step ${step} logs`)
          : null,
      ]);
      profileMark("notes");
      await crashPoint("step-note-written");
      try {
        await updateRefsFast(
          s.worktree,
          [
            { ref: s.refs.branch, next: commit, expected: s.tip },
            { ref: "HEAD", next: commit },
            // Against the session's best, not the current history's: after an undo or a reset a lower score is
            // new to this history but must not take the tag from a better step kept elsewhere.
            ...(newBest ? [{ ref: s.refs.bestTag, next: commit }] : []),
            record,
            ...(logNote ? [logNote] : []),
            ...(r.extraRefs?.(commit) ?? []),
          ],
          "trm: step",
        );
        profileMark("update-ref");
        break;
      } catch (err) {
        const moved = async (n: { ref: string; expected: string | null } | null) =>
          n !== null && (await resolveRefFast(s.config.commonDir, n.ref)) !== n.expected;
        if (attempt >= 3 || !((await moved(record)) || (await moved(logNote)))) throw err;
      }
    }
  } catch (err) {
    await applied.undo();
    throw err;
  }
  await clearWrites(s.writeJournal);
  profileMark("journal");
  // The index follows after the reply, the next operation waiting for it (s.sync settles first): the
  // step's files are already in place, only git's own view of them lags. Staging the paths and checking
  // what the commands changed in tracked files is one update-index (was `git add` before the reply and
  // `git status` after it: 10 + 17 ms at 5,000 files).
  // No command ran in the session worktree (a cached evaluation, a best-of-N winner evaluated in its pool
  // worktree): it is the synced tip plus the step's own files, so they alone are staged, nothing refreshed.
  const stalePaths = r.judged.indexStale && applied.worktree === s.worktree ? applied.paths : null;
  const indexSync = r.judged.indexSync;
  const commandsRanHere = r.judged.ranIn === s.worktree;
  const syncAfterStep = async () => {
    if (stalePaths) {
      s.worktreeAt = null;
      if (await syncIndexChecked(s.worktree, indexSync, commandsRanHere)) {
        s.worktreeAt = commit;
        return;
      }
      await syncIndex(s.worktree, stalePaths);
    }
    await s.verifyWorktree(commit);
  };
  s.afterReply(async () => {
    await crashPoint("step-index-stale");
    await syncAfterStep();
  });

  s.entries = [...earlier, { step, commit, tree, evaluation: ev, note }];
  s.tip = commit;
  s.tipTree = tree;
  s.cache.set(tree, { commit, evaluation: ev });
  if (newBest) s.best = { commit, step, score: ev.score, onCurrentHistory: true };

  const halt = s.halt();
  const diagnostics = correlateDiagnostics(ev, step, earlier);
  const failures = correlateFailures(ev, step, earlier);
  const testNote = describeTestChanges(testFiles);
  const previousFailures = earlier[earlier.length - 1]?.evaluation.tests?.failures ?? [];
  const notes = [...(r.notes ?? []), ...(testNote ? [testNote] : [])];
  // The session's best, which an undo, restore or reset leaves in place, not the current history's.
  const best =
    s.best && s.best.commit !== commit && s.best.score > progress.bestScore
      ? { score: s.best.score, step: s.best.step, note: bestOffHistoryNote(s.id, s.best) }
      : undefined;
  const feedback = renderFeedback({
    step,
    ev,
    progress,
    halt,
    diagnostics,
    failures,
    cachedFrom,
    previousFailures,
    sessionId: s.id,
    ...(notes.length ? { notes } : {}),
    ...(best ? { best } : {}),
  });
  profileMark("feedback");
  return { step, commit, tree, ev, progress, halt, diagnostics, failures, feedback, plan, cachedFrom, note, modeSuggestion };
}

/**
 * The record of an evaluated candidate as the next step on the current history (its progress figures
 * folded over the earlier steps): the step's note, and that of a best-of-N alternative alike.
 */
export function stepNoteOf(
  s: Session,
  step: number,
  c: { candidate: Candidate; rationale: string; zNotes: string | undefined; applied: Pick<AppliedCandidate, "paths" | "testFiles">; judged: JudgedTree },
): { note: StepNote; progress: NonNullable<ReturnType<typeof foldProgress>> } {
  const { ev, cachedFrom } = c.judged;
  const progress = foldProgress(
    [...s.entries, { step, evaluation: ev }].map((e) => ({
      step: e.step,
      score: e.evaluation.score,
      testsPass: e.evaluation.testsPass,
      partial: !!e.evaluation.partial,
    })),
    s.config.emaAlpha,
  )!;
  const note: StepNote = {
    v: 1,
    kind: "step",
    step,
    at: new Date().toISOString(),
    rationale: c.rationale,
    ...(c.zNotes ? { zNotes: c.zNotes } : {}),
    candidate: { mode: c.candidate.mode, files: c.applied.paths },
    ...(c.applied.testFiles.length ? { testFiles: c.applied.testFiles } : {}),
    evaluation: ev,
    ...(cachedFrom ? { cachedFrom } : {}),
    score: ev.score,
    ema: progress.ema,
    // The session's best (the TRM-Best trailer): an undo, restore or reset does not lower it.
    bestScore: Math.max(progress.bestScore, s.best?.score ?? progress.bestScore),
    improved: progress.improved,
    noImproveStreak: progress.noImproveStreak,
  };
  return { note, progress };
}
