import type { Diagnostic } from "../../types.js";
import { normalizePath } from "../util.js";

/** What every diagnostics parser receives: the output without colour codes, split once. */
export interface DiagInput {
  text: string;
  lines: string[];
  cwd: string;
}

/** Builds a Diagnostic without undefined-valued keys (results compare equal to plain JSON). */
export function diag(
  source: string,
  severity: Diagnostic["severity"],
  message: string,
  at: { file?: string; line?: number; column?: number; code?: string },
  cwd: string,
): Diagnostic {
  const d: Diagnostic = { message, severity, source };
  if (at.file !== undefined && at.file !== "") d.file = normalizePath(at.file, cwd);
  if (at.line !== undefined && Number.isFinite(at.line)) d.line = at.line;
  if (at.column !== undefined && Number.isFinite(at.column)) d.column = at.column;
  if (at.code !== undefined && at.code !== "") d.code = at.code;
  // Key order is fixed so that JSON snapshots of results are stable.
  const ordered: Diagnostic = {} as Diagnostic;
  for (const k of ["file", "line", "column", "code", "message", "severity", "source"] as const) {
    if (d[k] !== undefined) (ordered as unknown as Record<string, unknown>)[k] = d[k];
  }
  return ordered;
}

/** Continuation lines of a message: the indented, non-blank lines right after a diagnostic line. */
export function continuation(lines: string[], from: number, isStart: (line: string) => boolean, max = 5): { extra: string[]; next: number } {
  const extra: string[] = [];
  let j = from;
  while (j < lines.length && extra.length < 50) {
    const l = lines[j]!;
    if (l.trim() === "" || !/^\s/.test(l) || isStart(l)) break;
    extra.push(l.trim());
    j++;
  }
  return { extra: extra.slice(0, max), next: j };
}
