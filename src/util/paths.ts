import { lstat, readlink } from "node:fs/promises";
import path from "node:path";
import { UserError } from "./errors.js";

/**
 * Normalises a client-supplied repository-relative path to `a/b/c` form, or throws a UserError that
 * says why it is refused. Pure: symlinks are checked separately by {@link resolveInside}.
 */
export function normalizeRelPath(input: string): string {
  if (typeof input !== "string" || input.trim() === "") {
    throw new UserError("Empty path.", "Send a path relative to the repository root, e.g. src/index.ts.");
  }
  if (input.includes("\0")) throw new UserError(`Path contains a NUL byte: ${JSON.stringify(input)}.`);
  if (input.includes("\\")) {
    throw new UserError(`Path uses backslashes: ${input}.`, `Use forward slashes: ${input.replace(/\\/g, "/")}.`);
  }
  if (path.posix.isAbsolute(input) || /^[a-zA-Z]:/.test(input)) {
    throw new UserError(`Absolute path refused: ${input}.`, "Send a path relative to the repository root.");
  }
  const parts: string[] = [];
  for (const seg of input.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      throw new UserError(`Path escapes the repository: ${input}.`, "Paths may not contain '..' segments.");
    }
    if (seg.toLowerCase() === ".git") {
      throw new UserError(`Path inside .git refused: ${input}.`, "Candidates may not read or write git metadata.");
    }
    parts.push(seg);
  }
  if (parts.length === 0) throw new UserError(`Path names the repository root itself: ${input}.`);
  return parts.join("/");
}

/**
 * Resolves every symlink on the way to `p`, also dangling ones (whose target does not exist yet):
 * `realpath` fails on those, and writing through one would create its target wherever it points.
 */
export async function resolveLinks(p: string, depth = 0): Promise<string> {
  if (depth > 40) throw new UserError(`Too many levels of symbolic links at ${p}.`);
  const parts = path.resolve(p).split(path.sep).filter(Boolean);
  let cur = path.parse(path.resolve(p)).root;
  for (let i = 0; i < parts.length; i++) {
    const next = path.join(cur, parts[i]!);
    const st = await lstat(next).catch(() => null);
    if (st === null) return path.join(next, ...parts.slice(i + 1)); // nothing further exists: no more links
    cur = st.isSymbolicLink() ? await resolveLinks(path.resolve(cur, await readlink(next)), depth + 1) : next;
  }
  return cur;
}

/** Whether `p` is `root` or lies below it (both already resolved). */
export function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * Resolves a relative path inside `root` and proves that following symlinks (dangling ones included)
 * keeps it inside and out of `.git`. Returns the normalised relative path and the absolute path to use.
 */
export async function resolveInside(root: string, input: string): Promise<{ rel: string; abs: string }> {
  const rel = normalizeRelPath(input);
  const realRoot = await resolveLinks(root);
  const abs = path.join(root, ...rel.split("/"));
  const real = await resolveLinks(abs);
  if (!isInside(realRoot, real)) {
    throw new UserError(`Path leaves the worktree through a symlink: ${rel}.`, "Write to the link's target inside the repository instead.");
  }
  if (path.relative(realRoot, real).split(path.sep).some((s) => s.toLowerCase() === ".git")) {
    throw new UserError(`Path resolves into .git through a symlink: ${rel}.`);
  }
  return { rel, abs };
}
