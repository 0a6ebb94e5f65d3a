import type { FileContext } from "../context.js";
import type { ReviewComment } from "../types.js";
import { finding, RULES } from "./catalog.js";

/**
 * Large changesets are hard to review well. Only source lines count: generated and lock files,
 * tests and documentation are read quickly (a regenerated package-lock.json or a long test table
 * does not make a change harder to review).
 */
export const LARGE_LINES = 400;
export const HUGE_LINES = 1000;
export const MANY_FILES = 50;

const isCounted = (c: FileContext): boolean => c.kind.isCode && !c.kind.isGenerated && !c.kind.isTest && !c.kind.isDoc && !c.kind.isScript;

export function changeSize(contexts: FileContext[]): { lines: number; files: number } {
  const counted = contexts.filter(isCounted);
  return { lines: counted.reduce((n, c) => n + c.file.linesAdded + c.file.linesRemoved, 0), files: counted.length };
}

export function size(contexts: FileContext[]): ReviewComment[] {
  const { lines, files } = changeSize(contexts);
  if (lines <= LARGE_LINES && files <= MANY_FILES) return [];
  const anchor = contexts.find((c) => isCounted(c) && c.addedLines.length > 0);
  if (!anchor) return [];
  const huge = lines > HUGE_LINES;
  const f = finding(
    RULES.largeChange,
    anchor.addedLines[0]!.line,
    `Large change: ${lines} lines in ${files} files (source only: tests, docs and generated files not counted); large reviews miss more defects.`,
    {
      severity: huge ? "warning" : "info",
      suggestion: "Split it into smaller changes that can be reviewed (and reverted) independently.",
    },
  );
  return [{ file: anchor.file.path, ...f }];
}
