import { astTesting } from "../ast/index.js";
import type { FileContext } from "../context.js";
import type { Category, Finding, ReviewComment } from "../types.js";
import { codeQuality } from "./code-quality.js";
import { duplicates } from "./duplicates.js";
import { errorHandling } from "./error-handling.js";
import { logging } from "./logging.js";
import { security } from "./security/index.js";
import { size } from "./size.js";
import { testing } from "./testing.js";
import { todos } from "./todos.js";
import { typeSafety } from "./type-safety.js";

/** Rules that look at one file at a time. */
const FILE_RULES: Array<{ category: Category; run: (ctx: FileContext) => Finding[] }> = [
  { category: "security", run: security },
  { category: "type-safety", run: typeSafety },
  { category: "error-handling", run: errorHandling },
  { category: "logging", run: logging },
  { category: "todos", run: todos },
  { category: "code-quality", run: codeQuality },
  { category: "testing", run: astTesting },
];

/** Rules that look at the change as a whole. */
const CHANGE_RULES: Array<{ category: Category; run: (contexts: FileContext[]) => ReviewComment[] }> = [
  { category: "code-quality", run: duplicates },
  { category: "testing", run: (contexts) => testing(contexts, contexts[0]?.project.title) },
  { category: "size", run: size },
];

/**
 * Runs the rules of the selected categories and returns comments on added lines only (a rule that
 * reports a context line is a bug: the line is not part of the change).
 */
export function runRules(contexts: FileContext[], categories: ReadonlySet<Category>): ReviewComment[] {
  const out: ReviewComment[] = [];
  const off = new Set(contexts[0]?.project.off ?? []);
  for (const ctx of contexts) {
    if (ctx.file.binary || ctx.addedLines.length === 0) continue;
    for (const rule of FILE_RULES) {
      if (!categories.has(rule.category)) continue;
      for (const f of rule.run(ctx)) {
        if (categories.has(f.category) && ctx.addedSet.has(f.line) && !off.has(f.rule)) out.push({ file: ctx.file.path, ...f });
      }
    }
  }
  const byPath = new Map(contexts.map((c) => [c.file.path, c]));
  for (const rule of CHANGE_RULES) {
    if (!categories.has(rule.category)) continue;
    for (const c of rule.run(contexts)) {
      if (categories.has(c.category) && byPath.get(c.file)?.addedSet.has(c.line)) out.push(c);
    }
  }
  return out;
}
