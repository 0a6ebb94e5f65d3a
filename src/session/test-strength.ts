/**
 * testStrength at start: a step that passes every test and would halt with success is also told which
 * of the session's added lines no test runs and which mutants of the covered ones every test passes,
 * so that a model that made the tests pass with weak tests learns which lines no test checks. Runs in
 * the session's pool worktrees (worktree-pool.ts) at the step's tree, with the session's command policy.
 * With a weight (a number), the strength also lowers that step's score (score.ts strengthScore), and a
 * later step whose tests fail scores below it.
 */
import { changedSourceLines } from "../evaluate/coverage/changed-lines.js";
import type { Evaluation } from "../evaluate/evaluate.js";
import { failingScoreCap, fmt, haltDecision, strengthScaled, strengthScore, testStrengthOf } from "../evaluate/score.js";
import { DEFAULT_MUTATION_BUDGET_SEC, measureTestStrength, strengthFindings } from "../evaluate/test-strength.js";
import { writeCommitFast } from "../git/session-git.js";
import type { CallContext } from "./context.js";
import { commandPolicy } from "./policy.js";
import type { Session } from "./session.js";
import { poolFor } from "./worktree-pool.js";

const MAX_LINES = 12;

/** The weight of test strength in the score: 0 for `true` (reported only) or off. */
export const strengthWeight = (t: boolean | number | undefined): number => (typeof t === "number" ? t : 0);

/**
 * Before a step is recorded: its evaluation with test strength weighed in, and the lines its feedback
 * gets (none when the step would not halt with success).
 */
export async function weighTestStrength(
  s: Session,
  step: number,
  tree: string,
  ev: Evaluation,
  ctx: CallContext,
): Promise<{ ev: Evaluation; notes: string[] }> {
  const { strength: _stale, ...fresh } = ev;
  const w = strengthWeight(s.config.testStrength);
  const earlier = s.entries.map((e) => e.evaluation);
  if (!fresh.testsPass) {
    const lowered = earlier.filter((e) => e.strength && e.score < e.strength.unweighted).map((e) => e.score);
    return { ev: { ...fresh, score: failingScoreCap(fresh.score, lowered.length ? Math.min(...lowered) : undefined) }, notes: [] };
  }
  const halt = haltDecision(s.progress([...s.entries, { step, commit: "", tree, evaluation: fresh }]), true, s.config.halt);
  if (!halt.shouldHalt || !halt.reasons.some((r) => r.startsWith("success"))) return { ev: fresh, notes: [] };
  // The step's tree as a commit the pool can check out: not on any branch, git's gc removes it.
  const commit = await writeCommitFast(s.config.commonDir, tree, s.tip, "trm: test strength of a step");
  const { notes, killed, survived, untested } = await testStrengthNotes(s, commit, ctx);
  const k = testStrengthOf(killed, survived, untested);
  if (w === 0 || k === null) return { ev: fresh, notes };
  const failing = earlier.filter((e) => !e.testsPass).map((e) => e.score);
  const score = strengthScore(fresh.score, k, w, failing.length ? Math.max(...failing) : undefined);
  return {
    ev: { ...fresh, score, strength: { value: k, unweighted: fresh.score, scaled: strengthScaled(fresh.score, k, w) } },
    notes: [
      ...notes,
      `testStrength: ${killed} of ${killed + survived + untested} added code lines have a mutant the tests kill (strength ${fmt(k)}, weight ${w}): score ${fmt(fresh.score)} -> ${fmt(score)}.`,
    ],
  };
}

async function testStrengthNotes(s: Session, commit: string, ctx: CallContext) {
  const test = s.config.commands.test;
  if (!test) return { notes: ["testStrength: no testCmd, nothing measured."], killed: 0, survived: 0, untested: 0 };
  const pool = poolFor(s.config);
  const changed = await changedSourceLines(s.config.repoTop, s.baseline.commit, commit);
  const policy = commandPolicy(s.config, s.worktree);
  const r = await measureTestStrength({
    checkout: async (k) => (await pool.take(k, commit, ctx)).wt,
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
  const survived = r.mutation?.survived.length ?? 0;
  return {
    notes: [...lines, ...r.notes.map((n) => `testStrength: ${n}`)],
    killed: (r.mutation?.results.length ?? 0) - survived,
    survived,
    untested: (r.coverage?.uncovered ?? []).reduce((n, u) => n + u.lines.length, 0),
  };
}
