import { astTypeSafety, hasTree, typeLevelAny } from "../ast/index.js";
import type { FileContext, LineView } from "../context.js";
import type { Finding } from "../types.js";
import { finding, RULES } from "./catalog.js";

/**
 * Type-safety findings for TypeScript: explicit `any`, non-null assertions, and compiler
 * suppressions. Matching runs on masked code, so `"any"`, `// any` and `anything` never match.
 */

/** An eslint directive that already documents the exception, on the line or the line above. */
function allowedBy(ctx: FileContext, line: LineView, ruleName: string): boolean {
  const prev = ctx.lines.get(line.line - 1);
  const re = new RegExp(`eslint-disable(?:-next-line|-line)?[^\\n]*${ruleName}`);
  return re.test(line.comment) || (prev !== undefined && /eslint-disable-next-line/.test(prev.comment) && re.test(prev.comment));
}

/** Whether `code[0..end)` has a `<` that is still open (we are inside generic arguments). */
function insideAngles(code: string, end: number): boolean {
  let depth = 0;
  for (let i = 0; i < end; i++) {
    const c = code[i];
    if (c === "<") depth++;
    else if (c === ">" && code[i - 1] !== "=") depth = Math.max(0, depth - 1);
  }
  return depth > 0;
}

/** True when the `any` at `idx` of a masked code line is in a type position. */
export function isTypeAny(code: string, idx: number): boolean {
  const after = code.slice(idx + 3);
  if (/^\s*(?:\(|\.|:|\?\.)/.test(after)) return false; // a call, member access, or object key
  const before = code.slice(0, idx).trimEnd();
  if (/(?:^|[^\w$])(keyof|extends|infer|typeof)$/.test(before)) return false; // `keyof any`, `T extends any ?` are idioms
  if (/\?\s*$/.test(code.slice(0, idx)) && !/\?:\s*$/.test(code.slice(0, idx))) return false;
  if (/(?:^|[^\w$])(as|readonly)$/.test(before)) return true;
  if (/=>$/.test(before)) return true;
  if (/(?:^|[^\w$])type\s+[\w$]+\s*(?:<[^=]*>)?\s*=$/.test(before)) return true;
  const last = before.slice(-1);
  // `x: any`, `x?: any`; but not the `:` of a ternary (`c ? a : any` would be a variable named any).
  if (last === ":") return !/(?<!\?)\?(?![.?:])/.test(before);
  if (last === "<") return true;
  if (last === "|" || last === "&") return !/(\|\||&&)$/.test(before);
  if (last === ",") return insideAngles(code, idx);
  return false;
}

export function typeSafety(ctx: FileContext): Finding[] {
  const out: Finding[] = [];
  if (!ctx.kind.isJsLike || ctx.kind.isGenerated) return out;
  const tree = hasTree(ctx);
  out.push(...astTypeSafety(ctx));
  let patterns: Set<string> | undefined;
  for (const l of ctx.addedLines) {
    const ts = /@ts-(ignore|nocheck)\b/.exec(l.comment);
    if (ts) {
      const which = ts[1] === "ignore" ? "@ts-ignore" : "@ts-nocheck";
      out.push(
        finding(
          RULES.tsIgnore,
          l.line,
          `${which} silences every type error ${ts[1] === "ignore" ? "on the next line" : "in this file"}, including future ones.`,
          {
            suggestion:
              ts[1] === "ignore"
                ? "Fix the type error, or use `// @ts-expect-error <reason>` so the suppression fails once it is no longer needed."
                : "Remove @ts-nocheck and fix or narrowly suppress the individual errors.",
          },
        ),
      );
    }
    if (!ctx.kind.isTs || ctx.kind.isTest) continue;
    const anyRe = /(?<![\w$.])any(?![\w$])/g;
    for (let m = anyRe.exec(l.code); m; m = anyRe.exec(l.code)) {
      if (isTypeAny(l.code, m.index) && !allowedBy(ctx, l, "no-explicit-any") && !(patterns ??= typeLevelAny(ctx)).has(`${l.line}:${m.index}`)) {
        out.push(
          finding(RULES.explicitAny, l.line, "Explicit `any` turns off type checking for this value and everything derived from it.", {
            suggestion: "Use `unknown` and narrow it, a generic, or the concrete type.",
          }),
        );
        break;
      }
    }
    // A dereference through an assertion: `x!.y`, `get(k)![0]`, `fn!()`. Not `!=` / `!==`, not a
    // definite assignment (`name!: T`), and not `arr[i]!`, the idiom that noUncheckedIndexedAccess
    // requires after a bounds check. In TSX, `(` after `!` may be JSX text ("(see above!)").
    const nn = ctx.file.path.endsWith(".tsx") ? /[\w$)]!(?=[.[])/ : /[\w$)]!(?=[.[(])/;
    if (!tree && nn.test(l.code) && !allowedBy(ctx, l, "no-non-null-assertion")) {
      out.push(
        finding(RULES.nonNull, l.line, "Non-null assertion `!` tells the compiler a value cannot be null or undefined without checking it.", {
          suggestion: "Check the value (`if (!x) ...`), use optional chaining `?.`, or give it a default with `??`.",
        }),
      );
    }
  }
  return out;
}
