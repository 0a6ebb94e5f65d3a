import { peelToCommitFast, resolveRefFast } from "../git/session-git.js";
import { UserError } from "../util/errors.js";
import type { Session } from "./session.js";

export interface Point {
  label: string;
  commit: string;
  step?: number;
}

export const CHECKPOINT_RE = /^[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;

/** Names that are points of every session, or tags code-trm manages itself: not checkpoint names. */
export const RESERVED_POINTS = new Set(["baseline", "best", "current", "head"]);

/**
 * Resolves a point of a session's history named by a client: "baseline", "best", "current", a step
 * number, a best-of-N alternative ("3.2"), or a checkpoint name. Only names of that shape are accepted,
 * so nothing the client sends reaches git as an option or a revision expression.
 */
export async function resolvePoint(s: Session, at: string): Promise<Point> {
  const a = at.trim();
  if (a === "current" || a === "head") return { label: "current", commit: s.tip, step: s.currentStep };
  if (a === "baseline") return { label: "baseline", commit: s.baseline.commit, step: 0 };
  if (a === "best") {
    const b = s.best ?? (await s.readBest());
    if (!b) throw new UserError("No best step yet.", "Submit a candidate (or start with preflight) first.");
    return { label: "best", commit: b.commit, step: b.step };
  }
  if (/^\d+$/.test(a)) {
    const n = Number(a);
    if (n === 0) return { label: "baseline", commit: s.baseline.commit, step: 0 };
    const e = s.entries.find((x) => x.step === n);
    if (!e)
      throw new UserError(
        `No step ${a} in the current history (steps 0..${s.currentStep}).`,
        "Use a step of the current history (trm_get_state lists them), or <step>.<k> for a best-of-N alternative.",
      );
    return { label: `step ${n}`, commit: e.commit, step: n };
  }
  const alt = /^(\d{1,9})\.(\d{1,9})$/.exec(a);
  if (alt) {
    // A candidate of a best-of-N batch: step 3, alternative 2 (batch.ts).
    const c = await resolveRefFast(s.config.commonDir, `${s.refs.keepPrefix}alternatives/${Number(alt[1])}/${Number(alt[2])}`);
    if (!c)
      throw new UserError(`No alternative ${a}: step ${alt[1]} has no candidate ${alt[2]}.`, 'Use the `at` values a best-of-N submit listed (e.g. "3.2").');
    return { label: `alternative ${Number(alt[1])}.${Number(alt[2])}`, commit: c, step: Number(alt[1]) };
  }
  if (!CHECKPOINT_RE.test(a) || a.length > 64) {
    throw new UserError(
      `Unknown point ${JSON.stringify(at)}.`,
      'Use "baseline", "best", "current", a step number, <step>.<k> for an alternative, or a checkpoint name.',
    );
  }
  const c = await resolveRefFast(s.config.commonDir, `${s.refs.tagPrefix}${a}`);
  if (!c) throw new UserError(`No checkpoint named ${a}.`, "List them with trm_list_checkpoints.");
  const commit = await peelToCommitFast(s.config.commonDir, c);
  return { label: `checkpoint ${a}`, commit, step: s.entries.find((e) => e.commit === commit)?.step };
}
