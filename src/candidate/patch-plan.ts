import type { UserError } from "../util/errors.js";
import { normalizeRelPath } from "../util/paths.js";
import { applyHunks } from "./patch-apply.js";
import { type FilePatch, parsePatch } from "./patch-parse.js";
import type { Candidate } from "./schema.js";
import { decodeText, emptyDoc, encodeText, type TextDoc } from "./text.js";
import { CandidateError, type CandidateIssue, type FileOp, linkTextOf, type Plan, type TreeReader } from "./types.js";

/** Planning state shared by the files of one candidate: everything is collected, nothing thrown early. */
class Collector {
  readonly ops: FileOp[] = [];
  readonly issues: CandidateIssue[] = [];
  readonly warnings: string[] = [];
  readonly fuzz: string[] = [];
  private readonly touched = new Map<string, string>();

  constructor(readonly tree: TreeReader) {}

  path(p: string, what: string): string | null {
    try {
      return normalizeRelPath(p);
    } catch (err) {
      this.issues.push({ file: p, message: `${what}: ${(err as UserError).message}`, hint: (err as UserError).hint });
      return null;
    }
  }

  /** Refuses a second operation on one path: the outcome would depend on an order the model cannot see. */
  claim(path: string, by: string): boolean {
    const prev = this.touched.get(path);
    if (prev !== undefined) {
      this.issues.push({ file: path, message: `changed twice in one candidate (${prev} and ${by})`, hint: "Change each file once per candidate." });
      return false;
    }
    this.touched.set(path, by);
    return true;
  }

  plan(): Plan {
    if (this.issues.length > 0) throw new CandidateError(this.issues);
    return { ops: this.ops, warnings: this.warnings, fuzz: this.fuzz };
  }
}

/** The file as text; "binary" has already been reported as an issue. */
async function readText(col: Collector, path: string, mode: string): Promise<TextDoc | "missing" | "binary"> {
  const buf = await col.tree.read(path);
  if (buf === null) return "missing";
  const d = decodeText(buf);
  if (d.ok) return d.doc;
  col.issues.push({
    file: path,
    message: `${d.reason}; mode ${mode} only edits UTF-8 text files`,
    hint: "Binary files cannot be patched: replace the whole file with mode files, or remove it with mode delete.",
  });
  return "binary";
}

/** The first of the patch's spellings of a name that exists (a repository may really have an `a/` folder). */
async function existingPath(col: Collector, fp: FilePatch, side: "old" | "new"): Promise<string | null> {
  const primary = side === "old" ? fp.oldPath : fp.newPath;
  const raw = side === "old" ? fp.oldPathRaw : fp.newPathRaw;
  const spellings = [primary, raw, raw?.replace(/^[ab]\//, "")].filter((s): s is string => typeof s === "string");
  for (const s of new Set(spellings)) {
    let rel: string;
    try {
      rel = normalizeRelPath(s);
    } catch {
      continue;
    }
    // A link is there as itself, whatever it points at (a folder, nothing, outside): not read through here.
    if ((await linkTextOf(col.tree, rel)) !== null || (await col.tree.read(rel)) !== null) return rel;
  }
  return primary === null ? null : col.path(primary, "file name in the patch");
}

function applyInto(col: Collector, doc: TextDoc, fp: FilePatch, file: string): Buffer | null {
  const r = applyHunks(doc, fp.hunks, file);
  if (!r.ok) {
    col.issues.push(...r.issues);
    return null;
  }
  col.fuzz.push(...r.fuzz);
  col.warnings.push(...r.warnings);
  return encodeText(r.doc);
}

async function planNew(col: Collector, fp: FilePatch, label: string): Promise<void> {
  const path = fp.newPath === null ? null : col.path(fp.newPath, label);
  if (path === null) return;
  const bad = fp.hunks.find((h) => h.lines.some((l) => l.kind !== "+"));
  if (bad) {
    col.issues.push({
      file: path,
      hunk: bad.index,
      message: `hunk ${bad.index} of a new file has context or removed lines; a new file's hunks may only add lines`,
      hint: "Send new files with mode create (whole content), or as a hunk of '+' lines after --- /dev/null.",
    });
    return;
  }
  const existing = await col.tree.read(path);
  const content = applyInto(col, emptyDoc(), fp, path);
  if (content === null) return;
  if (existing !== null) {
    if (existing.equals(content)) {
      col.warnings.push(`${path}: the patch creates it, but it already exists with exactly this content; left as is`);
    } else {
      col.issues.push({
        file: path,
        message: "the patch creates this file (from /dev/null), but it already exists",
        hint: "Send a diff against its current content, or replace it with mode files.",
      });
    }
    return;
  }
  if (col.claim(path, label)) col.ops.push({ op: "write", path, content, create: true });
}

async function planDelete(col: Collector, fp: FilePatch, label: string): Promise<void> {
  const path = await existingPath(col, fp, "old");
  if (path === null) return;
  // A link's deletion removes the link: git's diff of it removes the link's text (`-target`, mode
  // 120000); a diff that removes the content of the file it points at is taken as meant too.
  const link = await linkTextOf(col.tree, path);
  const cur = link === null ? await col.tree.read(path) : null;
  if (link === null && cur === null) {
    col.issues.push({ file: path, message: "the patch deletes this file, but it does not exist", hint: "Check the path with trm_read_files." });
    return;
  }
  if (fp.hunks.length > 0) {
    const removes = (buf: Buffer | null) => {
      const d = buf === null ? null : decodeText(buf);
      const r = d?.ok ? applyHunks(d.doc, fp.hunks, path) : undefined;
      return r?.ok === true && r.doc.lines.length === 0;
    };
    const through = async () => {
      try {
        return removes(await col.tree.read(path));
      } catch {
        return false; // a link out of the worktree is not read through
      }
    };
    if (!(link === null ? removes(cur) : removes(Buffer.from(link, "utf8")) || (await through()))) {
      // As git apply does: a deletion whose lines are not the file's is a patch made for another file.
      col.issues.push({
        file: path,
        message: "the patch deletes this file, but the lines it removes are not the file's current content",
        hint: `Re-read the file, or delete it regardless with {"mode":"delete","paths":["${path}"]}.`,
      });
      return;
    }
  }
  if (col.claim(path, label)) col.ops.push({ op: "delete", path });
}

async function planRenameOrCopy(col: Collector, fp: FilePatch, label: string): Promise<void> {
  const from = await existingPath(col, fp, "old");
  const to = fp.newPath === null ? null : col.path(fp.newPath, label);
  if (from === null || to === null) return;
  const what = fp.isCopy ? "copies" : "renames";
  const src = await col.tree.read(from);
  if (src === null) {
    col.issues.push({ file: from, message: `the patch ${what} ${from} to ${to}, but ${from} does not exist`, hint: "Check the path with trm_read_files." });
    return;
  }
  if ((await col.tree.read(to)) !== null) {
    col.issues.push({
      file: to,
      message: `the patch ${what} ${from} to ${to}, but ${to} already exists`,
      hint: "Delete or rename the existing file first, or patch it in place.",
    });
    return;
  }
  let content: Buffer | null = src;
  if (fp.hunks.length > 0) {
    const t = await readText(col, from, "patch");
    content = typeof t === "string" ? null : applyInto(col, t, fp, to);
  }
  if (content === null) return;
  if (!fp.isCopy && !col.claim(from, label)) return;
  if (!col.claim(to, label)) return;
  col.ops.push({ op: "write", path: to, content, create: true });
  if (!fp.isCopy) col.ops.push({ op: "delete", path: from });
}

async function planModify(col: Collector, fp: FilePatch, label: string, mode: string): Promise<void> {
  const path = await existingPath(col, fp, "new");
  if (path === null) return;
  if (fp.hunks.length === 0) {
    col.warnings.push(`${path}: no hunks in the ${mode}; nothing to change`);
    return;
  }
  const t = await readText(col, path, mode);
  if (t === "binary") return;
  if (t === "missing") {
    const allAdds = fp.hunks.every((h) => h.lines.every((l) => l.kind === "+"));
    // `--- a/path` with `@@ -0,0 +1,N @@`: git apply takes an empty old side for a creation, and so do we.
    if (allAdds && fp.hunks.length === 1 && fp.hunks[0]!.oldStart === 0) {
      await planNew(col, { ...fp, isNew: true, oldPath: null, oldPathRaw: null, newPath: path }, label);
      return;
    }
    col.issues.push({
      file: path,
      message: "does not exist, so it cannot be patched",
      hint: allAdds ? "To create it, use --- /dev/null as the old name, or mode create." : "Check the path with trm_read_files.",
    });
    return;
  }
  const content = applyInto(col, t, fp, path);
  if (content === null) return;
  if (col.claim(path, label)) col.ops.push({ op: "write", path, content, create: false });
}

async function planFilePatch(col: Collector, fp: FilePatch, label: string, mode: string): Promise<void> {
  const name = fp.newPath ?? fp.oldPath ?? "?";
  col.fuzz.push(...fp.notes.map((n) => `${name} ${n}`));
  if (fp.binary) {
    col.issues.push({
      file: name,
      message: "binary diff; only text diffs can be applied",
      hint: "Replace binary files with mode files, or remove them with mode delete.",
    });
    return;
  }
  if (fp.oldMode && fp.newMode && fp.oldMode !== fp.newMode) {
    col.warnings.push(`${name}: file mode change ${fp.oldMode} -> ${fp.newMode} ignored (only contents are applied)`);
  }
  if (fp.isNew) await planNew(col, fp, label);
  else if (fp.isDeleted) await planDelete(col, fp, label);
  else if (fp.isRename || fp.isCopy) await planRenameOrCopy(col, fp, label);
  else await planModify(col, fp, label, mode);
}

/** Sections naming the same file twice are merged: each hunk is still placed against the original. */
function mergeRepeats(files: FilePatch[], warnings: string[]): FilePatch[] {
  const out: FilePatch[] = [];
  const byPath = new Map<string, FilePatch>();
  for (const fp of files) {
    const plain = !fp.isNew && !fp.isDeleted && !fp.isRename && !fp.isCopy && !fp.binary && fp.newPath !== null;
    const first = plain ? byPath.get(fp.newPath!) : undefined;
    if (first) {
      const base = first.hunks.length;
      first.hunks.push(...fp.hunks.map((h, i) => ({ ...h, index: base + i + 1 })));
      first.notes.push(...fp.notes);
      warnings.push(`${fp.newPath}: appears in several sections of the patch; their hunks were applied together`);
      continue;
    }
    if (plain) byPath.set(fp.newPath!, fp);
    out.push(fp);
  }
  return out;
}

export async function planPatch(c: Candidate, tree: TreeReader): Promise<Plan> {
  const col = new Collector(tree);
  const files = mergeRepeats(parsePatch(c.patch ?? ""), col.warnings);
  if (files.length === 0) {
    col.issues.push({
      message: "the patch contains no file header and no @@ hunk",
      hint: 'Send a unified diff: "--- a/path\\n+++ b/path\\n@@ -10,3 +10,4 @@\\n context\\n-old\\n+new".',
    });
  }
  for (const fp of files) {
    if (fp.oldPath === null && fp.newPath === null) {
      col.issues.push({
        message: `hunks at line ${fp.line} of the patch have no file header naming the file`,
        hint: "Add --- a/<path> and +++ b/<path> lines before the @@ line, or use mode diff with a path.",
      });
      continue;
    }
    await planFilePatch(col, fp, `patch line ${fp.line}`, "patch");
  }
  return col.plan();
}

export async function planDiffs(c: Candidate, tree: TreeReader): Promise<Plan> {
  const col = new Collector(tree);
  const seen = new Set<string>();
  for (const [k, d] of (c.diffs ?? []).entries()) {
    const label = `diffs[${k}]`;
    const path = col.path(d.path, label);
    if (path === null) continue;
    if (seen.has(path)) {
      col.issues.push({ file: path, message: `${label} names a file already given earlier in diffs`, hint: "Put all hunks of one file in one diff." });
      continue;
    }
    seen.add(path);
    const files = parsePatch(d.diff);
    const fp = files[0];
    if (fp === undefined || (fp.hunks.length === 0 && !fp.isDeleted)) {
      col.issues.push({ file: path, message: `${label} has no @@ hunk`, hint: 'A diff needs hunks such as "@@ -10,3 +10,4 @@\\n context\\n-old\\n+new".' });
      continue;
    }
    if (files.length > 1) {
      col.issues.push({
        file: path,
        message: `${label} contains ${files.length} files`,
        hint: "Send one diff per path, or use mode patch for a multi-file diff.",
      });
      continue;
    }
    const named = fp.newPath ?? fp.oldPath;
    if (named !== null && named !== path && named.replace(/^[ab]\//, "") !== path) {
      col.warnings.push(`${label}: its header names ${named}; applied to ${path} as the path field says`);
    }
    // A headerless diff of pure additions for a missing file can only mean "create it". A deletion is
    // never one, and its path is not read here: a link is deleted as itself (planDelete), even one out.
    const adds = !fp.isDeleted && fp.hunks.every((h) => h.lines.every((l) => l.kind === "+"));
    const isNew = fp.isNew || (adds && (await tree.read(path)) === null);
    const asFile: FilePatch = {
      ...fp,
      isNew,
      isRename: false,
      isCopy: false,
      oldPath: isNew ? null : path,
      oldPathRaw: isNew ? null : path,
      newPath: fp.isDeleted ? null : path,
      newPathRaw: fp.isDeleted ? null : path,
    };
    await planFilePatch(col, asFile, label, "diff");
  }
  return col.plan();
}
