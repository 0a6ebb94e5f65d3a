import ts from "typescript";
import type { FileContext } from "../context.js";
import { finding, RULES } from "../rules/catalog.js";
import type { Finding } from "../types.js";
import { calleeName, enclosingFunction, isAsync, isFunctionLike, lineOf, walk } from "./parse.js";

/**
 * Floating promises: a call known to return a promise whose result nobody awaits, returns, stores or
 * catches, so a rejection is an unhandled rejection (Node ends the process on one). "Known" is
 * deliberately narrow, without a type checker: functions declared async in this file, fetch, the
 * fs/promises API, `.then()` chains with no `.catch()`, async callbacks to forEach (which never
 * awaits them) and async Express 4 handlers (Express 4 does not catch their rejections).
 * `await next()` and other awaits that let errors propagate are the normal case and never reported.
 */

const FS_PROMISES = /^(?:node:)?fs\/promises$/;
const ROUTE_METHODS = new Set(["get", "post", "put", "patch", "delete", "del", "all", "use", "options", "head"]);

interface Known {
  asyncFunctions: Set<string>;
  asyncMethods: Set<string>;
  fsNames: Set<string>;
  fsNamespaces: Set<string>;
  usesExpress: boolean;
}

function collect(sf: ts.SourceFile): Known {
  const k: Known = { asyncFunctions: new Set(), asyncMethods: new Set(), fsNames: new Set(), fsNamespaces: new Set(), usesExpress: false };
  walk(sf, (n) => {
    if (ts.isFunctionDeclaration(n) && n.name && isAsync(n)) k.asyncFunctions.add(n.name.text);
    else if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer && isFunctionLike(n.initializer) && isAsync(n.initializer))
      k.asyncFunctions.add(n.name.text);
    else if (ts.isMethodDeclaration(n) && ts.isIdentifier(n.name) && isAsync(n)) k.asyncMethods.add(n.name.text);
    else if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const spec = n.moduleSpecifier.text;
      if (spec === "express") k.usesExpress = true;
      if (!FS_PROMISES.test(spec) || !n.importClause) return;
      const b = n.importClause.namedBindings;
      if (n.importClause.name) k.fsNamespaces.add(n.importClause.name.text);
      if (b && ts.isNamespaceImport(b)) k.fsNamespaces.add(b.name.text);
      if (b && ts.isNamedImports(b)) for (const e of b.elements) k.fsNames.add(e.name.text);
    } else if (
      ts.isCallExpression(n) &&
      ts.isIdentifier(n.expression) &&
      n.expression.text === "require" &&
      n.arguments[0] &&
      ts.isStringLiteral(n.arguments[0]) &&
      n.arguments[0].text === "express"
    ) {
      k.usesExpress = true;
    }
  });
  // A name also bound to something else in the file (a sync overload, a parameter) is not known.
  return k;
}

/** Why this call returns a promise, or null when it is not known to. */
function promiseReason(call: ts.CallExpression, k: Known, sf: ts.SourceFile): string | null {
  const e = call.expression;
  if (ts.isIdentifier(e)) {
    if (k.asyncFunctions.has(e.text)) return `\`${e.text}\` is async`;
    if (e.text === "fetch") return "fetch returns a promise";
    if (k.fsNames.has(e.text)) return `\`${e.text}\` from fs/promises returns a promise`;
    return null;
  }
  if (!ts.isPropertyAccessExpression(e)) return null;
  const name = e.name.text;
  const obj = e.expression;
  if (obj.kind === ts.SyntaxKind.ThisKeyword && k.asyncMethods.has(name)) return `\`this.${name}\` is async`;
  if (ts.isIdentifier(obj) && k.fsNamespaces.has(obj.text)) return `\`${obj.text}.${name}\` from fs/promises returns a promise`;
  if (ts.isPropertyAccessExpression(obj) && obj.name.text === "promises" && /^(?:fs|fsExtra)$/.test(obj.expression.getText(sf)))
    return `\`fs.promises.${name}\` returns a promise`;
  if (name === "then" && call.arguments.length < 2) return "`.then()` without a rejection handler";
  if (name === "finally" && ts.isCallExpression(obj) && calleeName(obj) === "then") return "`.then().finally()` without `.catch()`";
  return null;
}

/** The statement is the call itself: its value is dropped. */
function isDropped(call: ts.CallExpression): boolean {
  let n: ts.Node = call;
  while (ts.isParenthesizedExpression(n.parent)) n = n.parent;
  return ts.isExpressionStatement(n.parent);
}

/** Awaits of `fn` itself (not of nested functions) that no enclosing try block of `fn` covers. */
function uncaughtAwait(fn: ts.FunctionLikeDeclaration): ts.AwaitExpression | undefined {
  let found: ts.AwaitExpression | undefined;
  const visit = (n: ts.Node, inTry: boolean): void => {
    if (found) return;
    if (n !== fn && isFunctionLike(n)) return;
    if (ts.isAwaitExpression(n) && !inTry) {
      found = n;
      return;
    }
    if (ts.isTryStatement(n)) {
      visit(n.tryBlock, inTry || n.catchClause !== undefined);
      if (n.catchClause) visit(n.catchClause, inTry);
      if (n.finallyBlock) visit(n.finallyBlock, inTry);
      return;
    }
    n.forEachChild((c) => visit(c, inTry));
  };
  if (fn.body) visit(fn.body, false);
  return found;
}

export function floatingPromises(ctx: FileContext, sf: ts.SourceFile): Finding[] {
  if (ctx.kind.isGenerated || ctx.kind.isScript) return [];
  const k = collect(sf);
  const express4 = k.usesExpress && ctx.project.express5 !== true;
  const out: Finding[] = [];
  walk(sf, (n) => {
    if (!ts.isCallExpression(n)) return;
    const line = lineOf(sf, n);
    const name = calleeName(n);
    // forEach never awaits its callback: each rejection is unhandled and the loop does not wait.
    if (name === "forEach" && n.arguments.some((a) => isFunctionLike(a) && isAsync(a) && uncaughtAwait(a as ts.FunctionLikeDeclaration))) {
      if (ctx.addedSet.has(line)) {
        out.push(
          finding(RULES.floatingPromise, line, "forEach does not await an async callback: the loop ends before the work does, and a rejection is unhandled.", {
            suggestion: "Use `for (const x of xs) await f(x)`, or `await Promise.all(xs.map(async (x) => ...))`.",
          }),
        );
      }
      return;
    }
    if (express4 && name && ROUTE_METHODS.has(name) && ts.isPropertyAccessExpression(n.expression)) {
      for (const a of n.arguments) {
        if (!isFunctionLike(a) || !isAsync(a) || a.parameters.length < 2) continue;
        const aw = uncaughtAwait(a as ts.FunctionLikeDeclaration);
        const at = aw ? lineOf(sf, aw) : 0;
        if (aw && ctx.addedSet.has(at)) {
          out.push(
            finding(
              RULES.floatingPromise,
              at,
              "Express 4 does not catch a rejected async handler: this await's error never reaches the error middleware and the request hangs.",
              {
                suggestion: "Wrap the body in try/catch and call next(err), or upgrade to Express 5, which forwards rejections.",
              },
            ),
          );
        }
      }
      return;
    }
    if (!ctx.addedSet.has(line) || !isDropped(n)) return;
    const reason = promiseReason(n, k, sf);
    if (!reason) return;
    // A statement directly in an async function's top level that is the function's last act is still
    // floating; but a call inside a constructor or top-level script code is reported the same way.
    const fn = enclosingFunction(n);
    const hint = fn && isAsync(fn) ? "Add `await` (or return it)" : "Return it, `await` it in an async function, or add `.catch(...)`";
    out.push(
      finding(RULES.floatingPromise, line, `Promise not awaited (${reason}): a rejection is unhandled and the code after it does not wait for it.`, {
        suggestion: `${hint}; if it is meant to run in the background, write \`void\` before it and handle errors with .catch.`,
      }),
    );
  });
  return out;
}
