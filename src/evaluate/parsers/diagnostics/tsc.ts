/**
 * TypeScript's compiler, in both of its output styles:
 *
 *   src/a.ts(3,5): error TS2304: Cannot find name 'x'.          (not on a terminal, or --pretty false)
 *   src/a.ts:3:5 - error TS2304: Cannot find name 'x'.          (--pretty, the default on a terminal)
 *   error TS5058: The specified path does not exist: 'x'.       (no file: a configuration error)
 *
 * A message may continue on indented lines (the elaboration of an assignability error); they are part
 * of it. The pretty style then prints a code frame and related locations after a blank line, which are not.
 */
import type { Diagnostic } from "../../types.js";
import { continuation, type DiagInput, diag } from "./common.js";

const PLAIN_RE = /^(.+?)\((\d+),(\d+)\): (error|warning|message) (TS\d+): (.*)$/;
const PRETTY_RE = /^(.+?):(\d+):(\d+) - (error|warning|message) (TS\d+): (.*)$/;
const GLOBAL_RE = /^(error|warning) (TS\d+): (.*)$/;

function isStart(line: string): boolean {
  return line.includes(" TS") && (PLAIN_RE.test(line) || PRETTY_RE.test(line) || GLOBAL_RE.test(line));
}

export function parseTsc({ lines, cwd }: DiagInput): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.includes(" TS")) continue;
    const m = PLAIN_RE.exec(line) ?? PRETTY_RE.exec(line);
    const g = m ? null : GLOBAL_RE.exec(line);
    if (!m && !g) continue;
    // "message" is informational (watch mode, --build progress), not a problem in the code.
    if ((m ? m[4] : g![1]) === "message") continue;
    const { extra, next } = continuation(lines, i + 1, isStart);
    if (m) {
      const message = [m[6]!.trim(), ...extra].join("\n");
      out.push(diag("tsc", m[4] === "error" ? "error" : "warning", message, { file: m[1]!, line: Number(m[2]), column: Number(m[3]), code: m[5]! }, cwd));
    } else if (g) {
      out.push(diag("tsc", g[1] === "error" ? "error" : "warning", [g[3]!.trim(), ...extra].join("\n"), { code: g[2]! }, cwd));
    }
    i = next - 1;
  }
  return out;
}
