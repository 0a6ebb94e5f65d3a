import ts from "typescript";
import type { FileContext } from "../context.js";

/**
 * The syntax tree of a whole new file (TypeScript compiler API, no program: parsing alone is a few
 * milliseconds per file). Rules that need to know what the code means, not how a line looks, walk it.
 * Only files whose whole content is known are parsed: a hunk is not a program.
 */

const KIND: Record<string, ts.ScriptKind> = { ts: ts.ScriptKind.TS, mts: ts.ScriptKind.TS, cts: ts.ScriptKind.TS, tsx: ts.ScriptKind.TSX, js: ts.ScriptKind.JS, mjs: ts.ScriptKind.JS, cjs: ts.ScriptKind.JS, jsx: ts.ScriptKind.JSX };

const cache = new WeakMap<FileContext, ts.SourceFile | null>();

export function sourceFileOf(ctx: FileContext): ts.SourceFile | null {
  if (cache.has(ctx)) return cache.get(ctx)!;
  const ext = ctx.file.path.slice(ctx.file.path.lastIndexOf(".") + 1).toLowerCase();
  const kind = KIND[ext];
  const sf = ctx.file.content !== undefined && kind !== undefined ? ts.createSourceFile(ctx.file.path, ctx.file.content, ts.ScriptTarget.Latest, true, kind) : null;
  cache.set(ctx, sf);
  return sf;
}

/** Whether the file is JS/TS with its whole content known, so tree rules replace the line rules. */
export function hasTree(ctx: FileContext): boolean {
  return ctx.kind.isJsLike && sourceFileOf(ctx) !== null;
}

/** 1-based line of a node's first token (not of its leading comments). */
export function lineOf(sf: ts.SourceFile, node: ts.Node): number {
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

/** Visits every node in source order. */
export function walk(node: ts.Node, visit: (n: ts.Node) => void): void {
  visit(node);
  node.forEachChild((c) => walk(c, visit));
}

/** The name a call is made through: `f` of `f()`, `query` of `db.query()`, `then` of `p.then()`. */
export function calleeName(call: ts.CallExpression): string | undefined {
  const e = call.expression;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return undefined;
}

/** The object of a method call (`db` of `db.query()`), as source text. */
export function receiverText(sf: ts.SourceFile, call: ts.CallExpression): string | undefined {
  const e = call.expression;
  return ts.isPropertyAccessExpression(e) ? e.expression.getText(sf) : undefined;
}

export function isFunctionLike(n: ts.Node): n is ts.FunctionLikeDeclaration {
  return ts.isFunctionDeclaration(n) || ts.isFunctionExpression(n) || ts.isArrowFunction(n) || ts.isMethodDeclaration(n) || ts.isConstructorDeclaration(n) || ts.isGetAccessor(n) || ts.isSetAccessor(n);
}

export function isAsync(n: ts.Node): boolean {
  return isFunctionLike(n) && (ts.getCombinedModifierFlags(n as ts.Declaration) & ts.ModifierFlags.Async) !== 0;
}

export function enclosingFunction(n: ts.Node): ts.FunctionLikeDeclaration | undefined {
  for (let p = n.parent; p; p = p.parent) if (isFunctionLike(p)) return p;
  return undefined;
}
