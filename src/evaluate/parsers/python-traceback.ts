/**
 * Python tracebacks, shared by the unittest parser and the diagnostics parser.
 *
 *   Traceback (most recent call last):
 *     File "/repo/app/main.py", line 9, in <module>
 *       run()
 *   json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)
 *
 * Frames are printed outermost first; the one worth reporting is the innermost frame in the
 * repository, because frames in the standard library or site-packages are not code the model wrote.
 */
import path from "node:path";
import { indentOf, normalizePath } from "./util.js";

export interface PyFrame {
  file: string;
  line: number;
  func?: string;
}

export interface PyTraceback {
  frames: PyFrame[];
  /** e.g. "KeyError", "json.decoder.JSONDecodeError" */
  type?: string;
  message?: string;
  /** Lines after the exception line that continue its message (multi-line assertion messages). */
  extra: string[];
  /** Index of the header line and of the exception line. */
  start: number;
  end: number;
}

const FRAME_RE = /^\s*File "([^"]+)", line (\d+)(?:, in (.+))?\s*$/;
const EXC_RE = /^([A-Za-z_][\w.]*)(?::\s?(.*))?$/;

export function parseFrameLine(line: string): PyFrame | null {
  const m = FRAME_RE.exec(line);
  if (!m) return null;
  const f: PyFrame = { file: m[1]!, line: Number(m[2]) };
  if (m[3] !== undefined) f.func = m[3].trim();
  return f;
}

/** Reads the traceback whose header is at `start`; null when the lines do not form one. */
export function readTraceback(lines: string[], start: number): PyTraceback | null {
  const baseIndent = indentOf(lines[start]!);
  const frames: PyFrame[] = [];
  let i = start + 1;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const frame = parseFrameLine(line);
    if (frame) {
      frames.push(frame);
      continue;
    }
    // Source lines and caret markers are indented under their frame.
    if (line.trim() === "" || indentOf(line) > baseIndent) continue;
    break;
  }
  if (i >= lines.length) return frames.length > 0 ? { frames, extra: [], start, end: lines.length - 1 } : null;
  const excLine = lines[i]!.slice(baseIndent);
  const m = EXC_RE.exec(excLine.trimEnd());
  const tb: PyTraceback = { frames, extra: [], start, end: i };
  if (m) {
    tb.type = m[1]!;
    if (m[2] !== undefined && m[2] !== "") tb.message = m[2];
  } else {
    tb.message = excLine.trim();
  }
  return tb;
}

/**
 * The innermost frame that belongs to the repository: inside `cwd` when it is known, otherwise any
 * frame outside the interpreter's own library and installed packages. Falls back to the innermost
 * frame of all, so a crash inside a dependency still points somewhere.
 */
export function innermostProjectFrame(frames: PyFrame[], cwd?: string): PyFrame | undefined {
  for (let k = frames.length - 1; k >= 0; k--) {
    const f = frames[k]!;
    if (isProjectPyFile(f.file, cwd)) return { ...f, file: normalizePath(f.file, cwd) };
  }
  for (let k = frames.length - 1; k >= 0; k--) {
    const f = frames[k]!;
    if (!f.file.startsWith("<")) return { ...f, file: normalizePath(f.file, cwd) };
  }
  return undefined;
}

function isProjectPyFile(file: string, cwd?: string): boolean {
  if (file.startsWith("<")) return false;
  if (/[\\/](site-packages|dist-packages)[\\/]/.test(file)) return false;
  if (cwd) {
    if (!path.posix.isAbsolute(file)) return true;
    const root = cwd.endsWith("/") ? cwd.slice(0, -1) : cwd;
    return file.startsWith(`${root}/`);
  }
  return !/[\\/]lib[\\/]python\d/.test(file);
}

/**
 * A SyntaxError raised while compiling the main script has no traceback header:
 *
 *     File "/repo/app/syntax.py", line 1
 *       def f(:
 *             ^
 *   SyntaxError: invalid syntax
 *
 * Returns the frame, the column under the caret, the type and the message.
 */
export function readSyntaxError(lines: string[], at: number): { frame: PyFrame; column?: number; type: string; message: string; end: number } | null {
  const frame = parseFrameLine(lines[at]!);
  if (!frame || frame.func !== undefined) return null;
  let code: string | undefined;
  let column: number | undefined;
  for (let i = at + 1; i < lines.length && i <= at + 4; i++) {
    const line = lines[i]!;
    const m = /^(SyntaxError|IndentationError|TabError)(?::\s?(.*))?$/.exec(line.trimEnd());
    if (m) return { frame, type: m[1]!, message: m[2] ?? m[1]!, end: i, ...(column !== undefined ? { column } : {}) };
    if (/^\s*[~^]+\s*$/.test(line) && code !== undefined) {
      // The caret line and the code line share an indent prefix; the column is the caret's offset in the code.
      const codeIndent = indentOf(code);
      const caret = line.indexOf("^");
      if (caret >= codeIndent) column = caret - codeIndent + 1;
    } else if (code === undefined) {
      code = line;
    }
  }
  return null;
}
