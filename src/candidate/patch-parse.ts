import parseDiff from "parse-diff";
import { toLF } from "./text.js";

/**
 * Unified-diff parsing for LLM output. parse-diff decodes well-formed hunks, but it trusts the `@@`
 * counts to find where a hunk ends: a miscounted hunk swallows the next file's header or drops its own
 * last lines. So the text is first cut into file sections and hunk bodies without relying on counts,
 * each hunk is rewritten with correct counts, and only then handed to parse-diff. Git's extended
 * headers that parse-diff ignores (rename, copy, binary) are read here.
 */

export interface HunkLine {
  kind: " " | "-" | "+";
  text: string;
}

export interface Hunk {
  /** 1-based position among its file's hunks. */
  index: number;
  /** The `@@` line as sent. */
  header: string;
  /** Stated first line of the old side; null when the `@@` line carries no usable numbers. */
  oldStart: number | null;
  lines: HunkLine[];
  /** `\ No newline at end of file` after the last old-side / new-side line. */
  oldNoEol: boolean;
  newNoEol: boolean;
}

export interface FilePatch {
  /** Names with the `a/` `b/` prefixes removed when the patch uses them; null is /dev/null. */
  oldPath: string | null;
  newPath: string | null;
  /** Names exactly as written, for a repository whose paths really start with `a/`. */
  oldPathRaw: string | null;
  newPathRaw: string | null;
  isNew: boolean;
  isDeleted: boolean;
  isRename: boolean;
  isCopy: boolean;
  oldMode?: string;
  newMode?: string;
  binary: boolean;
  hunks: Hunk[];
  /** Repairs made while reading (miscounted hunks, missing leading spaces), for the fuzz report. */
  notes: string[];
  /** 1-based line of the patch where this file starts. */
  line: number;
}

interface RawHunk {
  header: string;
  oldStart: number | null;
  newStart: number | null;
  body: string[];
}

interface Section {
  line: number;
  header: string[];
  hasFileNames: boolean;
  hunks: RawHunk[];
  notes: string[];
}

const FENCE = /^```/;
const HUNK_HEADER = /^@@+\s*-(\d+)(?:,(\d+))?\s+\+(\d+)(?:,(\d+))?\s*@@/;

function isHardBoundary(l: string): boolean {
  return l.startsWith("@@") || l.startsWith("diff ") || l.startsWith("Index: ") || FENCE.test(l);
}

/** `--- x` / `+++ y` followed by a hunk is a file header, even inside a miscounted hunk. */
function isFileHeaderAt(lines: string[], j: number): boolean {
  return lines[j]!.startsWith("--- ") && (lines[j + 1]?.startsWith("+++ ") ?? false) && (lines[j + 2]?.startsWith("@@") ?? false);
}

const isDiffLine = (l: string) => l === "" || /^[ +\-\\]/.test(l);

/** Where the hunk ends if its `@@` counts are right, or null if they cannot be (body too short, stray lines). */
function countedEnd(lines: string[], h: number, oldCount: number, newCount: number): number | null {
  let o = oldCount;
  let n = newCount;
  let j = h + 1;
  while (o > 0 || n > 0) {
    const l = lines[j];
    if (l === undefined || isHardBoundary(l) || isFileHeaderAt(lines, j)) return null;
    const c = l === "" ? " " : l[0];
    if (c === " ") {
      o--;
      n--;
    } else if (c === "-") o--;
    else if (c === "+") n--;
    else if (c !== "\\") return null;
    if (o < 0 || n < 0) return null;
    j++;
  }
  if (lines[j]?.startsWith("\\")) j++;
  return j;
}

function readHunk(lines: string[], h: number, section: Section): number {
  const header = lines[h]!;
  const m = HUNK_HEADER.exec(header);
  let scanEnd = h + 1;
  while (scanEnd < lines.length && !isHardBoundary(lines[scanEnd]!) && !isFileHeaderAt(lines, scanEnd)) scanEnd++;
  let end = scanEnd;
  const counted = m ? countedEnd(lines, h, Number(m[2] ?? 1), Number(m[4] ?? 1)) : null;
  if (counted !== null && lines.slice(counted, scanEnd).every((l) => l === "" || !isDiffLine(l))) {
    end = counted;
  } else {
    // Trailing blank or prose lines are separators; dropping trailing context never changes the result.
    while (end > h + 1 && (lines[end - 1] === "" || !isDiffLine(lines[end - 1]!))) end--;
  }
  const index = section.hunks.length + 1;
  const body: string[] = [];
  let unprefixed = 0;
  for (const l of lines.slice(h + 1, end)) {
    if (l === "") body.push(" ");
    // Any marker line means "no newline"; parse-diff only knows git's English wording.
    else if (l.startsWith("\\")) body.push("\\ No newline at end of file");
    else if (isDiffLine(l)) body.push(l);
    else {
      body.push(` ${l}`);
      unprefixed++;
    }
  }
  if (unprefixed > 0) section.notes.push(`hunk ${index}: ${unprefixed} line(s) without a leading space read as context`);
  if (m) {
    const oldLines = body.filter((l) => l[0] === " " || l[0] === "-").length;
    const newLines = body.filter((l) => l[0] === " " || l[0] === "+").length;
    const saidOld = Number(m[2] ?? 1);
    const saidNew = Number(m[4] ?? 1);
    if (oldLines !== saidOld || newLines !== saidNew) {
      section.notes.push(`hunk ${index}: @@ counts -${saidOld} +${saidNew} do not match its ${oldLines} old / ${newLines} new lines; the lines were used`);
    }
  }
  section.hunks.push({ header, oldStart: m ? Number(m[1]) : null, newStart: m ? Number(m[3]) : null, body });
  return end;
}

function splitSections(text: string): Section[] {
  const lines = toLF(text).split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const sections: Section[] = [];
  let cur: Section | undefined;
  const open = (i: number) => {
    cur = { line: i + 1, header: [], hasFileNames: false, hunks: [], notes: [] };
    sections.push(cur);
    return cur;
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (FENCE.test(line)) {
      i++;
    } else if (line.startsWith("Index: ")) {
      open(i).header.push(line);
      i++;
    } else if (line.startsWith("diff ")) {
      // A `diff` line right after `Index:` (svn, cvs) belongs to the same file.
      const afterIndex = cur !== undefined && cur.hunks.length === 0 && !cur.hasFileNames && (cur.header[0]?.startsWith("Index: ") ?? false);
      (afterIndex ? cur! : open(i)).header.push(line);
      i++;
    } else if (line.startsWith("--- ") && lines[i + 1]?.startsWith("+++ ")) {
      if (!cur || cur.hunks.length > 0 || cur.hasFileNames) open(i);
      cur!.header.push(line, lines[i + 1]!);
      cur!.hasFileNames = true;
      i += 2;
    } else if (line.startsWith("@@")) {
      i = readHunk(lines, i, cur ?? open(i));
    } else {
      if (cur && cur.hunks.length === 0) cur.header.push(line);
      i++;
    }
  }
  return sections;
}

/** Git writes names with special characters as C strings with octal escapes of UTF-8 bytes. */
function unquote(s: string): string {
  if (!s.startsWith('"')) return s;
  const bytes: number[] = [];
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, "\\": 92, a: 7, b: 8, f: 12, v: 11 };
  for (let i = 1; i < s.length; i++) {
    const c = s[i]!;
    if (c === '"') break;
    if (c === "\\") {
      const nx = s[i + 1] ?? "";
      if (/[0-7]/.test(nx)) {
        bytes.push(parseInt(s.slice(i + 1, i + 4), 8));
        i += 3;
      } else {
        bytes.push(simple[nx] ?? nx.charCodeAt(0));
        i += 1;
      }
    } else bytes.push(...Buffer.from(c, "utf8"));
  }
  return Buffer.from(bytes).toString("utf8");
}

const TIMESTAMP = /\s+\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?( ?[+-]\d{4})?$/;

/** The name on a `---` / `+++` line: timestamps, quotes and trailing blanks removed; null for /dev/null. */
function headerName(rest: string): string | null {
  let name = rest.includes("\t") ? rest.slice(0, rest.indexOf("\t")) : rest;
  name = unquote(name.trim().replace(TIMESTAMP, ""));
  return name === "/dev/null" ? null : name;
}

/** The two names of `diff --git a/x b/x`; with spaces in names, the split that gives equal names wins. */
function gitLineNames(rest: string): [string, string] | undefined {
  if (rest.startsWith('"')) {
    const close = rest.indexOf('" ', 1);
    if (close === -1) return undefined;
    return [unquote(rest.slice(0, close + 1)), unquote(rest.slice(close + 2).trim())];
  }
  const strip = (s: string) => s.replace(/^[ab]\//, "");
  let fallback: [string, string] | undefined;
  for (let s = rest.indexOf(" "); s !== -1; s = rest.indexOf(" ", s + 1)) {
    const a = rest.slice(0, s);
    const b = unquote(rest.slice(s + 1));
    if (strip(a) === strip(b)) return [a, b];
    if (!fallback && b.startsWith("b/")) fallback = [a, b];
  }
  return fallback;
}

function buildFile(section: Section): FilePatch {
  let gitNames: [string, string] | undefined;
  let minus: string | null | undefined;
  let plus: string | null | undefined;
  let renameFrom: string | undefined;
  let renameTo: string | undefined;
  let copy = false;
  let binary = false;
  let indexName: string | undefined;
  for (const h of section.header) {
    let m: RegExpExecArray | null;
    if (h.startsWith("diff --git ")) gitNames = gitLineNames(h.slice(11));
    else if (h.startsWith("--- ")) minus = headerName(h.slice(4));
    else if (h.startsWith("+++ ")) plus = headerName(h.slice(4));
    else if ((m = /^(rename|copy) (from|to) (.+)$/.exec(h))) {
      if (m[1] === "copy") copy = true;
      if (m[2] === "from") renameFrom = unquote(m[3]!);
      else renameTo = unquote(m[3]!);
    } else if (h.startsWith("Index: ")) indexName = h.slice(7).trim();
    else if (h.startsWith("GIT binary patch") || /^Binary files .* differ$/.test(h)) binary = true;
  }
  const rawOld = minus !== undefined ? minus : (gitNames?.[0] ?? indexName ?? null);
  const rawNew = plus !== undefined ? plus : (gitNames?.[1] ?? indexName ?? null);
  const prefixed = (rawOld === null || rawOld.startsWith("a/")) && (rawNew === null || rawNew.startsWith("b/")) && (rawOld ?? rawNew) !== null;
  let oldPath = prefixed && rawOld !== null ? rawOld.slice(2) : rawOld;
  let newPath = prefixed && rawNew !== null ? rawNew.slice(2) : rawNew;
  if (renameFrom !== undefined) oldPath = renameFrom;
  if (renameTo !== undefined) newPath = renameTo;

  const text = [...section.header, ...section.hunks.flatMap((h) => [repairedHeader(h), ...h.body])].join("\n");
  const parsed = parseDiff(text)[0];
  const chunks = parsed?.chunks ?? [];
  const hunks: Hunk[] = section.hunks.map((raw, k) => {
    const chunk = chunks[k];
    const hunk: Hunk = { index: k + 1, header: raw.header, oldStart: raw.oldStart, lines: [], oldNoEol: false, newNoEol: false };
    // parse-diff returns the `\ No newline` marker as a copy of the change it follows.
    for (const ch of chunk?.changes ?? []) {
      if (ch.content.startsWith("\\")) {
        const prev = hunk.lines[hunk.lines.length - 1];
        if (prev?.kind !== "+") hunk.oldNoEol = true;
        if (prev?.kind !== "-") hunk.newNoEol = true;
        continue;
      }
      hunk.lines.push({ kind: ch.type === "add" ? "+" : ch.type === "del" ? "-" : " ", text: ch.content.slice(1) });
    }
    return hunk;
  });
  if (chunks.length !== section.hunks.length) section.notes.push(`parse-diff read ${chunks.length} of ${section.hunks.length} hunks`);
  const isNew = Boolean(parsed?.new) || (rawOld === null && rawNew !== null);
  const isDeleted = Boolean(parsed?.deleted) || (rawNew === null && rawOld !== null);
  return {
    oldPath: isNew ? null : oldPath,
    newPath: isDeleted ? null : newPath,
    oldPathRaw: isNew ? null : (renameFrom ?? rawOld),
    newPathRaw: isDeleted ? null : (renameTo ?? rawNew),
    isNew,
    isDeleted,
    isRename: !copy && !isNew && !isDeleted && oldPath !== null && newPath !== null && oldPath !== newPath,
    isCopy: copy,
    ...(parsed?.oldMode ? { oldMode: parsed.oldMode } : {}),
    ...(parsed?.newMode ? { newMode: parsed.newMode } : {}),
    binary,
    hunks,
    notes: section.notes,
    line: section.line,
  };
}

function repairedHeader(h: RawHunk): string {
  const oldCount = h.body.filter((l) => l[0] === " " || l[0] === "-").length;
  const newCount = h.body.filter((l) => l[0] === " " || l[0] === "+").length;
  return `@@ -${h.oldStart ?? 1},${oldCount} +${h.newStart ?? 1},${newCount} @@`;
}

/** Reads every file of a (possibly sloppy) unified diff. Sections with neither names nor hunks are dropped. */
export function parsePatch(text: string): FilePatch[] {
  return splitSections(text)
    .filter((s) => s.hunks.length > 0 || s.header.some((h) => /^(diff |--- |rename |copy |new file|deleted file|Binary files|GIT binary)/.test(h)))
    .map(buildFile);
}
