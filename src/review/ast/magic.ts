import ts from "typescript";
import type { FileContext } from "../context.js";
import { finding, RULES } from "../rules/catalog.js";
import type { Finding } from "../types.js";
import { lineOf, walk } from "./parse.js";

/**
 * Magic numbers: a literal in a comparison or arithmetic whose meaning is not written down. Not
 * reported where a well-known constant explains it: time (24, 60, 1000, 3600, 86400, 365 ...),
 * sizes and bits (8, 16, 255, 1024, powers of two, hex), HTTP statuses next to a status, character
 * codes, and values that the statement names (`const timeoutMs = n * 250`).
 */

const OBVIOUS = new Set([0, 1, 2, 3, 4, 5, 10, 100, 1000, 0.5, -1]);
const TIME = new Set([7, 12, 23, 24, 28, 29, 30, 31, 52, 59, 60, 90, 120, 180, 300, 360, 365, 366, 600, 900, 1440, 3600, 86400, 604800, 1e6, 1e9]);
const COMPARISON = new Set([
  ts.SyntaxKind.LessThanToken,
  ts.SyntaxKind.LessThanEqualsToken,
  ts.SyntaxKind.GreaterThanToken,
  ts.SyntaxKind.GreaterThanEqualsToken,
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);
const ARITHMETIC = new Set([
  ts.SyntaxKind.AsteriskToken,
  ts.SyntaxKind.SlashToken,
  ts.SyntaxKind.PercentToken,
  ts.SyntaxKind.MinusToken,
  ts.SyntaxKind.PlusToken,
]);

export function explained(value: number, raw: string): boolean {
  if (OBVIOUS.has(value) || TIME.has(value)) return true;
  // Milliseconds or seconds of a time unit: 60000 (a minute), 86400000 (a day).
  if (value % 1000 === 0 && (TIME.has(value / 1000) || TIME.has(value / 60_000))) return true;
  if (value % 60 === 0 && TIME.has(value / 60)) return true;
  if (/^0[xXbBoO]/.test(raw) || /[eE]/.test(raw) || /_/.test(raw)) return true; // written in a base or scale: a bit mask or a size
  if (Number.isInteger(value) && value > 0 && (value & (value - 1)) === 0) return true; // powers of two: sizes and bits
  if (Number.isInteger(value) && value > 0 && ((value + 1) & value) === 0) return true; // 255, 65535: masks
  if (value > 0 && value < 1) return true; // ratios and probabilities read as themselves
  return false;
}

/** The statement names the value: `const x = ...`, an enum member, a property or a default parameter. */
function named(n: ts.Node): boolean {
  for (let p = n.parent; p && !ts.isBlock(p) && !ts.isSourceFile(p); p = p.parent) {
    if (ts.isVariableDeclaration(p) || ts.isEnumMember(p) || ts.isPropertyDeclaration(p) || ts.isPropertyAssignment(p) || ts.isParameter(p)) return true;
    if (ts.isCallExpression(p) || ts.isReturnStatement(p) || ts.isIfStatement(p)) return false;
  }
  return false;
}

export function magicNumbers(ctx: FileContext, sf: ts.SourceFile): Finding[] {
  if (ctx.kind.isTest || ctx.kind.isGenerated || ctx.kind.isScript) return [];
  const out: Finding[] = [];
  const seen = new Set<number>();
  walk(sf, (n) => {
    if (!ts.isNumericLiteral(n) || !ts.isBinaryExpression(n.parent)) return;
    const line = lineOf(sf, n);
    if (!ctx.addedSet.has(line) || seen.has(line)) return;
    const bin = n.parent;
    const op = bin.operatorToken.kind;
    const isCmp = COMPARISON.has(op);
    if (!isCmp && !ARITHMETIC.has(op)) return;
    const value = Number(n.text);
    if (explained(value, n.getText(sf))) return;
    const other = (bin.left === n ? bin.right : bin.left).getText(sf);
    if (/status|code|charCode|codePoint|keyCode|which|\bch\b|char/i.test(other) || /version|major|minor|node/i.test(other)) return;
    if (!isCmp && (op === ts.SyntaxKind.PlusToken || op === ts.SyntaxKind.MinusToken)) return; // offsets: `i + 3`, `len - 4`
    if (named(bin)) return;
    seen.add(line);
    out.push(
      finding(RULES.magicNumber, line, `Magic number ${n.text} in ${isCmp ? "a comparison" : "arithmetic"}: its meaning is not written down.`, {
        suggestion: `Give it a name, e.g. \`const MAX_… = ${n.text};\`, and use the constant.`,
      }),
    );
  });
  return out;
}
