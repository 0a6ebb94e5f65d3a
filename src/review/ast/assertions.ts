import ts from "typescript";
import type { FileContext } from "../context.js";
import { finding, RULES } from "../rules/catalog.js";
import type { Finding } from "../types.js";
import { lineOf, walk } from "./parse.js";

/**
 * Non-null assertions on a lookup's result, in every position: `return map.get(id)!;`,
 * `use(find(xs)!)`, `re.exec(s)![1]`. A call that can return nothing is where `!` hides a real
 * "not found" case. Assertions on fields and variables (`this.timings!`, `options.url!`) were
 * measured on real repositories to be deliberate nearly always (state the type cannot express),
 * so they are left to the project's linter; so is `xs[i]!`, the idiom noUncheckedIndexedAccess
 * requires after a bounds check. One finding per line; an eslint directive for the rule is a
 * documented decision.
 */
export function nonNullAssertions(ctx: FileContext, sf: ts.SourceFile): Finding[] {
  if (!ctx.kind.isTs || ctx.kind.isTest || ctx.kind.isGenerated) return [];
  const out: Finding[] = [];
  const seen = new Set<number>();
  walk(sf, (n) => {
    if (!ts.isNonNullExpression(n) || !ts.isCallExpression(n.expression)) return;
    const line = lineOf(sf, n.expression.getLastToken(sf) ?? n);
    if (!ctx.addedSet.has(line) || seen.has(line)) return;
    const here = ctx.lines.get(line)?.comment ?? "";
    const prev = ctx.lines.get(line - 1)?.comment ?? "";
    if (/no-non-null-assertion/.test(here) || /eslint-disable-next-line[^\n]*no-non-null-assertion/.test(prev)) return;
    seen.add(line);
    const text = n.expression.getText(sf);
    out.push(
      finding(
        RULES.nonNull,
        line,
        `Non-null assertion on \`${text.length > 40 ? `${text.slice(0, 39)}…` : text}\`: if the lookup finds nothing, the code goes on with undefined instead of failing here.`,
        {
          suggestion: "Check the value (`if (!x) throw ...`), use optional chaining `?.`, or give it a default with `??`.",
        },
      ),
    );
  });
  return out;
}
