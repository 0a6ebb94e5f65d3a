/**
 * Python: tracebacks of an uncaught exception (reported at the innermost frame inside the worktree,
 * with the exception type as the code), and the linters flake8, pylint and mypy.
 *
 *   flake8   pkg/a.py:15:12: F821 undefined name 'mesage'
 *   pylint   pkg/a.py:15:11: E0602: Undefined variable 'mesage' (undefined-variable)   (column 0-based)
 *            pkg/a.py:15: [E0602(undefined-variable), greet] Undefined variable 'mesage'   (parseable)
 *   mypy     pkg/a.py:10: error: Incompatible return value type ...  [return-value]
 *            pkg/a.py:10:12: error: ...                                (--show-column-numbers)
 */
import type { Diagnostic } from "../../types.js";
import { innermostProjectFrame, readSyntaxError, readTraceback } from "../python-traceback.js";
import { type DiagInput, diag } from "./common.js";

const CHAIN_RE =
  /^(During handling of the above exception, another exception occurred:|The above exception was the direct cause of the following exception:)\s*$/;

export function parsePythonTracebacks({ lines, cwd }: DiagInput): Diagnostic[] {
  const out: Diagnostic[] = [];
  let pending: Diagnostic | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("Traceback (most recent call last):")) {
      const tb = readTraceback(lines, i);
      if (!tb) continue;
      const frame = innermostProjectFrame(tb.frames, cwd);
      const d = diag("python", "error", tb.message ?? tb.type ?? "exception", { file: frame?.file, line: frame?.line, code: tb.type }, cwd);
      // A chained traceback replaces its cause: the last one of a chain is what stopped the program.
      if (pending) out.push(pending);
      pending = d;
      i = tb.end;
      let k = i + 1;
      while (k < lines.length && lines[k]!.trim() === "") k++;
      if (k < lines.length && CHAIN_RE.test(lines[k]!.trim())) {
        pending = null;
        i = k;
      } else {
        out.push(d);
        pending = null;
      }
      continue;
    }
    if (line.startsWith('  File "') && !line.includes(", in ")) {
      const se = readSyntaxError(lines, i);
      if (se) {
        out.push(diag("python", "error", se.message, { file: se.frame.file, line: se.frame.line, column: se.column, code: se.type }, cwd));
        i = se.end;
      }
    }
  }
  if (pending) out.push(pending);
  return out;
}

const FLAKE8_RE = /^(.+?\.pyi?):(\d+):(\d+): ([A-Z]{1,3}\d{2,4}) (.*)$/;

export function parseFlake8({ lines, cwd }: DiagInput): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const line of lines) {
    if (!line.includes(".py")) continue;
    const m = FLAKE8_RE.exec(line);
    if (!m) continue;
    const code = m[4]!;
    // pycodestyle calls E codes errors and W codes warnings; pyflakes (F) finds real mistakes;
    // C9 is mccabe complexity, a warning.
    const severity = code.startsWith("W") || code.startsWith("C") ? "warning" : "error";
    out.push(diag("flake8", severity, m[5]!.trim(), { file: m[1]!, line: Number(m[2]), column: Number(m[3]), code }, cwd));
  }
  return out;
}

const PYLINT_RE = /^(.+?\.pyi?):(\d+):(\d+): ([CRWEFI]\d{4}): (.*)$/;
const PYLINT_PARSEABLE_RE = /^(.+?\.pyi?):(\d+): \[([CRWEFI]\d{4})(?:\(([\w-]+)\))?, [^\]]*\] (.*)$/;

export function parsePylint({ lines, cwd }: DiagInput): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const line of lines) {
    if (!line.includes(".py")) continue;
    const m = PYLINT_RE.exec(line);
    if (m) {
      const code = m[4]!;
      let message = m[5]!.trim();
      // The symbolic name closes the line: "(undefined-variable)"; keep the message without it.
      const sym = message.lastIndexOf(" (");
      if (sym > 0 && message.endsWith(")") && /^[a-z0-9-]+$/.test(message.slice(sym + 2, -1))) message = message.slice(0, sym);
      // pylint counts columns from 0; everyone else (and editors) from 1.
      out.push(diag("pylint", severity(code), message, { file: m[1]!, line: Number(m[2]), column: Number(m[3]) + 1, code }, cwd));
      continue;
    }
    const p = PYLINT_PARSEABLE_RE.exec(line);
    if (p) out.push(diag("pylint", severity(p[3]!), p[5]!.trim(), { file: p[1]!, line: Number(p[2]), code: p[3]! }, cwd));
  }
  return out;
}

function severity(code: string): Diagnostic["severity"] {
  return code.startsWith("E") || code.startsWith("F") ? "error" : "warning";
}

const MYPY_RE = /^(.+?\.pyi?):(\d+)(?::(\d+))?: (error|warning): (.*)$/;

export function parseMypy({ lines, cwd }: DiagInput): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.includes(".py")) continue;
    const m = MYPY_RE.exec(line);
    if (!m) continue;
    let message = m[5]!.trim();
    // --pretty wraps long messages onto following lines that start at column 0 or 1 (the code frame
    // that follows is indented by four).
    let j = i + 1;
    while (!/\[[a-z-]+\]$/.test(message) && j < lines.length && j <= i + 5) {
      const l = lines[j]!;
      if (l.trim() === "" || /^\s{2,}/.test(l) || MYPY_RE.test(l)) break;
      message = `${message} ${l.trim()}`;
      j++;
    }
    i = j - 1;
    let code: string | undefined;
    const c = /\s+\[([a-z][a-z-]*)\]$/.exec(message);
    if (c) {
      code = c[1];
      message = message.slice(0, c.index);
    }
    out.push(
      diag("mypy", m[4] === "error" ? "error" : "warning", message, { file: m[1]!, line: Number(m[2]), column: m[3] ? Number(m[3]) : undefined, code }, cwd),
    );
  }
  return out;
}
