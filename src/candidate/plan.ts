import { UserError } from "../util/errors.js";
import { LIMITS } from "../util/limits.js";
import { planModify } from "./modify.js";
import { planDiffs, planPatch } from "./patch-plan.js";
import { normalizeInto } from "./paths.js";
import type { Candidate } from "./schema.js";
import { CandidateError, type CandidateIssue, type FileOp, linkTextOf, type Plan, type TreeReader } from "./types.js";
import { changeNote, matchExistingText } from "./whole-file.js";

const FIELD_FOR_MODE = {
  files: "files",
  create: "files",
  patch: "patch",
  diff: "diffs",
  modify: "changes",
  delete: "paths",
} as const;

/** Checks that the fields a mode needs are present and bounded; throws a UserError naming what to send. */
export function checkCandidateShape(c: Candidate): void {
  const field = FIELD_FOR_MODE[c.mode];
  const value = c[field];
  if (value === undefined || (Array.isArray(value) && value.length === 0) || value === "") {
    throw new UserError(`Mode "${c.mode}" needs a non-empty "${field}".`, modeExample(c.mode));
  }
  const count = Array.isArray(value) ? value.length : 1;
  if (count > LIMITS.maxCandidateFiles) {
    throw new UserError(`Candidate names ${count} files; the limit is ${LIMITS.maxCandidateFiles}.`, "Split it into several steps.");
  }
  let bytes = 0;
  for (const f of c.files ?? []) bytes += Buffer.byteLength(f.content);
  for (const d of c.diffs ?? []) bytes += Buffer.byteLength(d.diff);
  bytes += c.patch ? Buffer.byteLength(c.patch) : 0;
  for (const ch of c.changes ?? []) {
    for (const e of ch.edits) bytes += Buffer.byteLength((e.oldText ?? "") + (e.newText ?? "") + (e.content ?? ""));
  }
  if (bytes > LIMITS.maxCandidateBytes) {
    throw new UserError(`Candidate is ${bytes} bytes; the limit is ${LIMITS.maxCandidateBytes}.`, "Send fewer or smaller files per step.");
  }
}

export function modeExample(mode: Candidate["mode"]): string {
  switch (mode) {
    case "files":
    case "create":
      return `Example: {"mode":"${mode}","files":[{"path":"src/a.ts","content":"..."}]}`;
    case "patch":
      return 'Example: {"mode":"patch","patch":"--- a/src/a.ts\\n+++ b/src/a.ts\\n@@ -1,2 +1,2 @@\\n..."}';
    case "diff":
      return 'Example: {"mode":"diff","diffs":[{"path":"src/a.ts","diff":"@@ -1,2 +1,2 @@\\n..."}]}';
    case "modify":
      return 'Example: {"mode":"modify","changes":[{"file":"src/a.ts","edits":[{"type":"replace","oldText":"a","newText":"b"}]}]}';
    case "delete":
      return 'Example: {"mode":"delete","paths":["src/old.ts"]}';
  }
}

/**
 * Computes every file operation a candidate implies against `tree` that changes a file, without writing
 * anything.
 * Throws {@link CandidateError} listing every part that does not apply.
 */
export async function planCandidate(c: Candidate, tree: TreeReader): Promise<Plan> {
  checkCandidateShape(c);
  const cached = cachedReader(tree);
  const plan = await plannerFor(c.mode)(c, cached);
  for (const op of plan.ops) {
    if (op.op === "write" && op.content.length > LIMITS.maxFileBytes) {
      throw new CandidateError([{ file: op.path, message: `file would be ${op.content.length} bytes; the limit is ${LIMITS.maxFileBytes}` }]);
    }
  }
  // A write of the content the file already has changes nothing (models resend files they did not edit):
  // it is left out of the plan, so that protectTests, the step's changed test files and `{files}` see
  // only what changes. Its mode is kept by the write (write.ts), so content alone decides; the warning stays.
  const ops: FileOp[] = [];
  for (const op of plan.ops) {
    if (op.op !== "write") {
      ops.push(op);
      continue;
    }
    const before = await cached.read(op.path);
    const note = changeNote(before, op.content);
    if (note) plan.warnings.push(`${op.path}: ${note}`);
    if (!before?.equals(op.content)) ops.push(op);
  }
  return { ...plan, ops };
}

/** Planning reads the same file several times (existence, content, rename targets): read each once. */
function cachedReader(tree: TreeReader): TreeReader {
  const cache = new Map<string, Promise<Buffer | null>>();
  return {
    read(path: string) {
      let p = cache.get(path);
      if (!p) {
        p = tree.read(path);
        cache.set(path, p);
      }
      return p;
    },
    ...(tree.linkText ? { linkText: (path: string) => tree.linkText!(path) } : {}),
  };
}

type ModePlanner = (c: Candidate, tree: TreeReader) => Promise<Plan>;

function plannerFor(mode: Candidate["mode"]): ModePlanner {
  switch (mode) {
    case "files":
    case "create":
      return planWholeFiles;
    case "delete":
      return planDelete;
    case "patch":
      return planPatch;
    case "diff":
      return planDiffs;
    case "modify":
      return planModify;
  }
}

async function planWholeFiles(c: Candidate, tree: TreeReader): Promise<Plan> {
  const issues: CandidateIssue[] = [];
  const ops: FileOp[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  for (const f of c.files ?? []) {
    const rel = normalizeInto(f.path, issues);
    if (rel === null) continue;
    if (seen.has(rel)) {
      issues.push({ file: rel, message: "named twice in one candidate", hint: "Send each file once." });
      continue;
    }
    seen.add(rel);
    const before = await tree.read(rel);
    if (c.mode === "create" && before !== null) {
      issues.push({ file: rel, message: "already exists (mode create only makes new files)", hint: "Use mode files to replace it, or modify to edit it." });
      continue;
    }
    const content = matchExistingText(rel, f.content, before, warnings);
    ops.push({ op: "write", path: rel, content, create: before === null });
  }
  if (issues.length > 0) throw new CandidateError(issues);
  return { ops, warnings, fuzz: [] };
}

async function planDelete(c: Candidate, tree: TreeReader): Promise<Plan> {
  const issues: CandidateIssue[] = [];
  const ops: FileOp[] = [];
  const seen = new Set<string>();
  for (const p of c.paths ?? []) {
    const rel = normalizeInto(p, issues);
    if (rel === null || seen.has(rel)) continue;
    seen.add(rel);
    // A committed link is deleted as itself, also when it points at a folder, at nothing or outside
    // (it is not read through).
    if ((await linkTextOf(tree, rel)) === null && (await tree.read(rel)) === null) {
      issues.push({ file: rel, message: "does not exist, so it cannot be deleted", hint: "Check the path with trm_read_files." });
      continue;
    }
    ops.push({ op: "delete", path: rel });
  }
  if (issues.length > 0) throw new CandidateError(issues);
  return { ops, warnings: [], fuzz: [] };
}
