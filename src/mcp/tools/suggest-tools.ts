import { z } from "zod";
import { candidateSchema } from "../../candidate/schema.js";
import type { SessionManager } from "../../session/manager.js";
import { getSuggestions, PRIORITIES, suggestFixes } from "../../suggest/index.js";
import { defineTool, READ_ONLY } from "../register.js";

const sessionId = z.string().describe("from trm_start_session");
const priority = z.enum(PRIORITIES);

const suggestionOut = z.object({
  priority,
  category: z.string(),
  message: z.string(),
  file: z.string().optional(),
  line: z.number().optional(),
  action: z.string(),
});

const fixOut = z.object({
  priority,
  issue: z.string(),
  candidateToFix: candidateSchema,
  rationale: z.string(),
  fixer: z.enum(["typescript", "eslint", "rule", "ruff", "ruff-format", "autoflake", "gofmt", "goimports", "clippy"]),
  files: z.array(z.string()),
});

const where = (s: { file?: string; line?: number }) => (s.file ? ` ${s.file}${s.line ? `:${s.line}` : ""}` : "");

export function suggestTools(sessions: SessionManager) {
  const suggestions = defineTool({
    name: "trm_get_suggestions",
    description: "Top 5 prioritized fixes: build errors, new failures, regressions, code smells.",
    input: { sessionId },
    output: { step: z.number(), suggestions: z.array(suggestionOut), omitted: z.number(), notes: z.array(z.string()) },
    hints: READ_ONLY,
    async run(args) {
      const s = await sessions.get(args.sessionId);
      const r = await getSuggestions(s);
      const text = [
        ...r.suggestions.map((x, i) => `${i + 1}. [${x.priority}] ${x.category}${where(x)}: ${x.message}\n   → ${x.action}`),
        ...(r.omitted ? [`(${r.omitted} more not shown)`] : []),
        ...r.notes.map((n) => `note: ${n}`),
      ].join("\n");
      return { structured: r, text: text || "no suggestions" };
    },
  });

  const fix = defineTool({
    name: "trm_suggest_fix",
    description: "Validated candidates fixing the last errors with the repo's own fixers.",
    input: { sessionId },
    output: {
      step: z.number(),
      suggestions: z.array(fixOut),
      dropped: z.number(),
      notes: z.array(z.string()),
      timings: z.object({ typescriptMs: z.number().optional(), eslintMs: z.number().optional(), totalMs: z.number() }),
    },
    // Read-only for the session: fixers run in memory or in a scratch copy, never in the worktree.
    hints: READ_ONLY,
    async run(args, ctx) {
      const s = await sessions.get(args.sessionId);
      const r = await suggestFixes(s, ctx);
      const text = [
        ...r.suggestions.map(
          (x, i) => `${i + 1}. [${x.priority}] ${x.fixer}: ${x.issue}\n   ${x.rationale}\n   candidate: ${JSON.stringify(x.candidateToFix)}`,
        ),
        ...(r.dropped ? [`${r.dropped} fix(es) dropped: they did not apply or did not remove the error`] : []),
        ...r.notes.map((n) => `note: ${n}`),
      ].join("\n");
      return { structured: r, text: text || "no fix found" };
    },
  });

  return [suggestions, fix];
}
