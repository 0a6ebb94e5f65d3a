import type { Syntax } from "./lang.js";

/**
 * A small lexer that separates code from comments and string literals, so that rules looking for
 * code patterns do not fire on text (`"any"`, `// console.log`) and rules looking for comments
 * (TODO) do not fire on code or strings. It is not a parser: it only needs to know, for each
 * character, whether it is code, comment or string content. Output strings have the input's length
 * and newlines, so offsets and line numbers carry over unchanged.
 */

export interface StringLit {
  /** Offset of the opening delimiter. */
  start: number;
  /** Offset just past the closing delimiter (or the end of the line for an unterminated string). */
  end: number;
  quote: string;
  /** Letters glued before the quote (`f` of a Python f-string) or the tag of a JS tagged template. */
  prefix: string;
  /** The raw text between the delimiters (interpolations included as written). */
  value: string;
  /** The source text of each `${...}` (JS) or `{...}` (Python f-string) interpolation. */
  interpolations: string[];
}

export interface Masked {
  /** Code only: comment text and string contents are blanked (delimiters and `${ }` code kept). */
  code: string;
  /** Comments only (markers included); everything else blanked. */
  comments: string;
  strings: StringLit[];
}

export interface LexOptions {
  /** The text starts inside a block comment (a diff hunk that begins in the middle of a doc comment). */
  startInBlockComment?: boolean;
}

const REGEX_PREV_KEYWORDS = new Set(["return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "yield", "await", "instanceof"]);

export function lex(text: string, syntax: Syntax, opts: LexOptions = {}): Masked {
  const n = text.length;
  const code = text.split("");
  const comments = new Array<string>(n);
  for (let i = 0; i < n; i++) comments[i] = text[i] === "\n" ? "\n" : " ";
  const strings: StringLit[] = [];
  if (syntax === "none") return { code: text, comments: comments.join(""), strings };

  const blank = (from: number, to: number): void => {
    for (let k = from; k < to && k < n; k++) if (code[k] !== "\n") code[k] = " ";
  };
  const markComment = (from: number, to: number): void => {
    for (let k = from; k < to && k < n; k++) {
      if (text[k] !== "\n") {
        comments[k] = text[k]!;
        code[k] = " ";
      }
    }
  };

  const lineComment = syntax === "js" || syntax === "c" ? "//" : syntax === "sql" ? "--" : syntax === "python" || syntax === "hash" ? "#" : null;
  const blockOpen = syntax === "js" || syntax === "c" || syntax === "sql" ? "/*" : syntax === "markup" ? "<!--" : null;
  const blockClose = syntax === "markup" ? "-->" : "*/";

  /** Last significant code character before `i` (used to tell a regex literal from a division). */
  const prevSignificant = (i: number): { ch: string; word: string } => {
    let k = i - 1;
    while (k >= 0 && /\s/.test(code[k]!)) k--;
    if (k < 0) return { ch: "", word: "" };
    const ch = code[k]!;
    let w = k;
    while (w >= 0 && /[\w$]/.test(code[w]!)) w--;
    return { ch, word: code.slice(w + 1, k + 1).join("") };
  };

  /** Scans a quoted string starting at `i` (the quote); returns the offset past its end. */
  const scanSimpleString = (i: number, quote: string, multiline: boolean): number => {
    let k = i + quote.length;
    while (k < n) {
      const c = text[k]!;
      if (c === "\\") {
        k += 2;
        continue;
      }
      if (text.startsWith(quote, k)) return k + quote.length;
      if (c === "\n" && !multiline) return k;
      k++;
    }
    return n;
  };

  const prefixBefore = (i: number): string => {
    let k = i - 1;
    while (k >= 0 && /[A-Za-z_$\d.]/.test(text[k]!)) k--;
    return text.slice(k + 1, i);
  };

  const pythonInterpolations = (value: string): string[] => {
    const out: string[] = [];
    const re = /\{\{|\}\}|\{([^{}]*)\}/g;
    for (let m = re.exec(value); m; m = re.exec(value)) if (m[1] !== undefined) out.push(m[1]);
    return out;
  };

  /**
   * Scans a JS template literal whose backtick is at `i`. Interpolated code keeps being lexed as code
   * (it may hold strings and nested templates). Returns the offset past the closing backtick.
   */
  const scanTemplate = (i: number): number => {
    const lit: StringLit = { start: i, end: n, quote: "`", prefix: "", value: "", interpolations: [] };
    const p = prevSignificant(i);
    if (/[\w$)\]]/.test(p.ch) && !REGEX_PREV_KEYWORDS.has(p.word) && p.word !== "") lit.prefix = p.word;
    strings.push(lit);
    let k = i + 1;
    let textStart = k;
    while (k < n) {
      const c = text[k]!;
      if (c === "\\") {
        k += 2;
        continue;
      }
      if (c === "`") {
        blank(textStart, k);
        lit.end = k + 1;
        lit.value = text.slice(i + 1, k);
        return k + 1;
      }
      if (c === "$" && text[k + 1] === "{") {
        blank(textStart, k);
        const exprStart = k + 2;
        k = scanCode(exprStart, "}");
        lit.interpolations.push(text.slice(exprStart, Math.max(exprStart, k - 1)));
        textStart = k;
        continue;
      }
      k++;
    }
    blank(textStart, n);
    lit.value = text.slice(i + 1);
    return n;
  };

  /**
   * Lexes code from `i` until the `closer` at depth 0 (for `${ ... }`) or the end. Returns the offset
   * past the closer.
   */
  const scanCode = (start: number, closer: string | null): number => {
    let depth = 0;
    let i = start;
    while (i < n) {
      const c = text[i]!;
      if (closer !== null) {
        if (c === "{") depth++;
        else if (c === "}") {
          if (depth === 0) return i + 1;
          depth--;
        }
      }
      if (blockOpen && text.startsWith(blockOpen, i)) {
        const end = text.indexOf(blockClose, i + blockOpen.length);
        const stop = end < 0 ? n : end + blockClose.length;
        markComment(i, stop);
        i = stop;
        continue;
      }
      if (lineComment && text.startsWith(lineComment, i)) {
        // In shell and YAML `#` starts a comment only after a blank (`$#`, `${#x}`, `url#anchor`).
        const ok = syntax !== "hash" || i === 0 || /[\s;(]/.test(text[i - 1]!);
        if (ok) {
          let end = text.indexOf("\n", i);
          if (end < 0) end = n;
          markComment(i, end);
          i = end;
          continue;
        }
      }
      if (syntax === "markup") {
        i++;
        continue;
      }
      if (syntax === "js" && c === "`") {
        i = scanTemplate(i);
        continue;
      }
      if (syntax === "c" && c === "`") {
        // Go raw strings span lines.
        const end = scanSimpleString(i, "`", true);
        strings.push({ start: i, end, quote: "`", prefix: "", value: text.slice(i + 1, Math.max(i + 1, end - 1)), interpolations: [] });
        blank(i + 1, end - 1);
        i = end;
        continue;
      }
      if (syntax === "python" && (text.startsWith('"""', i) || text.startsWith("'''", i))) {
        const q = text.slice(i, i + 3);
        const end = scanSimpleString(i, q, true);
        const prefix = prefixBefore(i);
        const value = text.slice(i + 3, Math.max(i + 3, end - 3));
        strings.push({ start: i, end, quote: q, prefix, value, interpolations: /f/i.test(prefix) ? pythonInterpolations(value) : [] });
        blank(i + 3, end - 3);
        i = end;
        continue;
      }
      if (c === '"' || c === "'") {
        if (syntax === "c" && c === "'") {
          // A char literal ('a', '\n') in C-like languages; a Rust lifetime ('a) has no closing quote.
          const close = text.indexOf("'", i + 1);
          if (close < 0 || close - i > 8 || text.slice(i, close).includes("\n")) {
            i++;
            continue;
          }
        }
        const end = scanSimpleString(i, c, false);
        const closed = text[end - 1] === c && end - 1 > i;
        const valueEnd = closed ? end - 1 : end;
        const prefix = syntax === "python" ? prefixBefore(i) : "";
        const value = text.slice(i + 1, valueEnd);
        strings.push({ start: i, end, quote: c, prefix, value, interpolations: /f/i.test(prefix) ? pythonInterpolations(value) : [] });
        blank(i + 1, valueEnd);
        i = end;
        continue;
      }
      if (syntax === "js" && c === "/" && text[i + 1] !== "/" && text[i + 1] !== "*") {
        const p = prevSignificant(i);
        const regexAllowed = p.ch === "" || /[(,=:[!&|?{};+\-*%<>~^]/.test(p.ch) || REGEX_PREV_KEYWORDS.has(p.word);
        if (regexAllowed) {
          // Find the closing slash on the same line (outside character classes); if there is none,
          // this was a division after all.
          let k = i + 1;
          let inClass = false;
          let closed = -1;
          while (k < n && text[k] !== "\n") {
            const d = text[k]!;
            if (d === "\\") {
              k += 2;
              continue;
            }
            if (d === "[") inClass = true;
            else if (d === "]") inClass = false;
            else if (d === "/" && !inClass) {
              closed = k;
              break;
            }
            k++;
          }
          if (closed > i + 1) {
            blank(i + 1, closed);
            i = closed + 1;
            while (i < n && /[a-z]/.test(text[i]!)) i++;
            continue;
          }
        }
      }
      i++;
    }
    return n;
  };

  let start = 0;
  if (opts.startInBlockComment && blockOpen) {
    const end = text.indexOf(blockClose);
    start = end < 0 ? n : end + blockClose.length;
    markComment(0, start);
  }
  scanCode(start, null);
  // Nested templates are recorded after their outer template: keep the list in source order.
  strings.sort((a, b) => a.start - b.start);
  return { code: code.join(""), comments: comments.join(""), strings };
}

const byStart = new WeakMap<Masked, Map<number, StringLit>>();

/** The string literal whose opening delimiter is at `offset` (indexed once per lexed text). */
export function stringAt(masked: Masked, offset: number): StringLit | undefined {
  let index = byStart.get(masked);
  if (!index) {
    index = new Map(masked.strings.map((s) => [s.start, s]));
    byStart.set(masked, index);
  }
  return index.get(offset);
}

/** String literals that start in [from, to), in source order (binary search on the sorted list). */
export function stringsStartingIn(masked: Masked, from: number, to: number): StringLit[] {
  const list = masked.strings;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.start < from) lo = mid + 1;
    else hi = mid;
  }
  const out: StringLit[] = [];
  for (let i = lo; i < list.length && list[i]!.start < to; i++) out.push(list[i]!);
  return out;
}

/** Whether a hunk that starts with this line probably starts inside a block comment. */
export function looksInsideBlockComment(firstLine: string): boolean {
  return /^\s*\*(?!\*?\/\s*\S)/.test(firstLine) && !/^\s*\/\*/.test(firstLine);
}
