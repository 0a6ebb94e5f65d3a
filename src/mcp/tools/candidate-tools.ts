import { z } from "zod";
import { suggestMode } from "../../candidate/mode-suggest.js";
import { planCandidate } from "../../candidate/plan.js";
import { previewPlan, validationWarnings } from "../../candidate/preview.js";
import { candidateSchema } from "../../candidate/schema.js";
import { CandidateError, type CandidateIssue } from "../../candidate/types.js";
import { worktreeReader } from "../../candidate/write.js";
import type { SessionManager } from "../../session/manager.js";
import { assertTestsUntouched, landedOps } from "../../session/test-files.js";
import { UserError } from "../../util/errors.js";
import { defineTool, READ_ONLY } from "../register.js";
import { issueLines } from "../respond.js";

const issueOut = z.object({
  file: z.string().optional(),
  hunk: z.number().optional(),
  message: z.string(),
  expected: z.array(z.string()).optional(),
  closest: z.object({ line: z.number(), text: z.array(z.string()), score: z.number() }).optional(),
  hint: z.string().optional(),
});

/** Turns a zod error on the candidate into issues naming the offending field. */
function shapeIssues(err: z.ZodError): CandidateIssue[] {
  return err.issues.map((i) => ({ message: `${i.path.join(".") || "candidate"}: ${i.message}` }));
}

/** An excerpt as a reader expects it: shared leading and trailing lines as context, the rest as -/+. */
export function excerptLines(before: string[], after: string[]): string[] {
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  return [
    ...before.slice(0, head).map((l) => `  ${l}`),
    ...before.slice(head, before.length - tail).map((l) => `- ${l}`),
    ...after.slice(head, after.length - tail).map((l) => `+ ${l}`),
    ...before.slice(before.length - tail).map((l) => `  ${l}`),
  ];
}

export function candidateTools(sessions: SessionManager) {
  const validate = defineTool({
    name: "trm_validate_candidate",
    description: "Dry run of a candidate: whether it applies, errors, warnings, preview. Writes nothing, runs nothing.",
    // The full candidate schema is advertised once, on trm_submit_candidate; here it is only referred to
    // (it is the largest schema of all) and checked in full on the server.
    input: { sessionId: z.string(), candidate: z.looseObject({}).describe("same as trm_submit_candidate") },
    output: {
      valid: z.boolean(),
      errors: z.array(issueOut),
      warnings: z.array(z.string()),
      preview: z
        .object({
          filesAffected: z.array(z.string()),
          linesAdded: z.number(),
          linesRemoved: z.number(),
          files: z.array(
            z.object({
              path: z.string(),
              status: z.string(),
              linesAdded: z.number(),
              linesRemoved: z.number(),
              excerpts: z.array(z.object({ startLine: z.number(), before: z.array(z.string()), after: z.array(z.string()) })),
            }),
          ),
        })
        .optional(),
      modeSuggestion: z.string().optional(),
    },
    hints: READ_ONLY,
    async run(args) {
      const s = await sessions.get(args.sessionId);
      const parsed = candidateSchema.safeParse(args.candidate);
      const invalid = (errors: CandidateIssue[]) => ({
        structured: { valid: false, errors, warnings: [] },
        text: ["not valid:", ...issueLines(errors)].join("\n"),
      });
      if (!parsed.success) return invalid(shapeIssues(parsed.error));
      return s.mutex.run(async () => {
        await s.sync();
        const reader = worktreeReader(s.worktree);
        let plan;
        try {
          plan = await planCandidate(parsed.data, reader);
          assertTestsUntouched(await landedOps(s.worktree, plan.ops), s.config.protectTests ?? []);
        } catch (err) {
          if (err instanceof CandidateError) return invalid(err.issues);
          if (err instanceof UserError) return invalid([{ message: err.message, hint: err.hint }]);
          throw err;
        }
        const [preview, modeSuggestion] = await Promise.all([previewPlan(plan, reader), suggestMode(parsed.data, plan, reader)]);
        const warnings = validationWarnings(plan);
        const text = [
          `valid: ${preview.filesAffected.length} files, +${preview.linesAdded} -${preview.linesRemoved}`,
          ...warnings.map((w) => `warning: ${w}`),
          ...preview.files.flatMap((f) => [
            `=== ${f.path} (${f.status}, +${f.linesAdded} -${f.linesRemoved})`,
            ...f.excerpts.flatMap((e) => [`@ line ${e.startLine}`, ...excerptLines(e.before, e.after)]),
          ]),
          ...(modeSuggestion ? [`tip: ${modeSuggestion}`] : []),
        ].join("\n");
        return { structured: { valid: true, errors: [], warnings, preview, ...(modeSuggestion ? { modeSuggestion } : {}) }, text };
      });
    },
  });
  return [validate];
}
