import ts from "typescript";
import type { FileContext } from "../context.js";
import { finding, RULES } from "../rules/catalog.js";
import { looksLikeSql } from "../rules/security/injection.js";
import { isSafeInterpolation } from "../rules/security/util.js";
import type { Finding } from "../types.js";
import { calleeName, lineOf, walk } from "./parse.js";

/**
 * SQL injection (CWE-89) on the syntax tree: SQL text built with `+`, `+=` or an untagged template
 * from a non-constant value, that reaches a query call (directly, or through a variable passed to
 * one). Tagged templates (sql`...`) are parameterised by the tag; values in identifier positions
 * (table names after FROM / JOIN / INTO) come from code far more often than from users.
 */

const QUERY_METHODS = new Set([
  "query",
  "execute",
  "exec",
  "raw",
  "run",
  "all",
  "get",
  "prepare",
  "unsafe",
  "$queryRawUnsafe",
  "$executeRawUnsafe",
  "queryRaw",
  "executeRaw",
  "whereRaw",
  "sql",
]);
const IDENT_POSITION = /(?:\bFROM|\bJOIN|\bINTO|\bUPDATE|\bTABLE|\.)\s*["`]?$/i;

function isConstant(e: ts.Expression): boolean {
  if (ts.isStringLiteralLike(e) || ts.isNumericLiteral(e)) return true;
  // A list of bind placeholders built from the values (`ids.map(() => "?").join(", ")`), as the line rule reads it.
  if (isSafeInterpolation(e.getText())) return true;
  if (ts.isIdentifier(e)) return /^[A-Z][A-Z0-9_]*$/.test(e.text);
  if (ts.isPropertyAccessExpression(e))
    return (/^[A-Z][A-Z0-9_]*$/.test(e.name.text) && isConstant(e.expression as ts.Expression)) || /^[A-Z][A-Z0-9_]*$/.test(e.getText());
  if (ts.isParenthesizedExpression(e)) return isConstant(e.expression);
  return false;
}

/** Flattens a `+` chain into its operands. */
function operands(e: ts.Expression): ts.Expression[] {
  if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) return [...operands(e.left), ...operands(e.right)];
  if (ts.isParenthesizedExpression(e)) return operands(e.expression);
  return [e];
}

/** Whether `e` is SQL text with a value spliced in, given the SQL that precedes it (for `+=`). */
function dynamicSql(e: ts.Expression, sqlBefore: string): boolean {
  let sql = sqlBefore;
  let dynamic = false;
  for (const op of operands(e)) {
    if (ts.isStringLiteralLike(op)) sql += op.text;
    else if (ts.isTemplateExpression(op)) {
      sql += op.head.text;
      for (const span of op.templateSpans) {
        if (!isConstant(span.expression) && !IDENT_POSITION.test(sql)) dynamic = true;
        sql += `?${span.literal.text}`;
      }
    } else {
      if (!isConstant(op) && !IDENT_POSITION.test(sql)) dynamic = true;
      sql += "?";
    }
  }
  return dynamic && looksLikeSql(sql);
}

function sqlText(e: ts.Expression): string {
  return operands(e)
    .map((op) => (ts.isStringLiteralLike(op) ? op.text : ts.isTemplateExpression(op) ? op.head.text : "?"))
    .join("");
}

export function sqlInjection(ctx: FileContext, sf: ts.SourceFile): Finding[] {
  if (ctx.kind.isTest || ctx.kind.isGenerated) return [];
  // Variables holding SQL: their text so far, and the line where a value was spliced in.
  const vars = new Map<string, { sql: string; taintedAt: number | null }>();
  const out: Finding[] = [];
  const reported = new Set<number>();
  const report = (line: number): void => {
    if (!ctx.addedSet.has(line) || reported.has(line)) return;
    reported.add(line);
    out.push(
      finding(RULES.sqlInjection, line, "SQL built from a non-constant value reaches a query call: values in it can change the query (SQL injection).", {
        suggestion: "Use bind parameters (`WHERE id = ?` / `$1` with a values array) or a query builder; never splice values into SQL text.",
      }),
    );
  };
  walk(sf, (n) => {
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer && !ts.isTaggedTemplateExpression(n.initializer)) {
      const text = sqlText(n.initializer);
      if (looksLikeSql(text) || vars.has(n.name.text))
        vars.set(n.name.text, { sql: text, taintedAt: dynamicSql(n.initializer, "") ? lineOf(sf, n.initializer) : null });
    } else if (ts.isBinaryExpression(n) && ts.isIdentifier(n.left) && vars.has(n.left.text)) {
      const v = vars.get(n.left.text)!;
      if (n.operatorToken.kind === ts.SyntaxKind.PlusEqualsToken) {
        if (v.taintedAt === null && dynamicSql(n.right, v.sql)) v.taintedAt = lineOf(sf, n.right);
        v.sql += sqlText(n.right);
      } else if (n.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
        v.sql = sqlText(n.right);
        v.taintedAt = dynamicSql(n.right, "") ? lineOf(sf, n.right) : null;
      }
    } else if (ts.isCallExpression(n)) {
      const name = calleeName(n);
      if (!name || !QUERY_METHODS.has(name)) return;
      const arg = n.arguments[0];
      if (!arg) return;
      if (ts.isIdentifier(arg)) {
        const v = vars.get(arg.text);
        if (v?.taintedAt != null && looksLikeSql(v.sql)) report(ctx.addedSet.has(v.taintedAt) ? v.taintedAt : lineOf(sf, n));
      } else if (!ts.isTaggedTemplateExpression(arg) && dynamicSql(arg, "")) {
        report(lineOf(sf, arg));
      }
    }
  });
  return out;
}
