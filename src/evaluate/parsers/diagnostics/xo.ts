/**
 * xo (0.54 and 1.x print ESLint's results with eslint-formatter-pretty): a header per file, the path
 * relative to where xo ran and the first error's place, then one line per problem, errors after
 * warnings, the rule id in the last column (none for a parsing error):
 *
 *   index.js:5:2
 *   ⚠  3:1   Unexpected todo comment: TODO: handle negative numbers.  no-warning-comments
 *   ✖  5:2   Unexpected var, use let or const instead.                no-var
 *
 * `×` and `‼` are the symbols on terminals without Unicode. When no problem has a line (a file that is
 * ignored) the places are left out, of the header and of the lines.
 */
import type { Diagnostic } from "../../types.js";
import { type DiagInput, diag } from "./common.js";
import { splitRuleColumn } from "./eslint.js";

const PROBLEM_RE = /^ {2}([✖×⚠‼]) {2}(?: *(\d+):(\d+) +)?(\S.*)$/u;

export function parseXo({ lines, cwd }: DiagInput): Diagnostic[] {
  const out: Diagnostic[] = [];
  let file: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = PROBLEM_RE.exec(line);
    if (m) {
      if (file === undefined) continue;
      const split = splitRuleColumn(m[4]!);
      const rule = split.rule;
      // The period dropped, as ESLint's stylish formatter prints it (xo --reporter=json compares equal).
      const message = split.message.replace(/([^ ])\.$/u, "$1");
      const at = m[2] !== undefined ? { line: Number(m[2]), column: Number(m[3]) } : {};
      out.push(diag("xo", m[1] === "✖" || m[1] === "×" ? "error" : "warning", message, { file, ...at, ...(rule ? { code: rule } : {}) }, cwd));
      continue;
    }
    // A header is a path alone on its line (with the first error's place) and a problem on the next.
    file = /^ {2}\S/.test(line) && PROBLEM_RE.test(lines[i + 1] ?? "") ? line.trim().replace(/:\d+:\d+$/, "") : undefined;
  }
  return out;
}
