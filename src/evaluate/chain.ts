/**
 * Commands chained with `&&` (`xo && ava && tsd`): each part's output is read on its own, so that the
 * failures of each runner are attributed to it. The chain still runs as ONE shell command (a `cd` or an
 * `export` in one part holds for the next, as the user typed it); a marker with a random nonce is printed
 * between the parts on both streams, and the output is cut at the markers afterwards.
 *
 * Splitting is only attempted on a plain top-level `&&` list: anything else at the top level (`||`, `;`,
 * `|`, `&`, a newline, a here-document) or an unbalanced quote makes the whole command one part.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import type { CommandOutput } from "./types.js";

/** The top-level `&&` parts of a command, or null when it is not a plain `&&` list of two or more. */
export function splitAndChain(cmd: string): string[] | null {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  let i = 0;
  const n = cmd.length;
  while (i < n) {
    const c = cmd[i]!;
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = cmd.indexOf("'", i + 1);
      if (end < 0) return null;
      i = end + 1;
      continue;
    }
    if (c === '"' || c === "`") {
      // Inside double quotes only a backslash escapes; `$(...)` inside them cannot end the quote.
      let j = i + 1;
      while (j < n && cmd[j] !== c) j += cmd[j] === "\\" ? 2 : 1;
      if (j >= n) return null;
      i = j + 1;
      continue;
    }
    // `[[ a && b ]]` is one test expression, not two commands.
    if (c === "[" && cmd[i + 1] === "[") return null;
    if (c === "(" || c === "{") depth++;
    else if (c === ")" || c === "}") {
      depth--;
      if (depth < 0) return null;
    } else if (depth === 0) {
      if (c === "&" && cmd[i + 1] === "&") {
        parts.push(cmd.slice(start, i));
        i += 2;
        start = i;
        continue;
      }
      // `2>&1`, `>&2` and `&>file` are redirections, not a background `&`.
      const redirect = c === "&" && (cmd[i - 1] === ">" || cmd[i - 1] === "<" || cmd[i + 1] === ">");
      if (c === "|" || c === ";" || (c === "&" && !redirect) || c === "\n" || (c === "<" && cmd[i + 1] === "<") || c === "#") return null;
    }
    i++;
  }
  if (depth !== 0) return null;
  parts.push(cmd.slice(start));
  const trimmed = parts.map((p) => p.trim());
  if (trimmed.length < 2 || trimmed.some((p) => p === "")) return null;
  return trimmed;
}

export interface WrappedChain {
  cmd: string;
  nonce: string;
  parts: string[];
}

/** The chain as one shell command that prints `marker i` on stdout and stderr before part i. */
export function wrapChain(parts: string[]): WrappedChain {
  const nonce = randomBytes(6).toString("hex");
  const mark = (i: number) => `printf '\\n@@trm-part-${nonce}-${i}@@\\n' && printf '\\n@@trm-part-${nonce}-${i}@@\\n' >&2`;
  // A part runs inside `{ ...; }` so that its own redirections and assignments stay its own.
  const cmd = parts.map((p, i) => `${mark(i)} && { ${p}\n}`).join(" && ");
  return { cmd, nonce, parts };
}

export interface ChainSegment {
  part: string;
  index: number;
  output: CommandOutput;
  /** Exit code of this part: 0 when a later part started, else the whole command's. */
  exitCode: number | null;
  /** Directory the part ran in, relative to the command's directory ("" = the same). */
  dir: string;
}

function cut(text: string, nonce: string, count: number): string[] {
  const out: string[] = [];
  const re = new RegExp(`\\n?@@trm-part-${nonce}-(\\d+)@@\\n`, "g");
  let last = -1;
  let from = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (last >= 0) out[last] = (out[last] ?? "") + text.slice(from, m.index);
    last = Number(m[1]);
    from = m.index + m[0].length;
  }
  if (last >= 0) out[last] = (out[last] ?? "") + text.slice(from);
  return out.slice(0, count);
}

/** How many distinct part markers of `w` the output holds. */
export function markersSeen(text: string, w: WrappedChain): number {
  const seen = new Set<string>();
  for (const m of text.matchAll(new RegExp(`@@trm-part-${w.nonce}-(\\d+)@@`, "g"))) seen.add(m[1]!);
  return seen.size;
}

/** Removes the markers, for the output that is stored and shown. */
export function stripMarkers(text: string, nonce: string): string {
  return text.replace(new RegExp(`\\n?@@trm-part-${nonce}-\\d+@@\\n`, "g"), "");
}

/**
 * Cuts a chain's output into its parts. Parts after the one that failed never ran and are left out.
 * A part `cd <dir>` changes the directory of the parts after it, for resolving the paths they print.
 */
export function splitChainOutput(w: WrappedChain, out: CommandOutput, exitCode: number | null): ChainSegment[] {
  const so = cut(out.stdout, w.nonce, w.parts.length);
  const se = cut(out.stderr, w.nonce, w.parts.length);
  const sa = cut(out.all, w.nonce, w.parts.length);
  const ran = Math.max(so.length, se.length, sa.length);
  const segs: ChainSegment[] = [];
  let dir = "";
  for (let i = 0; i < ran; i++) {
    const part = w.parts[i]!;
    segs.push({ part, index: i, output: { stdout: so[i] ?? "", stderr: se[i] ?? "", all: sa[i] ?? "" }, exitCode: i < ran - 1 ? 0 : exitCode, dir });
    const cd = /^cd\s+(?:--\s+)?('[^']*'|"[^"$`\\]*"|[^\s'"$`\\;&|]+)$/.exec(part);
    if (cd) {
      const target = cd[1]!.replace(/^['"]|['"]$/g, "");
      // Only a relative move below the command's directory is followed; anything else is not known.
      const next = path.posix.normalize(path.posix.join(dir, target));
      dir = path.posix.isAbsolute(target) || next.startsWith("..") ? dir : next === "." ? "" : next;
    }
  }
  return segs;
}

/** The first word of a part that names the program (`npx ava` → ava, `FOO=1 pytest -q` → pytest). */
export function programOf(part: string): string {
  const words = part.split(/\s+/).filter((w) => w !== "" && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
  let k = 0;
  while (k < words.length - 1 && /^(npx|pnpm|yarn|bunx|exec|env|time|node|python3?|uv|poetry|-m|run|--)$/.test(words[k]!)) k++;
  return path.posix.basename(words[k] ?? part);
}
