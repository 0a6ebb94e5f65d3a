import { astCodeQuality, hasTree } from "../ast/index.js";
import { explained } from "../ast/magic.js";
import type { FileContext } from "../context.js";
import { type Block, blocksOf, enclosingFunction } from "../structure.js";
import type { Finding } from "../types.js";
import { finding, RULES } from "./catalog.js";

/**
 * Per-file code-quality findings: magic numbers in logic, long lines, deep nesting and long
 * functions. (Duplicated blocks span files: see duplicates.ts.)
 */

export const MAX_NESTING = 4;
export const MAX_FUNCTION_LINES = 80;

/** Numbers that carry no hidden meaning: identities, halves, decimal bases. */
const OBVIOUS = new Set(["0", "1", "2", "-1", "10", "100", "1000", "0.5", "1.0", "0.0"]);

const NUMBER = /(?<![\w$.])(-?\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)(?![\w$.])/g;
const TIMER = /\b(setTimeout|setInterval|sleep|delay|wait)\s*\(/;

function magicContext(code: string, start: number, end: number): string | null {
  const before = code.slice(0, start);
  const after = code.slice(end);
  if (/(?:(?<![=<>])[<>]=?|[!=]==?)\s*$/.test(before) || /^\s*(?:[<>]=?(?![<>=])|[!=]==?)/.test(after)) return "a comparison";
  if (/[\w$)\]]\s*[*/%]\s*$/.test(before) || /^\s*[*/%]\s*[\w$(]/.test(after)) return "arithmetic";
  if (TIMER.test(before) && /[(,]\s*$/.test(before)) return "a delay";
  return null;
}

function magicNumbers(ctx: FileContext): Finding[] {
  const out: Finding[] = [];
  for (const l of ctx.addedLines) {
    // A declaration is how a number gets its name: `const MAX_RETRIES = 3` is the fix, not the issue.
    if (/^\s*(export\s+)?(const|enum|readonly|static\s+readonly|(public|private|protected)\s+(static\s+)?readonly)\b/.test(l.code)) continue;
    NUMBER.lastIndex = 0;
    for (let m = NUMBER.exec(l.code); m; m = NUMBER.exec(l.code)) {
      const value = m[1]!;
      if (OBVIOUS.has(value) || explained(Number(value.replace(/_/g, "")), value)) continue;
      // Tolerances (1e-9) and character codes (charCodeAt(i) === 13) are conventional, not magic.
      if (/e-\d+$/i.test(value) || /\b(?:charCodeAt|codePointAt|keyCode|which)\b/.test(l.code)) continue;
      // HTTP status codes are names in their own right.
      if (/^[1-5]\d\d$/.test(value) && /status|code/i.test(l.code)) continue;
      const where = magicContext(l.code, m.index, m.index + value.length);
      if (!where) continue;
      out.push(
        finding(RULES.magicNumber, l.line, `Magic number ${value} in ${where}: its meaning is not written down.`, {
          suggestion: `Give it a name, e.g. \`const MAX_… = ${value};\`, and use the constant.`,
        }),
      );
      break;
    }
  }
  return out;
}

/**
 * Lines over the limit the project itself sets (none set: no rule, the project has chosen not to
 * care). Only lines of pure code: a comment, string, template or regex on the line is text a
 * formatter will not break either, and tests are full of long titles and fixtures.
 */
function longLines(ctx: FileContext): Finding[] {
  const limit = ctx.project.maxLineLength;
  if (!limit || ctx.kind.isTest || !ctx.kind.isJsLike) return [];
  const out: Finding[] = [];
  for (const l of ctx.addedLines) {
    const text = l.raw.trimEnd();
    if (text.length <= limit) continue;
    if (l.code.trimEnd() !== text) continue;
    // URLs and import specifiers cannot be wrapped meaningfully.
    if (/https?:\/\//.test(text) || /^\s*(import|export)\b.*\bfrom\b/.test(l.code) || /^\s*import\s/.test(l.code)) continue;
    out.push(
      finding(RULES.longLine, l.line, `Line is ${text.length} characters long (the project's limit is ${limit}).`, {
        suggestion: "Wrap it or extract parts into named variables.",
      }),
    );
  }
  return out;
}

function deepNesting(ctx: FileContext, blocks: Block[]): Finding[] {
  const out: Finding[] = [];
  const reported = new Set<Block | string>();
  for (const b of blocks) {
    if (b.kind !== "control" || b.controlDepth !== MAX_NESTING + 1 || !ctx.addedSet.has(b.openLine)) continue;
    // Only nesting this change built: an added `if` at a depth the existing code already had
    // (a rewritten condition) is not the author's to restructure.
    const parent = blocks
      .filter((p) => p !== b && p.kind === "control" && p.segment === b.segment && p.open < b.open && (p.close === null || p.close > b.open))
      .pop();
    if (parent && !ctx.addedSet.has(parent.openLine)) continue;
    const fn = enclosingFunction(blocks, b.segment, b.open);
    const key = fn ?? `${b.segment.startLine}`;
    if (reported.has(key)) continue;
    reported.add(key);
    out.push(
      finding(
        RULES.deepNesting,
        b.openLine,
        `Control flow is nested ${b.controlDepth} levels deep here${fn?.name ? ` (in ${fn.name})` : ""}; it is hard to follow and to test.`,
        {
          suggestion: "Return early for edge cases, or extract the inner blocks into functions.",
        },
      ),
    );
  }
  return out;
}

function longFunctions(ctx: FileContext, blocks: Block[]): Finding[] {
  if (ctx.kind.isTest) return [];
  const out: Finding[] = [];
  for (const b of blocks) {
    if (b.kind !== "function" || b.closeLine === null || !ctx.addedSet.has(b.headerLine)) continue;
    const length = b.closeLine - b.headerLine + 1;
    if (length <= MAX_FUNCTION_LINES) continue;
    // Only when this change wrote most of it: a renamed parameter does not make a function long.
    let addedInside = 0;
    for (let ln = b.headerLine; ln <= b.closeLine; ln++) if (ctx.addedSet.has(ln)) addedInside++;
    if (addedInside * 2 < length) continue;
    out.push(
      finding(RULES.longFunction, b.headerLine, `Function ${b.name ? `${b.name} ` : ""}is ${length} lines long (over ${MAX_FUNCTION_LINES}).`, {
        suggestion: "Split it into smaller functions with descriptive names.",
      }),
    );
  }
  return out;
}

export function codeQuality(ctx: FileContext): Finding[] {
  const { kind } = ctx;
  if (kind.isGenerated || !kind.isCode) return [];
  const out = longLines(ctx);
  if (kind.isJsLike) {
    const blocks = blocksOf(ctx);
    // The syntax tree's version, on the whole file or on each hunk; the line-based one for what the parser did not read.
    const tree = astCodeQuality(ctx);
    out.push(...(tree.length > 0 || hasTree(ctx) || kind.isTest ? tree : magicNumbers(ctx)));
    out.push(...deepNesting(ctx, blocks), ...longFunctions(ctx, blocks));
  }
  return out;
}
