import type { Candidate } from "../candidate/schema.js";
import type { EvaluationRun } from "../evaluate/evaluate.js";
import { correlateDiagnostics, correlateFailures, renderFeedback } from "../evaluate/feedback.js";
import { foldProgress, IMPROVEMENT_EPSILON } from "../evaluate/score.js";
import { EvaluationCancelled } from "../evaluate/step-command.js";
import { prepareNoteOf, type RefUpdate, resolveRefFast, updateRefsFast, writeCommitFast } from "../git/session-git.js";
import { crashPoint } from "../util/crash-point.js";
import { UserError } from "../util/errors.js";
import { LIMITS } from "../util/limits.js";
import { profileMark } from "../util/profile.js";
import { type AppliedCandidate, applyCandidate, evaluateApplied, type JudgedTree } from "./apply-and-judge.js";
import { syncIndex, syncIndexChecked } from "./candidate-tree.js";
import type { CallContext } from "./context.js";
import { ensureReference, needsReference, referenceBeforeSuccess } from "./preflight.js";
import { bestOffHistoryNote, type StepNote, stepMessage } from "./record.js";
import type { Session } from "./session.js";
import { describeTestChanges } from "./test-files.js";
import { weighTestStrength } from "./test-strength.js";
import { clearWrites } from "./write-journal.js";

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
    let applied = await applyCandidate(s, s.worktree, candidate, s.writeJournal, async (tests) => {
      lazy = await ensureReference(s, tests, ctx);
    });
    const step = s.currentStep + 1;
    profileMark("apply");
    // The candidate's run, kept to be judged again once the baseline's has run (below).
    const inflight = new Map<string, Promise<EvaluationRun>>();
    const evaluate = async () => {
      try {
        return await evaluateApplied(s, applied, step, ctx, inflight);
      } catch (err) {
        await applied.undo();
        if (err instanceof EvaluationCancelled)
          throw new UserError("Cancelled: the evaluation was stopped and the candidate rolled back; no step was recorded.");
        throw err;
      }
    };
    let judged: JudgedTree = await evaluate();
    // A first step whose tests all pass, with no reference: the baseline's commands run in its place (the
    // candidate taken out and written again), and the same run is judged against them (preflight.ts).
    if (judged.ev.testsPass && judged.ev.tests && needsReference(s)) {
      await applied.undo();
      await s.verifyWorktree(s.tip);
      lazy = await referenceBeforeSuccess(s, ctx);
      applied = await applyCandidate(s, s.worktree, candidate, s.writeJournal);
      // The run is the first one's (inflight): so are its logs and where it ran.
      const { logs, ranIn } = judged;
      judged = { ...(await evaluate()), logs, ...(ranIn ? { ranIn } : {}) };
    }
    // testStrength: a success that weak tests allowed is told which lines no test checks, and with a
    // weight scores lower (test-strength.ts).
    let strengthNotes: string[] = [];
    if (s.config.testStrength) {
      const w = await weighTestStrength(s, step, judged.tree, judged.ev, ctx).catch(async (err: unknown) => {
        await applied.undo();
        throw err;
      });
      judged = { ...judged, ev: w.ev };
      strengthNotes = w.notes;
    }
    const res = await recordStep(s, { step, candidate, rationale, zNotes, applied, judged, ...(lazy ? { notes: [lazy] } : {}) });
    if (strengthNotes.length > 0) res.feedback = `${res.feedback}\n${strengthNotes.join("\n")}`;
    return res;
  });
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
        // What the commands left untracked goes once the step's own files are in the index.
        if (commandsRanHere) await s.removeLeftovers();
        s.worktreeAt = commit;
        return;
      }
      await syncIndex(s.worktree, stalePaths);
    }
    await s.verifyWorktree(commit, commandsRanHere);
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
