/**
 * The text model every editing mode works on. Lines are stored without their terminators, and each
 * line remembers its own terminator, so CRLF files, mixed files and a missing final newline survive an
 * edit byte for byte outside the lines that changed. Models send LF text; new lines get the file's
 * dominant terminator.
 */
export type Eol = "\n" | "\r\n";

export interface TextDoc {
  bom: boolean;
  lines: string[];
  /** Terminator of each line: "\n", "\r\n", or "" for a last line without a final newline. */
  eols: string[];
  /** Terminator given to lines the edit adds. */
  eol: Eol;
}

export type Decoded = { ok: true; doc: TextDoc } | { ok: false; reason: string };

const BOM = "\uFEFF";

/** Why a buffer cannot be edited as text, or null when it can. Git's own test is a NUL byte; we add strict UTF-8. */
export function binaryReason(buf: Buffer): string | null {
  const d = decodeText(buf);
  return d.ok ? null : d.reason;
}

export function decodeText(buf: Buffer): Decoded {
  if (buf.indexOf(0) !== -1) return { ok: false, reason: "binary file (contains NUL bytes)" };
  let s: string;
  try {
    s = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(buf);
  } catch {
    return { ok: false, reason: "not valid UTF-8 (binary, or text in another encoding)" };
  }
  return { ok: true, doc: parseText(s) };
}

export function parseText(s: string): TextDoc {
  const bom = s.startsWith(BOM);
  if (bom) s = s.slice(1);
  const lines: string[] = [];
  const eols: string[] = [];
  let crlf = 0;
  let lf = 0;
  let start = 0;
  for (;;) {
    const nl = s.indexOf("\n", start);
    if (nl === -1) break;
    if (nl > start && s.charCodeAt(nl - 1) === 13) {
      lines.push(s.slice(start, nl - 1));
      eols.push("\r\n");
      crlf++;
    } else {
      lines.push(s.slice(start, nl));
      eols.push("\n");
      lf++;
    }
    start = nl + 1;
  }
  if (start < s.length) {
    lines.push(s.slice(start));
    eols.push("");
  }
  return { bom, lines, eols, eol: crlf > lf ? "\r\n" : "\n" };
}

export function encodeText(doc: TextDoc): Buffer {
  let s = doc.bom ? BOM : "";
  for (let i = 0; i < doc.lines.length; i++) s += doc.lines[i]! + doc.eols[i]!;
  return Buffer.from(s, "utf8");
}

/** An empty file counts as ending with a newline: adding lines to it should not leave the last one unterminated. */
export function hasFinalNewline(doc: TextDoc): boolean {
  return doc.lines.length === 0 || doc.eols[doc.eols.length - 1] !== "";
}

export function emptyDoc(): TextDoc {
  return { bom: false, lines: [], eols: [], eol: "\n" };
}

export function toLF(s: string): string {
  return s.includes("\r\n") ? s.replace(/\r\n/g, "\n") : s;
}

/** The document as LF text without BOM: what the model saw and what `replace` searches. */
export function docToLF(doc: TextDoc): string {
  if (doc.lines.length === 0) return "";
  return doc.lines.join("\n") + (hasFinalNewline(doc) ? "\n" : "");
}

/** Splits model-sent content into lines; one trailing newline is a terminator, not an extra empty line. */
export function contentLines(content: string): string[] {
  const s = toLF(content);
  const body = s.endsWith("\n") ? s.slice(0, -1) : s;
  return body.split("\n");
}
