/** Reading a session's step records (commits and their notes) back from git into memory. */
import type { Evaluation } from "../evaluate/evaluate.js";
import { gitOrNull } from "../git/cli.js";
import { readChain } from "../git/session-git.js";
import type { StepEntry, StepNote } from "./record.js";
import type { Session } from "./session.js";

/**
 * The evaluations of steps off the current history (undone, superseded, candidates of a batch not
 * chosen) into the cache, so that after a restart a resubmission of one is not run again: the
 * records are in git, keyed by the step's tree (the session's commands never change).
 */
export async function cacheKeptSteps(s: Session): Promise<void> {
  const kept = (await gitOrNull(s.config.commonDir, ["for-each-ref", "--format=%(objectname)", s.refs.keepPrefix, s.refs.tagPrefix])) ?? "";
  const tips = [...new Set(kept.split("\n").filter((l) => /^[0-9a-f]{40,64}$/.test(l)))];
  if (tips.length === 0) return;
  const out =
    (await gitOrNull(s.config.commonDir, [
      "log",
      "--max-count=500",
      `--notes=${s.refs.notes}`,
      "--format=%x1e%H%x1f%T%x1f%N",
      ...tips,
      `^${s.baseline.commit}`,
      "--",
    ])) ?? "";
  for (const rec of out.split("\x1e")) {
    const [commit, tree, note] = rec.split("\x1f");
    if (!commit || !tree || !note?.trim() || s.cache.has(tree.trim())) continue;
    try {
      const parsed = JSON.parse(note) as StepNote;
      if (parsed.kind === "step" && !parsed.cachedFrom) s.cache.set(tree.trim(), { commit: commit.trim(), evaluation: parsed.evaluation });
    } catch {
      // A record no longer read as JSON: that step runs again if resubmitted.
    }
  }
}

/** The evaluated steps from the baseline up to `tip`, read from the commits and their notes (one git call). */
export async function readEntries(s: Session, tip: string): Promise<StepEntry[]> {
  const chain = await readChain<StepNote>(s.config.commonDir, s.refs.notes, tip, s.baseline.commit);
  const entries: StepEntry[] = [];
  if (s.preflight) entries.push({ step: 0, commit: s.baseline.commit, tree: s.baseline.tree, evaluation: s.preflight });
  let step = 0;
  for (const c of chain) {
    step++;
    if (c.note?.kind === "step") {
      entries.push({ step, commit: c.commit, tree: c.tree, evaluation: c.note.evaluation, note: c.note });
      s.cache.set(c.tree, { commit: c.commit, evaluation: c.note.evaluation });
    } else {
      // A commit without a record (made by a person on the session branch, or a crash between
      // commit and note) counts as a step that was never evaluated.
      entries.push({ step, commit: c.commit, tree: c.tree, evaluation: unevaluated() });
    }
  }
  return entries;
}

function unevaluated(): Evaluation {
  return { commands: {}, components: {}, score: 0, testsPass: false, diagnostics: [], notices: ["this commit has no evaluation record"], commandsMs: 0 };
}
