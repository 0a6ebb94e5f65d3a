import { type FileContext, lineAt, type Segment } from "./context.js";

/**
 * Block structure of JS/TS code, recovered from the masked code of each visible segment by brace
 * matching. A diff shows only part of a file, so a block is either fully visible (both braces in the
 * segment) or not; rules that need a whole function only use fully visible ones, and depth counts
 * start at zero at each segment start, which makes them lower bounds of the real depth.
 */

export type BlockKind = "function" | "control" | "class" | "other";

export interface Block {
  kind: BlockKind;
  segment: Segment;
  /** Offset of `{` in the segment text. */
  open: number;
  /** Offset of the matching `}`, or null when it lies outside the segment. */
  close: number | null;
  /** First line of the header (`async function f(` / `if (`) and line of `{`. */
  headerLine: number;
  openLine: number;
  closeLine: number | null;
  /** For control blocks: if / for / while / switch / catch / else / try / finally / do. */
  keyword?: string;
  /** For functions. */
  name?: string;
  isAsync: boolean;
  /** The function is passed as an argument (callback, event or route handler). */
  isCallback: boolean;
  /** For callbacks: the name of the called function or method (`on` of `bus.on(...)`). */
  callee?: string;
  /** Number of enclosing control blocks (within the segment) plus one if this is a control block. */
  controlDepth: number;
}

const CONTROL_PAREN = /(?:^|[^\w$.])(if|for|while|switch|catch|with)\s*(?:await\s*)?\([\s\S]*\)\s*$/;
const CONTROL_BARE = /(?:^|[^\w$.])(else|try|finally|do|catch)\s*$/;
const CLASS_HEAD = /(?:^|[^\w$.])(class|interface|enum|namespace|module)\b[^(){};]*$|(?:^|[^\w$.])class\b/;
const FUNCTION_KW = /(?:^|[^\w$.])function\b\s*\*?\s*([\w$]*)\s*(?:<[^(]*>)?\s*\([\s\S]*\)\s*(?::[\s\S]*)?$/;
const ARROW = /=>\s*$/;
const METHOD =
  /(?:^|[\s,;{}])(?:(?:public|private|protected|static|async|override|readonly|abstract|get|set|declare)\s+|\*\s*)*(#?[\w$]+)\s*(?:<[^()]*>)?\s*\([\s\S]*\)\s*(?::[\s\S]*)?$/;
const NOT_METHOD_NAMES = new Set(["if", "for", "while", "switch", "catch", "with", "function", "return", "typeof", "new", "await", "yield", "else", "do"]);

interface Header {
  text: string;
  start: number;
  /** The character where the backwards walk stopped: "(" means we are inside a call's arguments. */
  stop: string;
}

/** The headers that matter are short; bounding them keeps the regexes below linear in practice. */
const MAX_HEADER = 400;

/** Text before `{` back to the start of its statement (not crossing an enclosing parenthesis). */
function headerBefore(code: string, open: number): Header {
  let depth = 0;
  let k = open - 1;
  const limit = Math.max(0, open - MAX_HEADER);
  for (; k >= limit; k--) {
    const c = code[k]!;
    if (c === ")" || c === "]") depth++;
    else if (c === "(" || c === "[") {
      if (depth === 0) return { text: code.slice(k + 1, open), start: k + 1, stop: c };
      depth--;
    } else if ((c === ";" || c === "{" || c === "}") && depth === 0) {
      return { text: code.slice(k + 1, open), start: k + 1, stop: c };
    }
  }
  return { text: code.slice(k + 1, open), start: k + 1, stop: "" };
}

function classify(
  code: string,
  open: number,
): Omit<Block, "segment" | "open" | "close" | "headerLine" | "openLine" | "closeLine" | "controlDepth"> & { headerStart: number } {
  const h = headerBefore(code, open);
  const text = h.text;
  const trimmedStart = h.start + (text.length - text.trimStart().length);
  const base: { headerStart: number; isAsync: boolean; isCallback: boolean; callee?: string } = {
    headerStart: trimmedStart,
    isAsync: false,
    isCallback: false,
  };
  let m = CONTROL_PAREN.exec(text);
  if (m && /\)\s*$/.test(text)) return { ...base, kind: "control", keyword: m[1]! };
  m = CONTROL_BARE.exec(text);
  if (m) return { ...base, kind: "control", keyword: m[1]! };
  if (CLASS_HEAD.test(text) && !ARROW.test(text)) return { ...base, kind: "class" };
  const isAsync = /(?:^|[^\w$.])async\b/.test(text);
  // A function written as an argument, or as the value of a call's argument list.
  const isCallback = h.stop === "(" || h.stop === "[" || /^\s*,/.test(text);
  const callee = h.stop === "(" ? /([\w$]+)\s*$/.exec(code.slice(Math.max(0, h.start - 101), h.start - 1))?.[1] : undefined;
  if (callee) base.callee = callee;
  if (ARROW.test(text)) {
    // `const name = (...) =>`, or `name: (...) =>` / `name = (...) =>` (property, class field).
    const name =
      /(?:const|let|var)\s+([\w$]+)\s*(?::[^=]*)?=\s*(?:async\b)?/.exec(text)?.[1] ??
      /^\s*(?:(?:public|private|protected|static|readonly)\s+)*([\w$]+)\s*[:=]\s*(?:async\s*)?(?:\([^()]*\)|[\w$]+)\s*(?::[^=]*)?=>\s*$/.exec(text)?.[1];
    return { ...base, kind: "function", isAsync, isCallback, ...(name ? { name } : {}) };
  }
  m = FUNCTION_KW.exec(text);
  if (m) {
    const name = m[1] || /(?:const|let|var)\s+([\w$]+)\s*=/.exec(text)?.[1];
    return { ...base, kind: "function", isAsync, isCallback, ...(name ? { name } : {}) };
  }
  m = METHOD.exec(text);
  if (m && !NOT_METHOD_NAMES.has(m[1]!) && /\)\s*(?::[\s\S]*)?$/.test(text)) {
    return { ...base, kind: "function", isAsync, isCallback: false, name: m[1]! };
  }
  return { ...base, kind: "other" };
}

const cache = new WeakMap<FileContext, Block[]>();

/** All blocks of the visible JS/TS code of a file, in order of their opening brace (memoized). */
export function blocksOf(ctx: FileContext): Block[] {
  let blocks = cache.get(ctx);
  if (!blocks) {
    blocks = computeBlocks(ctx);
    cache.set(ctx, blocks);
  }
  return blocks;
}

function computeBlocks(ctx: FileContext): Block[] {
  if (!ctx.kind.isJsLike) return [];
  const out: Block[] = [];
  for (const seg of ctx.segments) {
    const code = seg.masked.code;
    const stack: Block[] = [];
    let controlDepth = 0;
    for (let i = 0; i < code.length; i++) {
      const c = code[i];
      if (c === "{") {
        const info = classify(code, i);
        const { headerStart, ...rest } = info;
        if (rest.kind === "control") controlDepth++;
        const block: Block = {
          ...rest,
          segment: seg,
          open: i,
          close: null,
          headerLine: lineAt(seg, headerStart),
          openLine: lineAt(seg, i),
          closeLine: null,
          controlDepth,
        };
        stack.push(block);
        out.push(block);
      } else if (c === "}") {
        const b = stack.pop();
        if (b) {
          b.close = i;
          b.closeLine = lineAt(seg, i);
          if (b.kind === "control") controlDepth--;
        }
      }
    }
  }
  return out;
}

/** The innermost fully visible function containing `offset` of `seg`, if any. */
export function enclosingFunction(blocks: Block[], seg: Segment, offset: number): Block | undefined {
  let best: Block | undefined;
  for (const b of blocks) {
    if (b.segment !== seg || b.kind !== "function" || b.close === null) continue;
    if (b.open < offset && offset < b.close && (!best || b.open > best.open)) best = b;
  }
  return best;
}
