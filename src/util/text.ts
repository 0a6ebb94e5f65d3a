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
