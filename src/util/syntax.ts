import ts from "typescript";

/**
 * JavaScript and TypeScript files parsed alone (TypeScript compiler API, no program: a few milliseconds
 * per file), for what a line's text cannot tell: which call a word is part of.
 */

const KIND: Record<string, ts.ScriptKind> = {
  ts: ts.ScriptKind.TS,
  mts: ts.ScriptKind.TS,
  cts: ts.ScriptKind.TS,
  tsx: ts.ScriptKind.TSX,
  js: ts.ScriptKind.JS,
  mjs: ts.ScriptKind.JS,
  cjs: ts.ScriptKind.JS,
  jsx: ts.ScriptKind.JSX,
};

/** The parser's reading of a file by its extension; undefined for a file that is neither. */
export const scriptKindOf = (path: string): ts.ScriptKind | undefined => KIND[path.slice(path.lastIndexOf(".") + 1).toLowerCase()];

/** The syntax tree of `text` (the parser recovers from errors), or null for a file that is not JavaScript or TypeScript. */
export function parseScript(path: string, text: string): ts.SourceFile | null {
  const kind = scriptKindOf(path);
  return kind === undefined ? null : ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
}
