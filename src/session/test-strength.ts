/**
 * testStrength at start: a step that passes every test and would halt with success is also told which
 * of the session's added lines no test runs and which mutants of the covered ones every test passes,
 * so that a model that made the tests pass with weak tests learns which lines no test checks. Runs in
 * the session's pool worktrees (worktree-pool.ts) at the step's commit, with the session's command policy.
 */
import { changedSourceLines } from "../evaluate/coverage/changed-lines.js";
import { DEFAULT_MUTATION_BUDGET_SEC, measureTestStrength, strengthFindings } from "../evaluate/test-strength.js";
import type { CallContext } from "./context.js";
import { commandPolicy } from "./policy.js";
import type { Session } from "./session.js";
import { poolFor } from "./worktree-pool.js";

const MAX_LINES = 12;

export async function testStrengthNotes(s: Session, commit: string, ctx: CallContext): Promise<string[]> {
  const test = s.config.commands.test;
  if (!test) return ["testStrength: no testCmd, nothing measured."];
  const pool = poolFor(s.config);
  const changed = await changedSourceLines(s.config.repoTop, s.baseline.commit, commit);
  const policy = commandPolicy(s.config, s.worktree);
  const r = await measureTestStrength({
    checkout: (k) => pool.take(k, commit, ctx),
    parallel: 2,
    testCmd: test,
    ...(s.config.commands.build ? { buildCmd: s.config.commands.build } : {}),
    changed,
    timeoutSec: s.config.timeoutSec,
    budgetMs: DEFAULT_MUTATION_BUDGET_SEC * 1000,
    sandbox: (cwd) => commandPolicy(s.config, cwd).sandbox,
    ...(policy.passEnv ? { passEnv: policy.passEnv } : {}),
    env: { TRM_SESSION_ID: s.id },
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(ctx.progress ? { onProgress: ctx.progress } : {}),
  });
  const found = strengthFindings(r);
  const lines = found.slice(0, MAX_LINES).map((f) => `testStrength: ${f.file}:${f.line} ${f.message}${f.diff ? `\n${f.diff}` : ""}`);
  if (found.length > MAX_LINES) lines.push(`testStrength: ${found.length - MAX_LINES} more.`);
  if (found.length > 0) lines.unshift("testStrength: every test passes, but the tests do not check all of the session's lines: add tests that fail on these.");
  return [...lines, ...r.notes.map((n) => `testStrength: ${n}`)];
}
