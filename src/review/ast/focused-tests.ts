import ts from "typescript";
import type { FileContext } from "../context.js";
import { finding, RULES } from "../rules/catalog.js";
import type { Finding } from "../types.js";
import { lineOf, walk } from "./parse.js";

/**
 * `.only` (critical: CI then runs one test and passes) and `.skip` (a test silently switched off) in
 * test files, for the common runners: jest, vitest, mocha, jasmine, node:test, playwright.
 * Conditional skips (`it.skipIf(cond)`, `test.skip(cond, reason)` inside a test) are decisions, not leftovers.
 */

const TEST_FNS = new Set(["describe", "it", "test", "suite", "context", "bench", "specify"]);
const FOCUSED = new Set(["fit", "fdescribe", "ftest"]);
const SKIPPED = new Set(["xit", "xdescribe", "xtest", "xcontext"]);

function rootName(e: ts.Expression): string | undefined {
  let x = e;
  while (ts.isPropertyAccessExpression(x) || ts.isCallExpression(x)) x = x.expression;
  return ts.isIdentifier(x) ? x.text : undefined;
}

export function focusedTests(ctx: FileContext, sf: ts.SourceFile): Finding[] {
  if (!ctx.kind.isTest) return [];
  const out: Finding[] = [];
  walk(sf, (n) => {
    if (!ts.isCallExpression(n)) return;
    const line = lineOf(sf, n);
    if (!ctx.addedSet.has(line)) return;
    const e = n.expression;
    let which: "only" | "skip" | undefined;
    if (ts.isIdentifier(e)) which = FOCUSED.has(e.text) ? "only" : SKIPPED.has(e.text) ? "skip" : undefined;
    else {
      // it.only(...), test.only.each(...)(...), describe.skip(...): a modifier on a test function.
      for (let x: ts.Expression = e; ts.isPropertyAccessExpression(x); x = x.expression) {
        if (x.name.text === "only" || x.name.text === "skip") {
          const root = rootName(x.expression);
          if (root && TEST_FNS.has(root)) which = x.name.text;
          break;
        }
      }
      // A skip with a condition and no callback (`test.skip(isWindows, "...")`) is a runtime decision.
      if (which === "skip" && n.arguments.length > 0 && !n.arguments.some((a) => ts.isFunctionLike(a)) && !ts.isStringLiteralLike(n.arguments[0]!))
        which = undefined;
    }
    if (!which) return;
    out.push(
      which === "only"
        ? finding(RULES.testOnly, line, "Focused test (`.only`): the runner skips every other test in this file, so CI passes without running them.", {
            suggestion: "Remove `.only` before merging.",
          })
        : finding(RULES.testSkip, line, "Skipped test (`.skip`): it no longer runs, and nothing reminds anyone to turn it back on.", {
            suggestion: "Fix and re-enable it, or delete it; if it must wait, link the issue that tracks it.",
          }),
    );
  });
  return out;
}
