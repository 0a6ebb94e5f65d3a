import { lineAt, type FileContext } from "../context.js";
import { blocksOf, type Block } from "../structure.js";
import type { Finding } from "../types.js";
import { RULES, finding } from "./catalog.js";

/**
 * Error-handling findings. Each one needs the whole construct in view (a catch block with both
 * braces, an async function from header to closing brace), so nothing is claimed about code the
 * diff does not show.
 */

const LOG_CALL = /(?<![\w$])(console|logger|log|this\.logger|this\.log)\s*\.\s*(log|error|warn|info|debug|trace)\s*\(/;
const CATCH_ARROW = /\.catch\s*\(\s*(?:async\s*)?(?:\([^()]*\)|[\w$]+)\s*(?::[^=]*)?=>\s*$/;
const CATCH_FUNCTION = /\.catch\s*\(\s*(?:async\s+)?function\b[^(]*\([^()]*\)\s*$/;
/**
 * Callers that do not wait for the callback's promise (event emitters, timers, forEach, the Promise
 * executor, Express 4 route methods): a rejection there is an unhandled rejection, not an error the
 * caller sees.
 */
const FIRE_AND_FORGET = new Set([
  "on", "once", "addListener", "prependListener", "addEventListener", "setTimeout", "setInterval", "setImmediate",
  "nextTick", "queueMicrotask", "forEach", "Promise", "get", "post", "put", "patch", "delete", "del", "all", "use", "options",
]);

/** Wrappers that route an async handler's rejection to an error handler. */
const ASYNC_WRAPPER = /\b(asyncHandler|catchAsync|wrapAsync|asyncWrap|expressAsyncHandler|withErrorHandling|tryCatch)\s*\(\s*$/;

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
      if (param && comments.trim() === "" && LOG_CALL.test(code) && !new RegExp(`(?<![\\w$.])${param.replace(/\$/g, "\\$")}(?![\\w$])`).test(code) && !/\bthrow\b/.test(code)) {
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

function unhandledAwaits(ctx: FileContext, blocks: Block[]): Finding[] {
  const out: Finding[] = [];
  for (let index = 0; index < blocks.length; index++) {
    const fn = blocks[index]!;
    if (fn.kind !== "function" || !fn.isAsync || fn.close === null) continue;
    const { code } = body(fn);
    if (/(?<![\w$.])try\s*\{/.test(code) || /\.catch\s*\(/.test(code) || /\ballSettled\b/.test(code)) continue;
    if (fn.isCallback && ASYNC_WRAPPER.test(before(fn).replace(/(?:async\s*)?(?:\([^()]*\)|[\w$]+)\s*(?::[^=]*)?=>\s*$/, ""))) continue;
    // Awaits of nested functions belong to them.
    // Blocks are in source order, so the ones inside fn directly follow it.
    const nested: Block[] = [];
    for (let k = index + 1; k < blocks.length; k++) {
      const b = blocks[k]!;
      if (b.segment !== fn.segment || b.open > fn.close) break;
      if (b.kind === "function") nested.push(b);
    }
    const re = /(?<![\w$.])await(?![\w$])/g;
    const base = fn.open + 1;
    for (let m = re.exec(code); m; m = re.exec(code)) {
      const off = base + m.index;
      if (nested.some((b) => off > b.open && (b.close === null || off < b.close))) continue;
      const ln = lineAt(fn.segment, off);
      if (!ctx.addedSet.has(ln)) break;
      const name = fn.name ? ` in ${fn.name}` : "";
      out.push(
        fn.isCallback && fn.callee !== undefined && FIRE_AND_FORGET.has(fn.callee)
          ? finding(RULES.unhandledAwait, ln, `await${name} inside a callback with no try/catch: a rejection becomes an unhandled promise rejection (the caller does not await it).`, {
              severity: "warning",
              suggestion: "Wrap the body in try/catch and handle or report the error.",
            })
          : finding(RULES.unhandledAwait, ln, `await${name} has no error handling in this function (no try/catch or .catch): a rejection propagates to every caller.`, {
              suggestion: "If callers are not expected to handle it, catch it here with context (try/catch) and decide what to return or rethrow.",
            }),
      );
      break;
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
      const nextIndentDeeper = after === undefined || after.raw.trim() === "" || (/^\s*/.exec(after.raw)![0].length <= m[1]!.length);
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
  return [...catchBlocks(ctx, blocks), ...unhandledAwaits(ctx, blocks)];
}
