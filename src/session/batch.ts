/**
 * Best of N: several candidates for the same step, planned against the tip, then applied and evaluated
 * side by side, each in a pool worktree of its own (worktree-pool.ts), at most `maxParallel` at once.
 * The best by score (ties: the earlier; a partial run's estimate is checked by a full run before it
 * may beat a full run, batch-choice.ts) is recorded as the step exactly as a single submit records it;
 * every evaluated candidate also gets `refs/trm/<id>/alternatives/<step>/<k>` (k = base + position, so a
 * later batch at the same step number after an undo never collides), the others as commits of their own
 * on the same parent with their evaluation note, written before the refs move in one transaction.
 */
import os from "node:os";
import { planCandidate } from "../candidate/plan.js";
import { type Candidate, candidateSchema } from "../candidate/schema.js";
import { worktreeReader } from "../candidate/write.js";
import { briefLine } from "../evaluate/brief.js";
import type { EvaluationRun } from "../evaluate/evaluate.js";
import { EvaluationCancelled } from "../evaluate/step-command.js";
import { listRefs, writeCommitFast, writeNote } from "../git/session-git.js";
import { UserError } from "../util/errors.js";
import { LIMITS } from "../util/limits.js";
import { alternativeRef } from "./alternatives.js";
import { type AppliedCandidate, applyCandidate, evaluateApplied, type JudgedTree, judgeTree } from "./apply-and-judge.js";
import { chooseWinner } from "./batch-choice.js";
import { type IndexSync, writeCandidateTree } from "./candidate-tree.js";
import type { CallContext } from "./context.js";
import { ensureReference, needsReference, referenceBeforeSuccess } from "./preflight.js";
import { stepMessage } from "./record.js";
import type { Session } from "./session.js";
import { recordStep, stepNoteOf } from "./submit.js";
import { landedOps, type TestFileChange, testConfigChanges, testFileChanges } from "./test-files.js";
import { weighTestStrength } from "./test-strength.js";
import { poolFor, type WorktreePool } from "./worktree-pool.js";

export const MIN_BATCH = 2;
export const MAX_BATCH = 8;

export interface BatchItem {
  candidate?: unknown;
  rationale?: string;
}

/** What the answer says about each candidate, in the order they were sent. */
export interface CandidateOutcome {
  /** The point to read, diff or restore it with (`<step>.<k>`); null when it was not evaluated. */
  at: string | null;
  score: number | null;
  verdict: "chosen" | "kept" | "rejected";
  feedback: string;
}

interface Slot {
  index: number;
  rationale: string;
  candidate?: Candidate;
  error?: string;
  judged?: JudgedTree;
  applied?: Pick<AppliedCandidate, "paths" | "testFiles">;
  k?: number;
  commit?: string;
}

function errorText(err: UserError): string {
  return err.hint ? `${err.message} ${err.hint}` : err.message;
}

/** A batch to submit: 2 to 8 candidates, the notes carried to later steps, and how many run at once. */
export interface BatchOptions {
  items: BatchItem[];
  zNotes?: string;
  maxParallel?: number;
}

export async function submitBatch(s: Session, { items, zNotes, maxParallel }: BatchOptions, ctx: CallContext) {
  if (items.length < MIN_BATCH || items.length > MAX_BATCH) {
    throw new UserError(
      `candidates has ${items.length} entries; a batch takes ${MIN_BATCH} to ${MAX_BATCH}.`,
      "Send one candidate as `candidate`, or 2 to 8 as `candidates`.",
    );
  }
  const slots: Slot[] = items.map((it, i) => ({ index: i + 1, rationale: it.rationale ?? "" }));
  for (const sl of slots) {
    if (sl.rationale.length > LIMITS.maxRationaleChars) {
      throw new UserError(
        `candidates[${sl.index - 1}].rationale is ${sl.rationale.length} characters; the limit is ${LIMITS.maxRationaleChars}.`,
        "Shorten it; put long reasoning in zNotes.",
      );
    }
  }
  const parallel = Math.max(1, Math.min(maxParallel ?? os.availableParallelism(), items.length));
  return s.mutex.run(async () => {
    await s.sync();
    await s.assertBranchFree();
    const step = s.currentStep + 1;

    // Planned against the tip first: one that does not apply is reported, and takes no worktree.
    const reader = worktreeReader(s.worktree);
    const changedTests: TestFileChange[] = [];
    for (const sl of slots) {
      const parsed = candidateSchema.safeParse(items[sl.index - 1]!.candidate);
      if (!parsed.success) {
        sl.error = `Candidate is malformed: ${parsed.error.issues.map((i) => `${i.path.join(".") || "candidate"}: ${i.message}`).join("; ")}`;
        continue;
      }
      try {
        const plan = await planCandidate(parsed.data, reader);
        sl.candidate = parsed.data;
        // Where the kernel lands, as a single submit matches (a link `chk -> test` must not hide a test).
        const landed = await landedOps(s.worktree, plan.ops);
        changedTests.push(...testFileChanges(landed, s.config.protectTests), ...testConfigChanges(landed));
      } catch (err) {
        if (!(err instanceof UserError)) throw err;
        sl.error = errorText(err);
      }
    }
    // A candidate that changes test files needs the baseline's tests to be judged against (preflight.ts).
    const lazy = await ensureReference(s, changedTests, ctx);
    const queue = slots.filter((sl) => sl.candidate);
    const pool = poolFor(s.config);
    const inflight = new Map<string, Promise<EvaluationRun>>();
    let cancelled = false;
    let fatal: { err: unknown } | undefined;
    const worker = async (k: number) => {
      for (let sl = queue.shift(); sl; sl = queue.shift()) {
        if (cancelled || fatal || ctx.signal?.aborted) return;
        let wt: string;
        try {
          wt = await takeSlot(s, pool, k, ctx);
        } catch (err) {
          fatal = { err };
          return;
        }
        // Each candidate's progress says which one it is: the runs of a batch report side by side.
        const own: CallContext = { ...ctx, ...(ctx.progress ? { progress: (m: string) => ctx.progress!(`#${sl!.index}: ${m}`) } : {}) };
        let applied: AppliedCandidate | undefined;
        try {
          // An evaluated candidate is left in place: its files are staged, so the next take's reset
          // removes them. One that failed may have written files git would not stage (ignored ones).
          applied = await applyCandidate(s, wt, sl.candidate!, null);
          sl.applied = { paths: applied.paths, testFiles: applied.testFiles };
          sl.judged = await evaluateApplied(s, applied, step, own, inflight);
        } catch (err) {
          if (applied) await applied.undo().catch(() => undefined);
          // The candidate's own fault (does not apply, changes nothing, a secret): reported, the others go on.
          if (err instanceof EvaluationCancelled) cancelled = true;
          else if (err instanceof UserError) sl.error = errorText(err);
          else fatal = { err };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, Math.max(queue.length, 1)) }, (_, i) => worker(i + 1)));
    if (cancelled || ctx.signal?.aborted) throw new UserError("Cancelled: every candidate's evaluation was stopped; no step was recorded.");
    if (fatal) throw fatal.err;

    const evaluated = slots.filter((sl) => sl.judged);
    if (evaluated.length === 0) {
      throw new UserError(
        `No candidate could be evaluated: ${slots.map((sl) => `#${sl.index}: ${sl.error ?? "?"}`).join(" | ")}`,
        "Fix them (trm_validate_candidate checks one without running anything) and resend; nothing was changed.",
      );
    }
    // A first step with a candidate whose tests all pass and no reference: the baseline's commands run in the
    // session worktree (still at the baseline), and every candidate's run is judged again against them (preflight.ts).
    let reference: string | undefined;
    if (evaluated.some((sl) => sl.judged!.ev.testsPass && sl.judged!.ev.tests) && needsReference(s)) {
      reference = await referenceBeforeSuccess(s, ctx);
      for (const sl of evaluated) {
        const run = inflight.get(sl.judged!.tree);
        if (run) sl.judged = { ...sl.judged!, ev: await judgeTree(s, step, sl.judged!.tree, (await run).evaluation, sl.applied!.testFiles, s.worktree) };
      }
    }
    // By score, a tie to the earlier; a partial estimate never beats a full run's exact score on trust:
    // that candidate's whole suite runs first, and the choice is made again (batch-choice.ts).
    // testStrength weighs the one that would win, as a single submit of it would be (test-strength.ts); its
    // score only goes down, so the choice is made again until the best is one already weighed.
    let winner: Slot | undefined;
    const weighed = new Map<Slot, string[]>();
    while (!winner) {
      const choice = chooseWinner(evaluated.map((sl) => ({ score: sl.judged!.ev.score, partial: !!sl.judged!.ev.partial })));
      if ("runInFull" in choice) {
        weighed.delete(evaluated[choice.runInFull]!);
        await runInFull(s, pool, evaluated[choice.runInFull]!, step, ctx);
        continue;
      }
      const best = evaluated[choice.winner]!;
      if (!s.config.testStrength || weighed.has(best)) winner = best;
      else {
        const w = await weighTestStrength(s, step, best.judged!.tree, best.judged!.ev, ctx);
        best.judged = { ...best.judged!, ev: w.ev };
        weighed.set(best, w.notes);
      }
    }
    const taken = await listRefs(s.config.commonDir, `${s.refs.keepPrefix}alternatives/${step}/`);
    const base = Math.max(0, ...taken.map((t) => Number(t.ref.slice(t.ref.lastIndexOf("/") + 1))).filter(Number.isSafeInteger));
    for (const sl of evaluated) sl.k = base + sl.index;

    // The chosen candidate is written again in the session worktree: the same plan on the same tip
    // gives the same tree, which is what was evaluated.
    // The others' commits and records are written meanwhile (objects and notes, no worktree).
    const others = (async () => {
      for (const sl of evaluated) if (sl !== winner) sl.commit = await writeAlternative(s, step, sl, zNotes);
    })();
    const main = (async () => {
      const applied = await applyCandidate(s, s.worktree, winner.candidate!);
      let indexStale: boolean;
      let indexSync: IndexSync | undefined;
      try {
        let tree: string;
        let written: Promise<void>;
        ({ tree, indexStale, indexSync, written } = await writeCandidateTree(s, s.worktree, s.tipTree, applied.paths));
        await written;
        if (tree !== winner.judged!.tree) {
          throw new Error(`best of N: candidate #${winner.index} gave tree ${tree} in the session worktree but ${winner.judged!.tree} in its pool worktree`);
        }
      } catch (err) {
        await applied.undo();
        throw err;
      }
      return { applied, indexStale, indexSync };
    })();
    const [o, m] = await Promise.allSettled([others, main]);
    if (o.status === "rejected" || m.status === "rejected") {
      if (m.status === "fulfilled") await m.value.applied.undo();
      throw o.status === "rejected" ? o.reason : (m as PromiseRejectedResult).reason;
    }
    const mainApplied = m.value.applied;
    const r = await recordStep(s, {
      step,
      candidate: winner.candidate!,
      rationale: winner.rationale,
      zNotes,
      applied: mainApplied,
      // Whether the session worktree's index needs the step's paths is its own write's answer, not the pool's.
      judged: { ...winner.judged!, indexStale: m.value.indexStale, indexSync: m.value.indexSync },
      extraRefs: (commit) => evaluated.map((sl) => ({ ref: alternativeRef(s, step, sl.k!), next: sl === winner ? commit : sl.commit!, expected: null })),
      ...(lazy || reference ? { notes: [(lazy ?? reference)!] } : {}),
    });
    for (const sl of evaluated) {
      if (sl === winner) continue;
      const { tree, ev, logs } = sl.judged!;
      if (!s.cache.has(tree)) s.cache.set(tree, { commit: sl.commit!, evaluation: ev });
      if (Object.keys(logs).length > 0)
        s.afterReply(() => writeNote(s.worktree, s.refs.logs, sl.commit!, logs, { commonDir: s.config.commonDir, message: `trm: step ${step}.${sl.k} logs` }));
    }
    const candidates: CandidateOutcome[] = slots.map((sl) =>
      sl.judged
        ? { at: `${step}.${sl.k}`, score: sl.judged.ev.score, verdict: sl === winner ? "chosen" : "kept", feedback: briefLine(sl.judged.ev) }
        : { at: null, score: null, verdict: "rejected", feedback: sl.error ?? "not evaluated" },
    );
    const strengthNotes = weighed.get(winner) ?? [];
    if (strengthNotes.length > 0) r.feedback = `${r.feedback}\n${strengthNotes.join("\n")}`;
    return { ...r, candidates, chosen: winner.index };
  });
}

/** A partial candidate's whole suite, run in a pool worktree: its evaluation becomes that full run's. */
async function runInFull(s: Session, pool: WorktreePool, sl: Slot, step: number, ctx: CallContext): Promise<void> {
  const estimate = sl.judged!.ev.score;
  const wt = await takeSlot(s, pool, 1, ctx);
  const own: CallContext = { ...ctx, ...(ctx.progress ? { progress: (m: string) => ctx.progress!(`#${sl.index} (whole suite): ${m}`) } : {}) };
  const applied = await applyCandidate(s, wt, sl.candidate!, null);
  try {
    // No inflight map: the batch's run of this tree was the partial one.
    const judged = await evaluateApplied(s, applied, step, own, undefined, true);
    const notice = `Best of N: this candidate's selected tests still failed, but its partial score (${estimate.toFixed(2)}, an estimate) was above another candidate's full run, so its whole suite ran to compare them on exact scores.`;
    sl.judged = { ...judged, ev: { ...judged.ev, notices: [notice, ...judged.ev.notices] } };
  } catch (err) {
    await applied.undo().catch(() => undefined);
    if (err instanceof EvaluationCancelled) throw new UserError("Cancelled: every candidate's evaluation was stopped; no step was recorded.");
    throw err;
  }
}

/** An evaluated candidate that was not chosen: a commit on the tip with its record, not yet referenced. */
async function writeAlternative(s: Session, step: number, sl: Slot, zNotes: string | undefined): Promise<string> {
  const { note } = stepNoteOf(s, step, { candidate: sl.candidate!, rationale: sl.rationale, zNotes, applied: sl.applied!, judged: sl.judged! });
  const tree = sl.judged!.tree;
  const message = stepMessage(s.id, note).replace(/^trm step (\d+):/, `trm step $1 alternative ${sl.k}:`);
  const commit = await writeCommitFast(s.config.commonDir, tree, s.tip, message);
  await writeNote(s.worktree, s.refs.notes, commit, note, { commonDir: s.config.commonDir, message: `trm: step ${step}.${sl.k} record (alternative)` });
  return commit;
}

/** A pool slot at the tip; where the last candidate's commands rewrote tracked files, the tree it last ran is forgotten (stale-bytecode.ts). */
async function takeSlot(s: Session, pool: WorktreePool, k: number, ctx: CallContext): Promise<string> {
  const { wt, rewritten } = await pool.take(k, s.tip, ctx);
  if (rewritten) s.ranTrees.delete(wt);
  return wt;
}
