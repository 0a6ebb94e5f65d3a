import { decodeText, hasFinalNewline } from "./text.js";

const BOM = "\uFEFF";

/**
 * Whole-file content from the model is LF text without a byte-order mark. Written as is over a CRLF or
 * BOM file, every line would show as changed in the user's diff; keep the file's conventions instead.
 */
export function matchExistingText(path: string, content: string, before: Buffer | null, warnings: string[]): Buffer {
  const d = before === null ? undefined : decodeText(before);
  if (!d?.ok || d.doc.lines.length === 0) return Buffer.from(content, "utf8");
  let s = content;
  if (d.doc.eol === "\r\n" && s.includes("\n") && !s.includes("\r\n")) {
    s = s.replace(/\n/g, "\r\n");
    warnings.push(`${path}: the file uses CRLF line endings; the LF content sent was converted to CRLF`);
  }
  if (d.doc.bom && !s.startsWith(BOM)) {
    s = BOM + s;
    warnings.push(`${path}: kept the file's UTF-8 byte-order mark`);
  }
  return Buffer.from(s, "utf8");
}

/** A remark when a write changes nothing that matters (identical, whitespace, line endings); undefined otherwise. */
export function changeNote(before: Buffer | null, after: Buffer): string | undefined {
  if (before === null) return undefined;
  if (before.equals(after)) return "content identical to the current file (no change)";
  const a = decodeText(before);
  const b = decodeText(after);
  if (!a.ok || !b.ok) return undefined;
  const la = a.doc.lines;
  const lb = b.doc.lines;
  // Only the differing middle needs comparing; identical leading and trailing lines contribute equally.
  let pre = 0;
  while (pre < la.length && pre < lb.length && la[pre] === lb[pre]) pre++;
  let suf = 0;
  while (suf < la.length - pre && suf < lb.length - pre && la[la.length - 1 - suf] === lb[lb.length - 1 - suf]) suf++;
  const midA = la.slice(pre, la.length - suf);
  const midB = lb.slice(pre, lb.length - suf);
  if (midA.length === 0 && midB.length === 0 && hasFinalNewline(a.doc) === hasFinalNewline(b.doc)) {
    return a.doc.bom !== b.doc.bom ? "only the byte-order mark changes" : "only line endings change";
  }
  return equalIgnoringWs(midA, midB) ? "whitespace-only change" : undefined;
}

const isWs = (c: number) => c === 32 || c === 9 || c === 13 || c === 10 || c === 12 || c === 11 || c === 0xa0 || c === 0xfeff;

/** Compares without building stripped copies, stopping at the first real difference (the usual case). */
function equalIgnoringWs(a: string[], b: string[]): boolean {
  let i = 0;
  let p = 0;
  let j = 0;
  let q = 0;
  const next = (lines: string[], li: number, pos: number): [number, number] => {
    while (li < lines.length) {
      const line = lines[li]!;
      while (pos < line.length && isWs(line.charCodeAt(pos))) pos++;
      if (pos < line.length) return [li, pos];
      li++;
      pos = 0;
    }
    return [li, 0];
  };
  for (;;) {
    [i, p] = next(a, i, p);
    [j, q] = next(b, j, q);
    if (i >= a.length || j >= b.length) return i >= a.length && j >= b.length;
    if (a[i]!.charCodeAt(p) !== b[j]!.charCodeAt(q)) return false;
    p++;
    q++;
  }
}
