import ansiRegex from "ansi-regex";

// The ecosystem's maintained pattern (CSI, OSC, DCS and other escapes), linear since ansi-regex 6.6.0:
// our former hand-written one took 45 s on ESC[ followed by 60,000 ';', and 6.2.2 was quadratic on
// repeated unterminated OSC introducers (bench/ansi.mjs measures them).
const ANSI_RE = ansiRegex();

export function stripAnsi(s: string): string {
  return s.includes("\u001B") || s.includes("\u009B") ? s.replace(ANSI_RE, "") : s;
}

/**
 * Keeps the head and the tail of a long text, because compilers put the first error at the top and
 * test runners put the summary at the bottom; the middle is the least informative part.
 */
export function capHeadTail(s: string, maxChars: number): { text: string; truncated: boolean; omittedChars: number } {
  if (s.length <= maxChars) return { text: s, truncated: false, omittedChars: 0 };
  const head = Math.floor(maxChars * 0.4);
  const tail = maxChars - head;
  const omitted = s.length - head - tail;
  return {
    text: `${s.slice(0, head)}\n… [${omitted} characters omitted] …\n${s.slice(s.length - tail)}`,
    truncated: true,
    omittedChars: omitted,
  };
}

export function countLines(s: string): number {
  if (s.length === 0) return 0;
  let n = 1;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 10) n++;
  // A trailing newline terminates the last line rather than starting a new one.
  if (s.charCodeAt(s.length - 1) === 10) n--;
  return n;
}

export function firstLine(s: string): string {
  return s.split("\n")[0] ?? "";
}

/** Quotes a word for the POSIX shell: single quotes, with embedded ones closed, escaped and reopened. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, "'\\''")}'`;
}

export function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, Math.max(0, max - 1))}…`;
}

/** `s` on one line: line breaks and control characters (C0, C1, the Unicode line separators) become spaces. */
function oneLine(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters replaced
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ");
}

/**
 * Text from the repository or its commands' output (hostile), quoted in a notice: without colour codes, on one
 * line, trimmed, at most `max` characters, as a JSON string.
 */
export function quoted(s: string, max: number): string {
  return JSON.stringify(truncate(oneLine(stripAnsi(s)).trim(), max));
}

/** The longest run of backticks in `s`. */
const longestTicks = (s: string): number => Math.max(0, ...[...s.matchAll(/`+/g)].map((m) => m[0].length));

/**
 * `s` (a test's name, a path: text from the repository or its commands' output) as a Markdown code span on
 * one line: GitHub renders no mention, link, HTML, comment or emphasis inside it, and a backtick in `s`
 * cannot close it.
 */
export function codeSpan(s: string): string {
  const flat = oneLine(s);
  const n = longestTicks(flat);
  const pad = n > 0 ? " " : "";
  return `${"`".repeat(n + 1)}${pad}${flat}${pad}${"`".repeat(n + 1)}`;
}

/** `s` as a fenced Markdown code block (`lang` its info string): nothing inside is rendered as Markdown. */
export function codeBlock(s: string, lang = ""): string {
  const fence = "`".repeat(Math.max(3, longestTicks(s) + 1));
  return `${fence}${lang}\n${s}\n${fence}`;
}
