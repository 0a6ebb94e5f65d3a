import { astErrorHandling } from "../ast/index.js";
import type { FileContext } from "../context.js";
import { type Block, blocksOf } from "../structure.js";
import type { Finding } from "../types.js";
import { finding, RULES } from "./catalog.js";

/**
 * Error-handling findings. Each one needs the whole construct in view (a catch block with both
 * braces; floating promises need the whole file's syntax tree), so nothing is claimed about code the
 * diff does not show. "await without try/catch" is not a finding: letting errors propagate to the
 * caller (`await next()`) is the normal, intended case.
 */

const LOG_CALL = /(?<![\w$])(console|logger|log|this\.logger|this\.log)\s*\.\s*(log|error|warn|info|debug|trace)\s*\(/;
const CATCH_ARROW = /\.catch\s*\(\s*(?:async\s*)?(?:\([^()]*\)|[\w$]+)\s*(?::[^=]*)?=>\s*$/;
const CATCH_FUNCTION = /\.catch\s*\(\s*(?:async\s+)?function\b[^(]*\([^()]*\)\s*$/;
function body(b: Block): { code: string; comments: string } {
  const close = b.close ?? b.open;
  return {
    code: b.segment.masked.code.slice(b.open + 1, close),
    comments: b.segment.masked.comments.slice(b.open + 1, close),
  };
}

function before(b: Block, chars = 300): string {
  return b.segment.masked.code.slice(Math.max(0, b.open - chars), b.open);
}

function catchBlocks(ctx: FileContext, blocks: Block[]): Finding[] {
  const out: Finding[] = [];
  for (const b of blocks) {
    if (b.close === null || !ctx.addedSet.has(b.openLine)) continue;
    const { code, comments } = body(b);
    const isEmpty = code.trim() === "" && comments.trim() === "";
    if (b.kind === "control" && b.keyword === "catch") {
      if (isEmpty) {
        out.push(
          finding(RULES.emptyCatch, b.openLine, "Empty catch block: the error disappears without a trace.", {
            suggestion: "Handle it, rethrow it, or log it; if ignoring is intended, say why in a comment.",
          }),
        );
        continue;
      }
      const param = /catch\s*\(\s*([\w$]+)/.exec(before(b, 200))?.[1];
      if (
        param &&
        comments.trim() === "" &&
        LOG_CALL.test(code) &&
        !new RegExp(`(?<![\\w$.])${param.replace(/\$/g, "\\$")}(?![\\w$])`).test(code) &&
        !/\bthrow\b/.test(code)
      ) {
        out.push(
          finding(RULES.swallowedError, b.openLine, `The catch block logs a message but drops \`${param}\`: the cause and stack trace are lost.`, {
            suggestion: `Include \`${param}\` in the log call (or rethrow it with a cause).`,
          }),
        );
      }
    } else if (b.kind === "function" && isEmpty) {
      const head = before(b);
      if (CATCH_ARROW.test(head) || CATCH_FUNCTION.test(head)) {
        out.push(
          finding(RULES.emptyCatch, b.openLine, "`.catch(() => {})` swallows every rejection of this promise.", {
            suggestion: "Handle or log the error; if ignoring it is intended, write `.catch(() => undefined)` with a comment saying why.",
          }),
        );
      }
    }
  }
  return out;
}

/** Python: `except ...:` whose body is only `pass` (and no comment saying why). */
function pythonBareExcept(ctx: FileContext): Finding[] {
  const out: Finding[] = [];
  for (const l of ctx.addedLines) {
    const m = /^(\s*)except\b[^:]*:\s*(pass)?\s*$/.exec(l.code);
    if (!m || l.comment.trim() !== "") continue;
    let empty = m[2] === "pass";
    if (!empty) {
      const next = ctx.lines.get(l.line + 1);
      const after = ctx.lines.get(l.line + 2);
      const nextIndentDeeper = after === undefined || after.raw.trim() === "" || /^\s*/.exec(after.raw)![0].length <= m[1]!.length;
      empty = next !== undefined && /^\s*pass\s*$/.test(next.code) && next.comment.trim() === "" && nextIndentDeeper;
    }
    if (empty) {
      out.push(
        finding(RULES.emptyCatch, l.line, "`except` with only `pass`: the exception disappears without a trace.", {
          suggestion: "Handle or log it; if ignoring is intended, catch the narrowest exception and say why in a comment.",
        }),
      );
    }
  }
  return out;
}

export function errorHandling(ctx: FileContext): Finding[] {
  // Tests let errors fail the test on purpose, and probe error paths with bare try/catch.
  if (ctx.kind.isGenerated || ctx.kind.isTest) return [];
  if (ctx.kind.syntax === "python") return pythonBareExcept(ctx);
  if (!ctx.kind.isJsLike) return [];
  const blocks = blocksOf(ctx);
  return [...catchBlocks(ctx, blocks), ...astErrorHandling(ctx)];
}
