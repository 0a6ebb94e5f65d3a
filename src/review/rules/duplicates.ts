import { codeSpan } from "../../util/text.js";
import type { FileContext } from "../context.js";
import type { ReviewComment } from "../types.js";
import { finding, RULES } from "./catalog.js";

/**
 * Blocks of code added twice within the same change (in one file or across files): copy-paste that
 * should be one function. Only meaningful lines count (not blank, comment-only, braces or imports),
 * and a block must have at least {@link MIN_LINES} of them with some substance, so that ordinary
 * repeated boilerplate (`} else {`, `break;`) is not reported.
 */

export const MIN_LINES = 6;
const MIN_CHARS = 150;

interface Entry {
  file: FileContext;
  line: number;
  text: string;
}

function meaningfulRuns(ctx: FileContext): Entry[][] {
  const runs: Entry[][] = [];
  let run: Entry[] = [];
  let last = -2;
  for (const l of ctx.addedLines) {
    if (l.line !== last + 1 && run.length) {
      runs.push(run);
      run = [];
    }
    last = l.line;
    if (l.code.trim() === "") continue;
    const text = l.raw.trim().replace(/\s+/g, " ");
    if (/^[{}()[\];,]*$/.test(text) || /^(?:\}?\s*else\s*\{?|break;?|continue;?|return;?|default:)$/.test(text)) continue;
    if (/^(?:import\b|export\s+\{|export\s+\*|from\s+\S+\s+import\b|#include\b|using\s)/.test(text) || /\brequire\s*\(/.test(text)) continue;
    run.push({ file: ctx, line: l.line, text });
  }
  if (run.length) runs.push(run);
  return runs;
}

export function duplicates(contexts: FileContext[]): ReviewComment[] {
  const out: ReviewComment[] = [];
  const firstSeen = new Map<string, { file: FileContext; run: Entry[]; index: number }>();
  for (const ctx of contexts) {
    const { kind } = ctx;
    if (!kind.isCode || kind.isTest || kind.isGenerated) continue;
    for (const run of meaningfulRuns(ctx)) {
      let coveredUntil = -1;
      for (let i = 0; i + MIN_LINES <= run.length; i++) {
        const window = run.slice(i, i + MIN_LINES);
        const key = window.map((e) => e.text).join("\n");
        if (key.length < MIN_CHARS) continue;
        const seen = firstSeen.get(key);
        if (!seen) {
          firstSeen.set(key, { file: ctx, run, index: i });
          continue;
        }
        // Overlapping windows of one run (a repeated line pattern) are not a second copy.
        if (seen.run === run && i - seen.index < MIN_LINES) continue;
        if (i < coveredUntil) {
          coveredUntil = i + MIN_LINES;
          continue;
        }
        coveredUntil = i + MIN_LINES;
        const first = seen.run[seen.index]!;
        const where = seen.file === ctx ? `line ${first.line}` : codeSpan(`${seen.file.file.path}:${first.line}`);
        const f = finding(RULES.duplicateBlock, window[0]!.line, `This block repeats the code added at ${where}.`, {
          suggestion: "Extract the shared code into one function and call it from both places.",
        });
        out.push({ file: ctx.file.path, ...f });
      }
    }
  }
  return out;
}
