import { cliCommand } from "../../util/cli-name.js";
import { z } from "zod";
import { candidateSchema } from "../../candidate/schema.js";
import { fmt } from "../../evaluate/score.js";
import { shortRef } from "../../git/refs.js";
import { startSessionInput } from "../../session/config.js";
import type { SessionManager } from "../../session/manager.js";
import { startSession } from "../../session/start.js";
import { submitBatch, type CandidateOutcome } from "../../session/batch.js";
import { UserError } from "../../util/errors.js";
import { shellQuote } from "../../util/text.js";
import { LIMITS } from "../../util/limits.js";
import { defineTool, READ_ONLY } from "../register.js";
import { diagnosticOut, evaluationOut, figuresOut, historyItemOut, sessionSummaryOut, testsOut } from "../shapes.js";
import { bestOffHistoryNote, evaluationView, stateText, stateView, summaryLine, testsView } from "../views.js";

const sessionId = z.string().describe("from trm_start_session");

export function sessionTools(sessions: SessionManager) {
  const start = defineTool({
    name: "trm_start_session",
    description: "Start a refinement session: baseline commit of the checkout (uncommitted work included), branch trm/<id>, isolated worktree. The checkout itself is never modified.",
    input: startSessionInput,
    output: {
      sessionId: z.string(),
      branch: z.string(),
      worktreePath: z.string(),
      baselineCommit: z.string(),
      uncommittedIncluded: z.boolean(),
      startMs: z.number(),
      sandbox: z.boolean(),
      setup: z.object({ cmd: z.string(), ok: z.boolean(), exitCode: z.number().nullable(), durationMs: z.number(), output: z.string() }).optional(),
      submodules: z.object({ ok: z.boolean(), message: z.string() }).optional(),
      /** Files of the checkout that could not be read and are missing from the baseline. */
      unreadable: z.array(z.string()).optional(),
      preflight: evaluationOut.optional(),
      notes: z.array(z.string()).optional(),
      feedback: z.string().optional(),
    },
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(args, ctx) {
      const r = await startSession(args, ctx);
      sessions.add(r.session);
      const pre = r.session.preflight;
      const structured = {
        sessionId: r.session.id,
        branch: r.branch,
        worktreePath: r.session.worktree,
        baselineCommit: r.snap.commit,
        uncommittedIncluded: r.snap.dirty,
        startMs: r.startMs,
        sandbox: !!r.session.config.sandbox,
        ...(r.setup ? { setup: r.setup } : {}),
        ...(r.submodules ? { submodules: r.submodules } : {}),
        ...(r.snap.skipped.length ? { unreadable: r.snap.skipped } : {}),
        ...(pre ? { preflight: evaluationView(pre) } : {}),
        ...(r.notes.length ? { notes: r.notes } : {}),
        ...(r.preflightFeedback ? { feedback: r.preflightFeedback } : {}),
      };
      const text = [
        `session ${r.session.id} started on branch ${r.branch} (baseline ${r.snap.commit.slice(0, 12)}${r.snap.dirty ? ", uncommitted changes included" : ""})`,
        `worktree: ${r.session.worktree}`,
        ...(r.session.config.sandbox ? [`sandbox: bubblewrap active (worktree writable, rest read-only, ${r.session.config.sandbox.network ? "network allowed" : "no network"})`] : []),
        ...(r.submodules ? [`${r.submodules.ok ? "" : "note: "}${r.submodules.message}`] : []),
        ...(r.snap.skipped.length ? [`note: ${r.snap.skipped.length} file(s) of the checkout could not be read and are not in the baseline: ${r.snap.skipped.slice(0, 10).join(", ")}`] : []),
        ...(r.setup ? [`setup ${r.setup.ok ? "ok" : `FAILED (exit ${r.setup.exitCode})`}: ${r.setup.cmd}${r.setup.ok ? "" : `\n${r.setup.output}`}`] : []),
        ...r.notes.map((n) => `note: ${n}`),
        ...(r.preflightFeedback ? [`preflight (step 0): ${r.preflightFeedback}`] : []),
      ].join("\n");
      return { structured, text };
    },
  });

  const submit = defineTool({
    name: "trm_submit_candidate",
    description: "Apply a candidate in the session worktree (all-or-nothing), run the commands, score it and commit it as the next step: scores, tests, diagnostics, whether to stop.",
    input: {
      sessionId,
      candidate: candidateSchema.optional(),
      // Each candidate is checked in full on the server (batch.ts): its schema is advertised once, above.
      candidates: z
        .array(z.object({ candidate: z.unknown().optional(), rationale: z.string().optional() }))
        .optional()
        .describe("best of 2-8"),
      maxParallel: z.number().int().min(1).max(64).optional(),
      rationale: z.string().max(LIMITS.maxRationaleChars).optional().describe("why; becomes the commit message"),
      zNotes: z.string().max(LIMITS.maxZNotesChars).optional().describe("notes carried to later steps"),
    },
    output: {
      step: z.number(),
      commit: z.string(),
      score: z.number(),
      emaScore: z.number(),
      bestScore: z.number(),
      improved: z.boolean(),
      noImproveStreak: z.number(),
      okBuild: z.boolean().optional(),
      okLint: z.boolean().optional(),
      tests: testsOut.optional(),
      perf: z.object({ value: z.number().nullable(), score: z.number() }).optional(),
      shouldHalt: z.boolean(),
      reasons: z.array(z.string()),
      feedback: z.string(),
      diagnostics: z.array(diagnosticOut),
      cached: z.boolean(),
      warnings: z.array(z.string()),
      modeSuggestion: z.string().optional(),
      commandsMs: z.number(),
      commandMs: z.record(z.string(), z.number()).optional(),
      candidates: z.array(z.object({ at: z.string().nullable(), score: z.number().nullable(), verdict: z.string(), feedback: z.string() })).optional(),
    },
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(args, ctx) {
      const s = await sessions.get(args.sessionId);
      if (!args.candidate === !args.candidates) {
        throw new UserError(args.candidate ? "Both candidate and candidates were given." : "No candidate given.", "Send exactly one of candidate (one change) or candidates (2 to 8 {candidate, rationale} to evaluate side by side).");
      }
      // A batch's own rationale per candidate; the call's rationale stands in where one has none.
      const items = args.candidates?.map((c) => ({ candidate: c.candidate, rationale: c.rationale ?? args.rationale ?? "" }));
      const r = items ? await submitBatch(s, { items, zNotes: args.zNotes, maxParallel: args.maxParallel }, ctx) : await s.submit({ candidate: args.candidate!, rationale: args.rationale ?? "", zNotes: args.zNotes }, ctx);
      const batch: CandidateOutcome[] | undefined = "candidates" in r ? (r.candidates as CandidateOutcome[]) : undefined;
      const failureSteps = new Map(r.failures.map((f) => [f.item.name, f.introducedAtStep]));
      const tests = r.ev.tests === undefined ? undefined : r.ev.tests === null ? null : { ...testsView(r.ev.tests), failures: r.ev.tests.failures.map((f) => ({ ...f, introducedAtStep: failureSteps.get(f.name) ?? r.step })) };
      const structured = {
        step: r.step,
        commit: r.commit,
        score: r.progress.score,
        emaScore: r.progress.ema,
        bestScore: Math.max(r.progress.bestScore, s.best?.score ?? r.progress.bestScore),
        improved: r.progress.improved,
        noImproveStreak: r.progress.noImproveStreak,
        ...(r.ev.okBuild !== undefined ? { okBuild: r.ev.okBuild } : {}),
        ...(r.ev.okLint !== undefined ? { okLint: r.ev.okLint } : {}),
        ...(tests !== undefined ? { tests } : {}),
        ...(r.ev.perf ? { perf: r.ev.perf } : {}),
        shouldHalt: r.halt.shouldHalt,
        reasons: r.halt.reasons,
        feedback: r.feedback,
        diagnostics: r.diagnostics.map((d) => ({ ...d.item, introducedAtStep: d.introducedAtStep })),
        cached: !!r.cachedFrom,
        warnings: [...r.plan.warnings, ...r.plan.fuzz.map((f) => `fuzz: ${f}`)],
        ...(r.modeSuggestion ? { modeSuggestion: r.modeSuggestion } : {}),
        commandsMs: r.cachedFrom ? 0 : r.ev.commandsMs,
        // Each command's own time; commandsMs is the wall time (concurrent commands overlap).
        ...(r.cachedFrom ? {} : { commandMs: Object.fromEntries(Object.entries(r.ev.commands).flatMap(([k, c]) => (c && !c.skipped ? [[k, c.durationMs]] : []))) }),
        ...(batch ? { candidates: batch } : {}),
      };
      const extra = [...structured.warnings.map((w) => `warning: ${w}`), ...(r.modeSuggestion ? [`tip: ${r.modeSuggestion}`] : [])];
      return { structured, text: [...(batch ? batchLines(batch) : []), r.feedback, ...extra].join("\n") };
    },
  });

  const getState = defineTool({
    name: "trm_get_state",
    description: "Session snapshot: step, score, EMA, best, streak, last evaluation, zNotes, compact history.",
    input: { sessionId },
    output: {
      sessionId: z.string(),
      branch: z.string(),
      status: z.string(),
      worktreePath: z.string(),
      ...figuresOut,
      last: evaluationOut.extend({ step: z.number() }).nullable(),
      zNotes: z.string(),
      shouldHalt: z.boolean(),
      reasons: z.array(z.string()),
      history: z.array(historyItemOut),
    },
    hints: READ_ONLY,
    async run(args) {
      const s = await sessions.get(args.sessionId);
      await s.refresh();
      const v = stateView(s);
      return { structured: v, text: stateText(v, bestOffHistoryNote(s)) };
    },
  });

  const shouldHalt = defineTool({
    name: "trm_should_halt",
    description: "Whether to stop refining (success, plateau or step limit), with reasons.",
    input: { sessionId },
    output: { shouldHalt: z.boolean(), reasons: z.array(z.string()), step: z.number() },
    hints: READ_ONLY,
    async run(args) {
      const s = await sessions.get(args.sessionId);
      const h = s.halt();
      return { structured: { ...h, step: s.currentStep }, text: `${h.shouldHalt ? "STOP" : "continue"}: ${h.reasons.join("; ")}` };
    },
  });

  const end = defineTool({
    name: "trm_end_session",
    description: "Remove the session worktree. Branch, tags and notes stay (unless discard: true) so the result can be merged.",
    input: { sessionId, discard: z.boolean().optional().describe("also delete branch, tags, notes") },
    output: { ok: z.boolean(), branch: z.string(), bestCommit: z.string().nullable(), bestStep: z.number().nullable(), discarded: z.boolean(), howToApply: z.array(z.string()) },
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args) {
      const s = await sessions.get(args.sessionId);
      const best = s.best;
      const offNote = bestOffHistoryNote(s);
      const branch = shortRef(s.refs.branch);
      await s.end(!!args.discard);
      sessions.forget(s.id);
      const howToApply = args.discard ? [] : applyInstructions({ id: s.id, branch, bestCommit: best?.commit ?? null, uncommittedIncluded: s.config.uncommittedIncluded, bestOffHistory: !!best && !best.onCurrentHistory, top: s.top });
      const structured = { ok: true, branch, bestCommit: best?.commit ?? null, bestStep: best?.step ?? null, discarded: !!args.discard, howToApply };
      const text = args.discard
        ? `session ${s.id} ended; worktree, branch, tags and notes deleted.`
        : [`session ${s.id} ended; worktree removed; branch ${branch} kept${best ? ` (best: step ${best.step}, score ${fmt(best.score)}, ${best.commit.slice(0, 12)}${offNote})` : ""}.`, "to bring the result in:", ...howToApply.map((h) => `  ${h}`)].join("\n");
      return { structured, text };
    },
  });

  const list = defineTool({
    name: "trm_list_sessions",
    description: "Sessions of a repository (active and ended), read from git; use after a server restart.",
    input: { repoPath: z.string().describe("absolute path of the checkout") },
    output: { sessions: z.array(sessionSummaryOut) },
    hints: READ_ONLY,
    async run(args) {
      const all = await sessions.list(args.repoPath);
      const rows = all.map((s) => summaryLine(s));
      const text = rows.length
        ? rows.map((r) => `${r.sessionId} ${r.status.padEnd(6)} step ${r.step} score ${r.score === null ? "-" : fmt(r.score)} best ${r.bestScore === null ? "-" : fmt(r.bestScore)} tests ${r.tests ?? "-"} ${r.branch}`).join("\n")
        : "no sessions in this repository";
      return { structured: { sessions: rows }, text };
    },
  });

  return [start, submit, getState, shouldHalt, end, list];
}

/**
 * How to bring a session's result into the user's branch. `code-trm apply` comes first: it writes the
 * working tree only and refuses to overwrite uncommitted work. When the baseline carried uncommitted
 * work, a merge would also commit that work, so the git way is a diff of the session's own changes.
 */
export interface ApplyTarget {
  id: string;
  branch: string;
  bestCommit: string | null;
  /** The baseline carried the user's uncommitted work: a merge would commit it too. */
  uncommittedIncluded: boolean;
  /** The best step is not on the branch's current history (an undo, restore or reset left it). */
  bestOffHistory?: boolean;
  /** The user's checkout, named in every line so that each runs from any folder. */
  top?: string;
}

export function applyInstructions({ id, branch, bestCommit, uncommittedIncluded, bestOffHistory = false, top }: ApplyTarget): string[] {
  const base = `trm/${id}/baseline`;
  // Printed as it runs from the user's shell, from any folder: `code-trm` only when that name is on PATH,
  // and the checkout named (`--repo`, `git -C`).
  const cli = cliCommand();
  const repo = top ? ` --repo ${shellQuote(top)}` : "";
  const g = top ? `git -C ${shellQuote(top)}` : "git";
  const out = [`${cli} apply ${id}${repo}   # as uncommitted changes in your working tree (add --best for the best step)`];
  if (bestOffHistory) out.unshift(`${cli} apply ${id} --best${repo}   # the best step is not on the branch's current history: this brings it in`);
  if (uncommittedIncluded) {
    out.push(`${g} diff ${base} ${branch} | ${g} apply   # the same with git: the session's changes on top of your working tree`);
  } else {
    out.push(`${g} merge ${branch}   # or: ${g} merge --squash ${branch}`);
    out.push(`${g} cherry-pick ${base}..${branch}`);
  }
  if (bestCommit) out.push(`best step only: ${g} diff ${base} ${bestCommit.slice(0, 12)} | ${g} apply`);
  out.push(`inspect: ${g} log --notes=trm/${id} ${branch}; ${g} diff ${base} ${branch}`);
  return out;
}

/** The batch at a glance, before the chosen candidate's full feedback. */
function batchLines(list: CandidateOutcome[]): string[] {
  return [
    `best of ${list.length} (read, diff or restore one with at = <step>.<k>):`,
    ...list.map((c, i) => `  #${i + 1} ${c.at ?? "-"} ${c.verdict}${c.score === null ? "" : ` ${fmt(c.score)}`}: ${c.feedback}`),
    "",
  ];
}
