import ts from "typescript";
import { parseScript, scriptKindOf } from "../../util/syntax.js";
import type { FileContext } from "../context.js";

/**
 * The syntax tree of a whole new file (TypeScript compiler API, no program: parsing alone is a few
 * milliseconds per file). Rules that need to know what the code means, not how a line looks, walk it.
 * With only a diff, each hunk's new side (context and added lines) is parsed on its own: the parser
 * recovers from the partial code, and rules report only on added lines (runRules).
 */

const cache = new WeakMap<FileContext, ts.SourceFile | null>();
const hunkCache = new WeakMap<FileContext, ts.SourceFile[]>();

export function sourceFileOf(ctx: FileContext): ts.SourceFile | null {
  if (cache.has(ctx)) return cache.get(ctx)!;
  const sf = ctx.file.content !== undefined ? parseScript(ctx.file.path, ctx.file.content) : null;
  cache.set(ctx, sf);
  return sf;
}

/**
 * One tree per hunk (contiguous known lines) when the whole file is not known. The text is the
 * segment's own, preceded by blank lines so that tree lines are file lines, with what the lexer read
 * as comments blanked: a hunk that starts inside a doc comment would otherwise parse its prose and
 * examples (`* it.only(...)`) as code.
 */
export function hunkTreesOf(ctx: FileContext): ts.SourceFile[] {
  const hit = hunkCache.get(ctx);
  if (hit) return hit;
  const kind = scriptKindOf(ctx.file.path);
  const out: ts.SourceFile[] = [];
  if (kind !== undefined && ctx.file.content === undefined) {
    for (const seg of ctx.segments) {
      if (!seg.lineStarts.some((_, k) => ctx.addedSet.has(seg.startLine + k))) continue;
      out.push(parseHunk(ctx.file.path, seg.startLine, blankComments(seg.text, seg.masked.comments), kind));
    }
  }
  hunkCache.set(ctx, out);
  return out;
}

/**
 * A hunk inside a class (`  async save(): Promise<void> {`) parses as nonsense at the top level: it is
 * parsed both ways, as statements and as class members, and the reading with fewer syntax errors wins.
 * The class opener sits on the padding line just above the hunk, so line numbers do not move.
 */
function parseHunk(path: string, startLine: number, text: string, kind: ts.ScriptKind): ts.SourceFile {
  const pad = "\n".repeat(startLine - 1);
  const plain = ts.createSourceFile(path, pad + text, ts.ScriptTarget.Latest, true, kind);
  if (startLine < 2 || syntaxErrors(plain) === 0) return plain;
  const member = ts.createSourceFile(path, `${"\n".repeat(startLine - 2)}class __hunk {\n${text}\n}`, ts.ScriptTarget.Latest, true, kind);
  return syntaxErrors(member) < syntaxErrors(plain) ? member : plain;
}

/** The parser's own error count (kept on the source file; not part of the typed API). */
const syntaxErrors = (sf: ts.SourceFile): number => (sf as unknown as { parseDiagnostics?: unknown[] }).parseDiagnostics?.length ?? 0;

/** `text` with every character the lexer marked as comment replaced by a space (line breaks kept). */
function blankComments(text: string, comments: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) out += comments[i] !== undefined && comments[i] !== " " && text[i] !== "\n" ? " " : text[i];
  return out;
}

/** The trees rules walk: the whole file's, else one per hunk. */
export function treesOf(ctx: FileContext): ts.SourceFile[] {
  const sf = sourceFileOf(ctx);
  return sf ? [sf] : hunkTreesOf(ctx);
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
  return (
    ts.isFunctionDeclaration(n) ||
    ts.isFunctionExpression(n) ||
    ts.isArrowFunction(n) ||
    ts.isMethodDeclaration(n) ||
    ts.isConstructorDeclaration(n) ||
    ts.isGetAccessor(n) ||
    ts.isSetAccessor(n)
  );
}

export function isAsync(n: ts.Node): boolean {
  return isFunctionLike(n) && (ts.getCombinedModifierFlags(n as ts.Declaration) & ts.ModifierFlags.Async) !== 0;
}

export function enclosingFunction(n: ts.Node): ts.FunctionLikeDeclaration | undefined {
  for (let p = n.parent; p; p = p.parent) if (isFunctionLike(p)) return p;
  return undefined;
}
