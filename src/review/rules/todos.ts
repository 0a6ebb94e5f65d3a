import { codeSpan } from "../../util/text.js";
import type { FileContext } from "../context.js";
import type { Finding } from "../types.js";
import { finding, RULES } from "./catalog.js";

/**
 * TODO-style markers in comments of added lines. Only comment text is searched (the lexer's
 * comment view), so a string "TODO" or an identifier `todoList` is not a finding. Markers must be
 * upper case, as written by convention; "todo" in prose is not one.
 */
// The marker must stand alone ("TODO:", "TODO(bob)", "TODO fix"): "TODO-free" or "TODOS" are prose.
const MARKER = /(?<![\w$-])(TODO|FIXME|XXX|HACK)(?=[\s:([!.,]|$)/;

/**
 * The comment before the marker is code switched off (`// expect(f()).toBe(1); // TODO`): its TODO
 * belongs to the dead line, and neither says anything about the change.
 */
export function commentedOutCode(before: string): boolean {
  const body = before
    .trim()
    .replace(/^(?:\/\/+|\/\*+|\*|#)\s*/, "")
    .replace(/\s*(?:\/\/+|#)\s*$/, "")
    .trim();
  return /[;{})\]]$/.test(body) && /[(=]/.test(body) && !/^[A-Z][a-z]+\s+\w+\s+\w+/.test(body);
}

export function todos(ctx: FileContext): Finding[] {
  if (ctx.kind.isGenerated) return [];
  const out: Finding[] = [];
  for (const l of ctx.addedLines) {
    const m = MARKER.exec(l.comment);
    if (!m || commentedOutCode(l.comment.slice(0, m.index))) continue;
    const text = l.comment
      .slice(m.index)
      .trim()
      .replace(/\s*(\*\/|-->)\s*$/, "");
    const short = text.length > 80 ? `${text.slice(0, 79)}…` : text;
    if (m[1] === "TODO") {
      out.push(
        finding(RULES.todo, l.line, `New TODO: ${codeSpan(short)}.`, { suggestion: "Do it in this change, or track it in an issue and reference it here." }),
      );
    } else {
      out.push(
        finding(RULES.fixme, l.line, `New ${m[1]}: ${codeSpan(short)} marks code known to be wrong or temporary.`, {
          suggestion: "Fix it before merging, or open an issue and reference it.",
        }),
      );
    }
  }
  return out;
}
