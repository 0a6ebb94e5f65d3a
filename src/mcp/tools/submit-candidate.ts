import { z } from "zod";
import { candidateSchema } from "../../candidate/schema.js";
import { fmt } from "../../evaluate/score.js";
import { type CandidateOutcome, submitBatch } from "../../session/batch.js";
import type { SessionManager } from "../../session/manager.js";
import { UserError } from "../../util/errors.js";
import { LIMITS } from "../../util/limits.js";
import { defineTool } from "../register.js";
import { partialView, testsView, verdictOut } from "../views.js";

const diagnosticOut = z.object({
  file: z.string().optional(),
  line: z.number().optional(),
  column: z.number().optional(),
  code: z.string().optional(),
  message: z.string(),
  severity: z.string(),
  source: z.string(),
  introducedAtStep: z.number(),
});

export function submitCandidateTool(sessions: SessionManager) {
  return defineTool({
    name: "trm_submit_candidate",
    description:
      "Apply a candidate in the session worktree (all-or-nothing), run the commands, score it and commit it as the next step: scores, tests, diagnostics, whether to stop.",
    input: {
      sessionId: z.string().describe("from trm_start_session"),
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
    notes: { candidate: "one change", maxParallel: "candidates of a batch evaluated at once (default: the CPU count)" },
    output: {
      step: z.number(),
      commit: z.string(),
      score: z.number(),
      emaScore: z.number(),
      bestScore: z.number(),
      improved: z.boolean(),
      noImproveStreak: z.number(),
      ...verdictOut,
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
        throw new UserError(
          args.candidate ? "Both candidate and candidates were given." : "No candidate given.",
          "Send exactly one of candidate (one change) or candidates (2 to 8 {candidate, rationale} to evaluate side by side).",
        );
      }
      // A batch's own rationale per candidate; the call's rationale stands in where one has none.
      const items = args.candidates?.map((c) => ({ candidate: c.candidate, rationale: c.rationale ?? args.rationale ?? "" }));
      const r = items
        ? await submitBatch(s, { items, zNotes: args.zNotes, maxParallel: args.maxParallel }, ctx)
        : await s.submit({ candidate: args.candidate!, rationale: args.rationale ?? "", zNotes: args.zNotes }, ctx);
      const batch: CandidateOutcome[] | undefined = "candidates" in r ? (r.candidates as CandidateOutcome[]) : undefined;
      const failureSteps = new Map(r.failures.map((f) => [f.item.name, f.introducedAtStep]));
      const tests =
        r.ev.tests === undefined
          ? undefined
          : r.ev.tests === null
            ? null
            : (({ failures, ...t }) => ({ ...t, failures: failures.map((f) => ({ ...f, introducedAtStep: failureSteps.get(f.name) ?? r.step })) }))(
                testsView(r.ev.tests),
              );
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
        ...partialView(r.ev),
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
        ...(r.cachedFrom
          ? {}
          : { commandMs: Object.fromEntries(Object.entries(r.ev.commands).flatMap(([k, c]) => (c && !c.skipped ? [[k, c.durationMs]] : []))) }),
        ...(batch ? { candidates: batch } : {}),
      };
      const extra = [...structured.warnings.map((w) => `warning: ${w}`), ...(r.modeSuggestion ? [`tip: ${r.modeSuggestion}`] : [])];
      return { structured, text: [...(batch ? batchLines(batch) : []), r.feedback, ...extra].join("\n") };
    },
  });
}

/** The batch at a glance, before the chosen candidate's full feedback. */
function batchLines(list: CandidateOutcome[]): string[] {
  return [
    `best of ${list.length} (read, diff or restore one with at = <step>.<k>):`,
    ...list.map((c, i) => `  #${i + 1} ${c.at ?? "-"} ${c.verdict}${c.score === null ? "" : ` ${fmt(c.score)}`}: ${c.feedback}`),
    "",
  ];
}
