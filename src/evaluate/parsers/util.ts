/**
 * Helpers shared by the output parsers. Everything here is pure and linear in the size of its input:
 * parsers run on logs of several megabytes, so no regex below may backtrack over a whole line more
 * than a bounded number of times.
 */
import path from "node:path";
import { stripAnsi } from "../../util/text.js";

/** Longest message kept for one failure or diagnostic: feedback is read by a model with a budget. */
export const MAX_MESSAGE_LINES = 6;
export const MAX_MESSAGE_CHARS = 500;

/**
 * Strips colour codes and turns terminal line endings into plain lines. A carriage return inside a
 * line means the terminal overwrote what came before it (progress bars), so only the text after the
 * last non-empty `\r` segment is what a person saw. A test report is read with `lines: true`: each
 * segment is a line, as no runner redraws its own lines without a terminal and what overwrote them was
 * the code under test's (a progress bar written after unittest's `test_x (…) ... ` hid the test's name).
 */
export function cleanText(s: string, opts: { lines?: boolean } = {}): string {
  let t = s.indexOf("\u001b") >= 0 || s.indexOf("\u009b") >= 0 ? stripAnsi(s) : s;
  if (t.indexOf("\r") >= 0) {
    t = t.replace(/\r\n/g, "\n");
    if (t.indexOf("\r") >= 0) {
      t = t
        .split("\n")
        .map((line) => {
          if (line.indexOf("\r") < 0) return line;
          const parts = line.split("\r").filter((p) => p.length > 0);
          return opts.lines ? parts.join("\n") : parts.length > 0 ? parts[parts.length - 1]! : "";
        })
        .join("\n");
    }
  }
  return t;
}

export function splitLines(s: string): string[] {
  const lines = s.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Number of leading spaces (tabs count as one column; runners indent with spaces). */
export function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++;
  return i;
}

/**
 * Bounds a failure message: the first non-empty lines, trimmed, without the stack trace that usually
 * follows it (the location is reported separately), cut to a fixed number of lines and characters.
 */
export function boundMessage(text: string | undefined | null, maxLines = MAX_MESSAGE_LINES, maxChars = MAX_MESSAGE_CHARS): string | undefined {
  if (text === undefined || text === null) return undefined;
  const out: string[] = [];
  let chars = 0;
  // Only the head of the text can end up in the message, so never split more than that.
  const head = text.length > maxChars * 8 ? text.slice(0, maxChars * 8) : text;
  for (const raw of head.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    if (isStackFrameLine(line) || isCodeFrameLine(line)) break;
    out.push(line);
    chars += line.length + 1;
    if (out.length >= maxLines || chars >= maxChars) break;
  }
  if (out.length === 0) return undefined;
  const joined = out.join("\n");
  return joined.length > maxChars ? `${joined.slice(0, maxChars - 1)}…` : joined;
}

/**
 * A code frame line (`> 10 | expect(x)`, `11| expect(x)`, `   | ^`): jest, vitest and babel quote the
 * source after the message; the location is reported separately, so the message ends there.
 */
function isCodeFrameLine(trimmed: string): boolean {
  return /^>?\s*\d*\s?\|(\s|$)/.test(trimmed);
}

/** A JavaScript (`at f (file:1:2)`) or vitest (`❯ file:1:2`) stack frame line, already trimmed. */
function isStackFrameLine(trimmed: string): boolean {
  // "at least one item" is a message, "at f (a.js:1:2)" is a frame: require the frame's ending.
  return (
    /^at .*(?::\d+:\d+\)?|\(<anonymous>\)|\(native\))$/.test(trimmed) ||
    // JVM and .NET frames: "at com.example.Foo.bar(Foo.java:21)".
    /^at [\w$.<>/]+\([^()]*\)$/.test(trimmed) ||
    /^❯ \S+:\d+/.test(trimmed)
  );
}

export interface Location {
  file: string;
  line?: number;
  column?: number;
}

/**
 * Turns a path printed by a tool into the form used in feedback: `file://` URLs become paths, absolute
 * paths inside the worktree become relative to it, `./x` becomes `x`. Paths outside stay as printed,
 * because a path into a dependency or the standard library is still informative.
 */
export function normalizePath(p: string, cwd?: string): string {
  let file = p.trim();
  if (file.startsWith("file://")) {
    file = file.slice("file://".length);
    if (file.includes("%")) {
      try {
        file = decodeURIComponent(file);
      } catch {
        // A malformed escape: keep the raw text rather than lose the location.
      }
    }
  }
  if (cwd && path.posix.isAbsolute(file)) {
    const root = cwd.endsWith("/") && cwd.length > 1 ? cwd.slice(0, -1) : cwd;
    if (file === root) return ".";
    if (file.startsWith(`${root}/`)) return path.posix.normalize(file.slice(root.length + 1));
    return file;
  }
  if (file.startsWith("./")) return path.posix.normalize(file);
  return file;
}

/**
 * The file of a test's own location (`file:line:col`: node --test's `location` in TAP, `test at` in its spec
 * reporter), as a path inside the worktree; undefined for a path outside it or in a dependency. Failing
 * first gives it to the runner as a test file to run (TestFailure.testFile).
 */
export function locationFile(location: string, cwd?: string): string | undefined {
  const m = /^(.*):\d+:\d+$/.exec(location.trim());
  if (!m) return undefined;
  const file = normalizePath(m[1]!, cwd);
  return file !== "." && !file.startsWith("../") && isProjectPath(file, cwd) && !path.posix.isAbsolute(file) ? file : undefined;
}

/** True when a (normalised) path belongs to the project rather than to a dependency or the runtime. */
export function isProjectPath(file: string, cwd?: string): boolean {
  if (file === "" || file.startsWith("node:") || file.startsWith("<") || file.includes("node_modules/") || file.startsWith("internal/")) return false;
  if (path.posix.isAbsolute(file)) {
    // With a worktree known, an absolute path that survived normalisation lies outside it.
    return cwd === undefined;
  }
  return true;
}

// `at fn (path:1:2)`, `at path:1:2`, `at async fn (file:///x.js:1:2)`; the path may contain spaces
// only inside parentheses. Split in two steps to stay linear.
const JS_FRAME_PAREN = /\(([^()]+):(\d+):(\d+)\)\s*$/;
const JS_FRAME_BARE = /^at (?:async )?(\S+):(\d+):(\d+)\s*$/;

/** Parses one JavaScript stack frame line (trimmed or not); null when it is not one. */
export function parseJsFrame(line: string): Location | null {
  const t = line.trim();
  if (t.startsWith("at ")) {
    const m = JS_FRAME_PAREN.exec(t) ?? JS_FRAME_BARE.exec(t);
    if (!m) return null;
    return { file: m[1]!, line: Number(m[2]), column: Number(m[3]) };
  }
  // The stack field of node's TAP YAML drops the `at `: `TestContext.<anonymous> (file:///x:1:2)`.
  if (t.endsWith(")")) {
    const m = JS_FRAME_PAREN.exec(t);
    if (m) return { file: m[1]!, line: Number(m[2]), column: Number(m[3]) };
  }
  // vitest: `❯ test/a.test.ts:11:23` or `❯ fn src/a.ts:4:60`.
  if (t.startsWith("❯ ")) {
    const m = /(\S+):(\d+):(\d+)$/.exec(t);
    if (m) return { file: m[1]!, line: Number(m[2]), column: Number(m[3]) };
  }
  return null;
}

/**
 * The innermost stack frame that belongs to the project: the line the failing code ran (the assertion
 * in a test, or the line of the source that threw). Frames in node internals and node_modules are
 * skipped because the model cannot change them.
 */
export function firstProjectFrame(text: string | undefined, cwd?: string, maxLines = 200): Location | undefined {
  if (!text) return undefined;
  let seen = 0;
  let start = 0;
  while (start <= text.length && seen < maxLines) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    seen++;
    const loc = parseJsFrame(line);
    if (!loc) continue;
    const file = normalizePath(loc.file, cwd);
    if (isProjectPath(file, cwd)) return { ...loc, file };
  }
  return undefined;
}

/** Parses JSON without throwing. */
export function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/**
 * Finds the JSON document a reporter wrote to stdout even when other lines surround it (npm banners,
 * console.log from tests): the whole text first, then from the first line that opens an object or
 * array to the end, then that line alone. Returns the first value accepted by `accept`.
 */
export function findJson(text: string, accept: (v: unknown) => boolean): unknown {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  const first = trimmed.charCodeAt(0);
  if (first === 123 /* { */ || first === 91 /* [ */) {
    const whole = tryJson(trimmed);
    if (whole !== undefined && accept(whole)) return whole;
  }
  let start = 0;
  let tries = 0;
  // Each attempt parses up to the whole text, so bound the attempts to keep this linear.
  while (start < text.length && tries < 5) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const c = text.charCodeAt(start);
    if (c === 123 || c === 91) {
      tries++;
      const line = text.slice(start, end).trim();
      const v = tryJson(line);
      if (v !== undefined && accept(v)) return v;
      if (v === undefined) {
        const rest = tryJson(text.slice(start).trim());
        if (rest !== undefined && accept(rest)) return rest;
      }
    }
    start = end + 1;
  }
  return undefined;
}

/** Makes a relative copy of absolute names that are paths inside the worktree (node prints them). */
export function normalizeName(name: string, cwd?: string): string {
  if (cwd && name.startsWith("/")) return normalizePath(name, cwd);
  return name;
}

/** Keeps the first failure seen for each name+file, in order: some reporters list failures twice. */
export function dedupeFailures<T extends { name: string; file?: string }>(failures: T[]): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const f of failures) {
    const key = `${f.name}\u0000${f.file ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f);
  }
  return out;
}

/**
 * `TypeError: it 'broke'` from concordance's dump of an error, as AVA prints it in its own report and in
 * its TAP output: a `TypeError {` line (any name with Error or Exception in it), then, among that object's
 * lines, `message: 'it \'broke\'',`. Only the quote and backslash escapes are undone (concordance prints
 * a message with line breaks as a template literal, which is not read here).
 * concordance prints the error's other keys first and its message last ('' when it has none), so a
 * `message` inside one of those keys (`response: {` / `message: '…'`) is another object's: the depth is
 * counted by the lines that open and close a value, as the TAP YAML reader leaves no indentation to go by.
 */
export function errorOfDump(text: string): string | undefined {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    // A subclass is printed with its constructor beside its name: `Error (DbError) {` (it keeps the name
    // Error), `NamedErr @Error {` (it sets its own).
    const head = /^\s*([A-Z][\w$]*)(?: \([\w$]+\)| @[\w$]+)? \{$/.exec(lines[i]!);
    if (!head || !/Error|Exception/.test(head[0])) continue;
    // To the end of the error's own block, however many keys come before its message (an HTTP client's
    // error carries its whole request configuration); the scan then goes on after the block, so every
    // line is read once or twice whatever the output holds.
    let depth = 0;
    let j = i + 1;
    for (; j < lines.length; j++) {
      const t = lines[j]!.trim();
      if (t.startsWith("}") || t.startsWith("]")) {
        if (depth-- === 0) break;
      } else if (depth === 0 && t.startsWith("message: ")) {
        const m = /^message: '((?:[^'\\]|\\.)*)',?$/.exec(t);
        return m && m[1] !== "" ? `${head[1]}: ${m[1]!.replace(/\\(['"\\])/g, "$1")}` : undefined;
      } else if (t.endsWith("{") || t.endsWith("[")) depth++;
    }
    i = j;
  }
  return undefined;
}
