import type { LineView } from "../../context.js";
import { type Masked, type StringLit, stringAt } from "../../lex.js";

/** Helpers shared by the security rules: they look at raw text but only where it is code. */

/** Offset of column `col` of a line within its segment. */
export function offsetOf(l: LineView, col: number): number {
  return l.segment.lineStarts[l.line - l.segment.startLine]! + col;
}

/** Runs `re` on the raw line and keeps the first match that starts in code (not in a string or comment). */
export function matchInCode(l: LineView, re: RegExp): RegExpExecArray | null {
  const g = new RegExp(re.source, re.flags.includes("g") ? re.flags : `${re.flags}g`);
  for (let m = g.exec(l.raw); m; m = g.exec(l.raw)) {
    if (l.code[m.index] === l.raw[m.index] && l.raw[m.index] !== " ") return m;
    if (m[0].length === 0) g.lastIndex++;
  }
  return null;
}

/** Runs `re` on the raw line and keeps the first match that does not start in a comment. */
export function matchOutsideComments(l: LineView, re: RegExp): RegExpExecArray | null {
  const g = new RegExp(re.source, re.flags.includes("g") ? re.flags : `${re.flags}g`);
  for (let m = g.exec(l.raw); m; m = g.exec(l.raw)) {
    if (l.comment[m.index] === " " || l.comment[m.index] === undefined) return m;
    if (m[0].length === 0) g.lastIndex++;
  }
  return null;
}

/** The string literal that starts at `offset` of the line's segment. */
export function stringStartingAt(l: LineView, offset: number): StringLit | undefined {
  return stringAt(l.segment.masked, offset);
}

/** Interpolations that cannot carry attacker input: constants, numbers, bind-parameter placeholders. */
export function isSafeInterpolation(expr: string): boolean {
  const e = expr.trim();
  return /^[A-Z][A-Z0-9_]*(\.[A-Z][A-Z0-9_]*)*$/.test(e) || /^\d+$/.test(e) || /["'`]\?["'`]|["'`]\$["'`]/.test(e);
}

export type Operand = { kind: "literal"; lit: StringLit } | { kind: "constant" } | { kind: "dynamic" };

/**
 * Starting after a string literal, follows a `+` concatenation chain through the masked code and
 * lists its operands: literals, constants (UPPER_CASE names) and anything else (dynamic).
 */
export function concatOperands(masked: Masked, from: number): Operand[] {
  const code = masked.code;
  const out: Operand[] = [];
  let i = from;
  for (let guard = 0; guard < 50; guard++) {
    while (i < code.length && /\s/.test(code[i]!)) i++;
    if (code[i] !== "+" || code[i + 1] === "+" || code[i + 1] === "=") break;
    i++;
    while (i < code.length && /\s/.test(code[i]!)) i++;
    const lit = stringAt(masked, i);
    if (lit) {
      out.push({ kind: "literal", lit });
      i = lit.end;
      continue;
    }
    const ident = /^[A-Z][A-Z0-9_]*(?![\w$.([])/.exec(code.slice(i));
    if (ident) {
      out.push({ kind: "constant" });
      i += ident[0].length;
      continue;
    }
    out.push({ kind: "dynamic" });
    // Skip the operand (a name, member chain or call) to see whether the chain goes on.
    const operand = /^(?:[\w$.]+|\([^()]*\)|\[[^\]]*\])+/.exec(code.slice(i));
    if (!operand) break;
    i += operand[0].length;
  }
  return out;
}

/** Whether a concatenation chain after a literal has a non-constant operand. */
export function concatIsDynamic(masked: Masked, from: number): boolean {
  return concatOperands(masked, from).some((o) => o.kind === "dynamic" || (o.kind === "literal" && o.lit.interpolations.some((x) => !isSafeInterpolation(x))));
}
