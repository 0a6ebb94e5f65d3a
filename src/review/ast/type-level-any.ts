import ts from "typescript";
import type { FileContext } from "../context.js";
import { treesOf, walk } from "./parse.js";

/**
 * `any` where type-level code needs it: in a conditional type's `extends` clause (`T extends Array<any>
 * ? …`, `F extends (...args: any[]) => any ? …`) and in an `infer` constraint, `any` is a pattern to
 * match, not a value whose checking is turned off. Returned as `line:column` of each such `any` keyword,
 * for the line rule (rules/type-safety.ts) to pass over.
 */
export function typeLevelAny(ctx: FileContext): Set<string> {
  const out = new Set<string>();
  for (const sf of treesOf(ctx)) {
    walk(sf, (n) => {
      if (n.kind !== ts.SyntaxKind.AnyKeyword || !inPattern(n)) return;
      const { line, character } = sf.getLineAndCharacterOfPosition(n.getStart(sf));
      out.add(`${line + 1}:${character}`);
    });
  }
  return out;
}

/** Whether the node lies in the `extends` clause of a conditional type, or in an `infer` declaration. */
function inPattern(n: ts.Node): boolean {
  for (let child = n, p = n.parent; p; child = p, p = p.parent) {
    if (ts.isConditionalTypeNode(p)) {
      if (p.extendsType === child) return true;
    } else if (ts.isInferTypeNode(p)) return true;
    if (
      !ts.isTypeNode(p) &&
      !ts.isParameter(p) &&
      !ts.isTypeParameterDeclaration(p) &&
      !ts.isTypeElement(p) &&
      !ts.isTypeLiteralNode(p) &&
      !ts.isNamedTupleMember(p)
    )
      return false;
  }
  return false;
}
