import type { FileContext } from "../context.js";
import type { Finding } from "../types.js";
import { finding, RULES } from "./catalog.js";

/**
 * Debug console output in JS/TS source. Not flagged: tests, CLIs and scripts (printing is their job),
 * console.error / console.warn (the usual way to report problems, and the only safe channel for a
 * stdio server), and lines where an eslint directive allows it.
 */
const CONSOLE = /(?<![\w$.])console\s*\.\s*(log|debug|trace|dir|dirxml|table)\s*\(/;

export function logging(ctx: FileContext): Finding[] {
  const { kind } = ctx;
  if (!kind.isJsLike || kind.isTest || kind.isScript || kind.isGenerated) return [];
  const out: Finding[] = [];
  for (const l of ctx.addedLines) {
    const m = CONSOLE.exec(l.code);
    if (!m) continue;
    const prev = ctx.lines.get(l.line - 1);
    if (/no-console/.test(l.comment) || (prev && /eslint-disable-next-line[^\n]*no-console/.test(prev.comment))) continue;
    out.push(
      finding(RULES.console, l.line, `console.${m[1]} left in source code: it prints in production and clutters the output.`, {
        suggestion: "Remove it, or use the project's logger with an appropriate level.",
      }),
    );
  }
  return out;
}
