/** Running a session's commands in one of its worktrees: what Session.evaluateHere does. */
import path from "node:path";
import { type EvaluationRun, evaluate, expandFiles } from "../evaluate/evaluate.js";
import type { FailingFirst } from "../evaluate/failing-first.js";
import { affectedFirstPlan, failingFirstPlan } from "../evaluate/failing-first-plan.js";
import { relatedFor, selectionFor } from "../evaluate/select-command.js";
import { progressIntervalMs } from "../util/limits.js";
import { profileMark } from "../util/profile.js";
import type { CallContext } from "./context.js";
import { commandPolicy } from "./policy.js";
import type { Session } from "./session.js";
import { dropStaleBytecode } from "./stale-bytecode.js";

/**
 * Runs the session's commands in `worktree` (the session's own, or a pool worktree of a batch, whose
 * running command is recorded next to the session's so that a crash leaves no orphan either).
 */
export async function evaluateIn(
  s: Session,
  step: number,
  ctx: CallContext,
  previousBestPerf: number | undefined,
  changedFiles: string[],
  worktree: string,
  /** No failing-first gate: a best-of-N candidate whose estimate must be compared with exact scores. */
  wholeSuite = false,
  /** The tree written in `worktree`, when known. */
  tree?: string,
): Promise<EvaluationRun> {
  // The commands may change tracked files.
  if (worktree === s.worktree) s.worktreeAt = null;
  await dropStaleBytecode(s, worktree, changedFiles, tree);
  profileMark("pre-eval");
  const failingFirst = wholeSuite ? undefined : failingFirstOf(s, worktree, changedFiles);
  return evaluate({
    changedFiles,
    ...(failingFirst ? { failingFirst } : {}),
    ...(s.config.parallel === false ? { parallel: false } : {}),
    cwd: worktree,
    commands: s.config.commands,
    checks: s.config.checks,
    testReport: s.config.testReport,
    timeoutSec: s.config.timeoutSec,
    weights: s.config.weights,
    cascade: s.config.cascade,
    perfDirection: s.config.perfDirection,
    previousBestPerf,
    signal: ctx.signal,
    onProgress: ctx.progress,
    env: { ...(await s.pythonIsolation(worktree)).env, ...commandEnv(s, step) },
    checkout: { root: s.top, linked: s.config.linkPaths },
    tickMs: progressIntervalMs(),
    groupFile: worktree === s.worktree ? s.groupFile : `${s.groupFile}.${path.basename(worktree)}`,
    ...commandPolicy(s.config, worktree),
  });
}

function commandEnv(s: Session, step: number): Record<string, string> {
  return { TRM_SESSION_ID: s.id, TRM_STEP: String(step) };
}

/**
 * The tests a step in `worktree` runs first, if any (docs/failing-first.md): failing first, else affected
 * first; read from its own package.json.
 * The selection is added to the test command with `{files}` already expanded, so that nothing in a test
 * name (they come from the repository's output) is ever taken for the placeholder.
 */
function failingFirstOf(s: Session, worktree: string, changedFiles: string[]): FailingFirst | undefined {
  const test = s.config.commands.test;
  if (!test || s.config.selectTests === false || s.entries.length === 0) return undefined;
  const cmd = expandFiles(test, changedFiles);
  const selection = selectionFor(cmd, worktree);
  const failing = "off" in selection ? undefined : failingFirstPlan(s.entries, selection);
  if (failing || changedFiles.length === 0) return failing;
  // No known failure to select: the tests the runner relates to the changed files, where it can say.
  const related = relatedFor(cmd, worktree);
  return "off" in related ? undefined : affectedFirstPlan(s.entries, related, changedFiles);
}
