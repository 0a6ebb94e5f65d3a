/**
 * Step 0: the baseline's evaluation, recorded in the baseline's note (with the session's config) and
 * its logs, the best tag on the baseline when the session has no best yet. Run by trm_start_session
 * with `preflight`, or lazily for the first step when that step changes test files or its tests all pass:
 * without the baseline's tests, the first step would be its own reference, and a candidate that deletes,
 * skips or weakens the failing test would score 1.0 and end the session as a success.
 */
import type { EvaluationRun } from "../evaluate/evaluate.js";
import { testsLine } from "../evaluate/feedback.js";
import { fmt } from "../evaluate/score.js";
import { EvaluationCancelled } from "../evaluate/step-command.js";
import { readNote, resolveRefFast, updateRefs, writeNote } from "../git/session-git.js";
import { UserError } from "../util/errors.js";
import type { CallContext } from "./context.js";
import type { BaselineNote } from "./record.js";
import type { Session } from "./session.js";
import type { TestFileChange } from "./test-files.js";

/** Records `run` as the baseline's evaluation (step 0) and re-reads the session from git. */
export async function recordPreflight(s: Session, run: EvaluationRun, why: string, base?: BaselineNote): Promise<void> {
  const { commonDir } = s.config;
  const stored = base ?? (await readNote<BaselineNote>(commonDir, s.refs.notes, s.baseline.commit));
  const note: BaselineNote = { ...(stored?.kind === "baseline" ? stored : { v: 1, kind: "baseline", config: s.config }), preflight: run.evaluation };
  await writeNote(s.top, s.refs.notes, s.baseline.commit, note, { commonDir, message: `trm: step 0 record (${why})` });
  // As for a step (submit.ts): logs the record already holds whole are not written twice (logs.ts reads
  // them from it), unless an older logs note of the baseline would otherwise be read instead.
  const whole = Object.entries(run.logs).every(([k, text]) => run.evaluation.commands[k]?.output === text);
  if (!whole || (await readNote(commonDir, s.refs.logs, s.baseline.commit)) !== null) {
    await writeNote(s.top, s.refs.logs, s.baseline.commit, run.logs, { commonDir, message: `trm: step 0 logs (${why})` });
  }
  s.preflight = run.evaluation;
  // The best only moves up: a best kept from an undone history stays.
  if (!(await resolveRefFast(commonDir, s.refs.bestTag)))
    await updateRefs(s.top, [{ ref: s.refs.bestTag, next: s.baseline.commit, expected: null }], "trm: preflight");
  await s.reload();
}

/**
 * Before a step that changes test files, when the session has no reference yet (no preflight, and the
 * tip is still the baseline): the baseline's tests run first and are recorded as step 0, exactly as a
 * preflight would have. Returns a line for the step's feedback, or nothing when nothing ran.
 */
export async function ensureReference(s: Session, changed: TestFileChange[], ctx: CallContext): Promise<string | undefined> {
  if (changed.length === 0 || !needsReference(s)) return undefined;
  const files = `${changed
    .map((c) => c.path)
    .slice(0, 3)
    .join(", ")}${changed.length > 3 ? ", …" : ""}`;
  return runReference(s, ctx, "changes tests or their configuration", `this step changes ${files}`, "ran first");
}

/** The session has a test command and no reference for its first step: no preflight ran, the tip is the baseline. */
export const needsReference = (s: Session): boolean => !!s.config.commands.test && !s.preflight && s.currentStep === 0;

/**
 * Before a first step recorded as a success when the session has no reference: its tests passing says nothing
 * of which tests failed before it, so a step that only weakened the failing test (in a file not named a test:
 * unittest's `testcalc.py`, Jest's `src/sum/spec.js`) would end the session (h29). The baseline's commands run
 * (in the session worktree, at the baseline again) and the step is judged against them. Costs a run only then.
 */
export function referenceBeforeSuccess(s: Session, ctx: CallContext): Promise<string> {
  return runReference(s, ctx, "would end the session", "this step's tests all pass", "ran");
}

async function runReference(s: Session, ctx: CallContext, why: string, what: string, ran: string): Promise<string> {
  ctx.progress?.(`this step ${why} and no preflight ran: running the baseline's commands (step 0)`);
  const run = await s.evaluateHere(0, ctx).catch((err: unknown) => {
    if (err instanceof EvaluationCancelled) throw new UserError("Cancelled while the baseline's tests ran; nothing was recorded.");
    throw err;
  });
  await recordPreflight(s, run, `baseline preflight, run for step 1 because it ${why}`);
  // The commands may have changed tracked files: the candidate is written on the tip exactly.
  await s.verifyWorktree(s.tip);
  const ev = run.evaluation;
  const tests = ev.commands.test?.skipped ? `tests skipped (${ev.commands.test.skipped})` : ev.tests ? testsLine(ev.tests) : "tests unreadable";
  return `no preflight had run and ${what}, so the baseline's commands ${ran} and were recorded as step 0 (score ${fmt(ev.score)}, ${tests}): this step's tests are judged against the baseline's.`;
}
