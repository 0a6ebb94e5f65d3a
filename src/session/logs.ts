import { readNote } from "../git/session-git.js";
import { UserError } from "../util/errors.js";
import { redactDeep } from "../util/secrets.js";
import { resolvePoint } from "./points.js";
import type { BaselineNote, StepNote } from "./record.js";
import type { Session } from "./session.js";

const DEFAULT_LIMIT = 20_000;
const MAX_LIMIT = 200_000;

/**
 * The full output of a command at a point of the session (the feedback only carries a bounded
 * excerpt). Without `command`, the first command that failed there is chosen, else the test log.
 */
export async function readLog(s: Session, opts: { at?: string; command?: string; offset?: number; limit?: number }) {
  await s.settle();
  const point = await resolvePoint(s, opts.at ?? "current");
  const entry = s.entries.find((e) => e.commit === point.commit);
  // A step whose evaluation was reused from the cache ran nothing: its logs are the original step's.
  const source = entry?.note?.cachedFrom ?? point.commit;
  const logs = (await readNote<Record<string, string>>(s.config.commonDir, s.refs.logs, source)) ?? (await recordedWhole(s, source));
  if (!logs || Object.keys(logs).length === 0) {
    throw new UserError(
      `No command output is recorded for ${point.label}.`,
      "Logs exist for evaluated steps (and the baseline with preflight); pick one from trm_get_state's history.",
    );
  }
  const available = Object.entries(logs).map(([command, text]) => ({ command, chars: text.length }));
  let command = opts.command;
  if (!command) {
    // The first command that failed (the baseline's evaluation is the preflight); with none, the test
    // log, which is what a model asks for, not an empty build output.
    const evaluation = entry?.evaluation ?? (point.commit === s.baseline.commit ? s.preflight : undefined);
    const failed = evaluation && Object.entries(evaluation.commands).find(([k, c]) => c && !c.skipped && (c.exitCode !== 0 || c.timedOut) && k in logs);
    command = failed?.[0] ?? ["test", "quickTest"].find((k) => logs[k]) ?? available.find((a) => a.chars > 0)?.command ?? available[0]!.command;
  }
  const text = logs[command];
  if (text === undefined) {
    throw new UserError(`No output of "${command}" at ${point.label}.`, `Recorded: ${available.map((a) => a.command).join(", ")}.`);
  }
  const offset = Math.max(0, opts.offset ?? 0);
  const limit = Math.min(MAX_LIMIT, Math.max(1, opts.limit ?? DEFAULT_LIMIT));
  const content = text.slice(offset, offset + limit);
  return { at: point.label, command, available, totalChars: text.length, offset, content, truncated: offset + content.length < text.length };
}

/**
 * A step (or a preflight) whose commands' outputs all fit the record has no logs note (submit.ts,
 * preflight.ts): its record, as written (redacted), holds each output whole.
 */
async function recordedWhole(s: Session, commit: string): Promise<Record<string, string> | null> {
  const note = await readNote<StepNote | BaselineNote>(s.config.commonDir, s.refs.notes, commit);
  const recorded = note?.kind === "step" ? note.evaluation : note?.kind === "baseline" ? note.preflight : undefined;
  // A record no longer read as JSON (e.g. `git notes append` by hand): the evaluation in memory,
  // redacted as the record was.
  const held = recorded ? undefined : commit === s.baseline.commit && s.preflight ? s.preflight : s.entries.find((x) => x.commit === commit)?.evaluation;
  const evaluation = recorded ?? (held && redactDeep(held));
  if (!evaluation) return null;
  return Object.fromEntries(Object.entries(evaluation.commands).flatMap(([k, c]) => (c && !c.skipped && !c.truncated ? [[k, c.output]] : [])));
}
