import { stripAnsi } from "../util/text.js";

/**
 * Output helpers for people: aligned tables, ages, scores, and colour that appears only on a terminal
 * (never in pipes, files or with NO_COLOR, see no-color.org), so scripts can parse plain text too.
 */
export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.TERM === "dumb") return false;
  return stream.isTTY === true;
}

export interface Paint {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

const sgr = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

export function paint(enabled: boolean): Paint {
  if (!enabled) {
    const id = (s: string) => s;
    return { bold: id, dim: id, red: id, green: id, yellow: id, cyan: id };
  }
  return { bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), cyan: sgr(36, 39) };
}

export type Align = "left" | "right";

/** Columns padded by their visible width (colour codes do not count); the last column is not padded. */
export function table(headers: string[], rows: string[][], align: Align[] = [], p: Paint = paint(false)): string {
  const all = [headers, ...rows];
  const widths = headers.map((_, c) => Math.max(...all.map((r) => stripAnsi(r[c] ?? "").length)));
  const line = (r: string[]) =>
    r
      .map((cell, c) => {
        if (c === r.length - 1 && align[c] !== "right") return cell;
        const pad = " ".repeat(widths[c]! - stripAnsi(cell).length);
        return align[c] === "right" ? pad + cell : cell + pad;
      })
      .join("  ")
      .trimEnd();
  return [p.bold(line(headers)), ...rows.map(line)].join("\n");
}

export function fmtScore(x: number | null | undefined): string {
  return x === null || x === undefined ? "-" : x.toFixed(3);
}

/** Green at or above the pass threshold, yellow above half, red below. */
export function colorScore(p: Paint, x: number | null | undefined, threshold = 0.95): string {
  const s = fmtScore(x);
  if (x === null || x === undefined) return p.dim(s);
  return x >= threshold ? p.green(s) : x >= 0.5 ? p.yellow(s) : p.red(s);
}

export function fmtAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

/** A path relative to `base` when it lies inside it (shorter to read), absolute otherwise. */
export function shortPath(base: string, p: string): string {
  const rel = p.startsWith(`${base}/`) ? p.slice(base.length + 1) : null;
  return rel ?? p;
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/**
 * Text written by a model (rationale, checkpoint descriptions) shown on a person's terminal: control
 * characters are made visible, so an escape sequence in it cannot retitle, clear or recolour the screen.
 */
export function printable(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it escapes
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}
