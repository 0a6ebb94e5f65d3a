/**
 * A failing TAP point's YAML diagnostic block, read as flat strings. This reader is hand-written, and
 * tap-parser is never given a YAML block (tap-stream.ts), for three reasons found when it was:
 * - Safety: tap-parser parses each block with the `yaml` package, which recurses on nested flow
 *   collections. Two outputs with `error: [[[…` (4,000 then 16,000 brackets) aborted Node 20.20.2 with
 *   "FATAL ERROR: RegExpCompiler Allocation failed"; tags and complex keys print warnings on stderr; 10,000
 *   keys took 1.6 s (its duplicate-key check is quadratic). Test output is untrusted text (a pull
 *   request's tests print what they like), and the server must survive it.
 * - Meaning: tape writes values as util.inspect prints them (`expected: { a: 2 }`, `actual: null`), which
 *   real YAML reads as a map and as null; the text as printed is what a failure message should show.
 * - Speed: YAML was three quarters of tap-parser's time on a 5 MB node --test log.
 *
 * Nested maps become dotted keys (`at.fileName`, `error.message`); block scalars are joined (`|` keeps
 * lines, `>` folds them). Only what a failure report needs is read, never anchors or aliases, so hostile
 * YAML costs one pass.
 */
import { indentOf } from "../util.js";

/**
 * Reads lines[from, end) (the lines between `---` and `...`) whose keys are indented `baseIndent` or
 * more. Vitest's TAP puts a multi-line message in a double-quoted scalar with raw newlines and its later
 * lines at column 0: those are joined back into the value.
 */
export function readYaml(lines: string[], from: number, end: number, baseIndent: number): Record<string, string> {
  const into: Record<string, string> = Object.create(null) as Record<string, string>;
  const parents: { indent: number; key: string }[] = [];
  // A double-quoted value whose closing quote has not come yet.
  let open: { key: string; raw: string } | null = null;
  for (let i = from; i < end; i++) {
    const line = lines[i]!;
    const ind = indentOf(line);
    const t = line.slice(ind);
    if (t !== "" && ind < baseIndent && open) {
      open.raw += `\n${line}`;
      into[open.key] = unquote(open.raw);
      if (closesQuote(line, 0)) open = null;
      continue;
    }
    if (t === "" || ind < baseIndent) continue;
    const m = YAML_KEY_RE.exec(t);
    if (!m) continue;
    open = null;
    while (parents.length > 0 && parents[parents.length - 1]!.indent >= ind) parents.pop();
    const own = unquote(m[1]!);
    const key = parents.length > 0 ? `${parents.map((p) => p.key).join(".")}.${own}` : own;
    const raw = (m[2] ?? "").trim();
    if (/^[|>][-+]?$/.test(raw)) {
      const block: string[] = [];
      while (i + 1 < end) {
        const nl = lines[i + 1]!;
        if (nl.trim() !== "" && indentOf(nl) <= ind) break;
        block.push(nl.trim());
        i++;
      }
      into[key] = block.join(raw.startsWith(">") ? " " : "\n").trim();
    } else if (raw === "") {
      parents.push({ indent: ind, key: own });
    } else {
      into[key] = unquote(raw);
      if (raw.startsWith('"') && !closesQuote(raw, 1)) open = { key, raw };
    }
  }
  return into;
}

// `key:` or `'quoted key':` (ava quotes keys that hold a colon), then the value.
const YAML_KEY_RE = /^('(?:[^']|'')*'|"(?:[^"\\]|\\.)*"|[A-Za-z_][\w.-]*):(?:\s+(.*)|$)/;

function unquote(v: string): string {
  if (v.startsWith('"') && !(v.length >= 2 && v.endsWith('"'))) return v.slice(1);
  if (v.length >= 2 && v.startsWith("'") && v.endsWith("'")) return v.slice(1, -1).replace(/''/g, "'");
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) {
    try {
      // A newline printed raw inside the quotes (vitest) is one the value holds.
      return JSON.parse(v.replace(/\n/g, "\\n")) as string;
    } catch {
      return v.slice(1, -1);
    }
  }
  return v;
}

/** Whether an unescaped `"` occurs in s from `from` on. */
function closesQuote(s: string, from: number): boolean {
  for (let k = from; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c === 92 /* \ */) k++;
    else if (c === 34 /* " */) return true;
  }
  return false;
}
