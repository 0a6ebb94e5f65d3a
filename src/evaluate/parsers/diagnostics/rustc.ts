/**
 * rustc and cargo, in the human format:
 *
 *   error[E0308]: mismatched types
 *    --> src/main.rs:7:18
 *     |
 *   7 |     let n: i32 = "four";
 *     |            ---   ^^^^^^ expected `i32`, found `&str`
 *
 * and in the short format (`--message-format=short`, `--error-format=short`):
 *
 *   src/main.rs:7:18: error[E0308]: mismatched types: expected `i32`, found `&str`
 *
 * The short format appends the primary label to the message; the human format's primary label (the
 * text after the `^^^` marker) is appended the same way, so both give the same diagnostic. Summary
 * lines ("could not compile", "aborting due to", "N warnings emitted") are not diagnostics.
 */
import type { Diagnostic } from "../../types.js";
import { type DiagInput, diag } from "./common.js";

const HEADER_RE = /^(error|warning)(?:\[(E\d{4})\])?: (.*)$/;
const ARROW_RE = /^\s*--> (.+?):(\d+):(\d+)\s*$/;
const SHORT_RE = /^(.+?\.rs):(\d+):(\d+): (error|warning)(?:\[(E\d{4})\])?: (.*)$/;
const SUMMARY_RE =
  /^(could not compile|aborting due to|\d+ warnings? emitted|build failed|test failed|doctest failed|\d+ targets? failed|`[^`]+` \([^)]*\) generated \d+ warnings?|.*generated \d+ warnings?( \(.*\))?$|unused manifest key|Some errors have detailed explanations|For more information about)/;

export function parseRustc({ lines, cwd }: DiagInput): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("error") || line.startsWith("warning")) {
      const h = HEADER_RE.exec(line);
      if (!h) continue;
      const message = h[3]!.trim();
      if (SUMMARY_RE.test(message)) continue;
      const severity = h[1] === "error" ? "error" : "warning";
      // The location arrow follows the header directly; the label is in the snippet after it.
      const arrow = i + 1 < lines.length ? ARROW_RE.exec(lines[i + 1]!) : null;
      if (!arrow) {
        out.push(diag("rustc", severity, message, { code: h[2] }, cwd));
        continue;
      }
      let label: string | undefined;
      let j = i + 2;
      for (; j < lines.length && j < i + 40; j++) {
        const l = lines[j]!;
        if (l.trim() === "" || HEADER_RE.test(l)) break;
        if (label === undefined && /^\s*\d*\s*\|/.test(l)) {
          const caret = l.indexOf("^");
          if (caret >= 0) {
            const after = l.slice(caret).replace(/^\^+/, "").trim();
            if (after !== "") label = after;
          }
        }
      }
      const full = label ? `${message}: ${label}` : message;
      out.push(diag("rustc", severity, full, { file: arrow[1]!, line: Number(arrow[2]), column: Number(arrow[3]), code: h[2] }, cwd));
      i = j - 1;
      continue;
    }
    if (!line.includes(".rs:")) continue;
    const s = SHORT_RE.exec(line);
    if (s)
      out.push(diag("rustc", s[4] === "error" ? "error" : "warning", s[6]!.trim(), { file: s[1]!, line: Number(s[2]), column: Number(s[3]), code: s[5] }, cwd));
  }
  return out;
}
