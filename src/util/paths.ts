import { realpath } from "node:fs/promises";
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

async function realpathOrNull(p: string): Promise<string | null> {
  try {
    return await realpath(p);
  } catch {
    return null;
  }
}

function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * Resolves a relative path inside `root` and proves that following symlinks keeps it inside: the
 * deepest existing ancestor (or the file itself) must resolve within the real root. Returns the
 * normalised relative path and the absolute path to use.
 */
export async function resolveInside(root: string, input: string): Promise<{ rel: string; abs: string }> {
  const rel = normalizeRelPath(input);
  const realRoot = (await realpathOrNull(root)) ?? root;
  const abs = path.join(root, ...rel.split("/"));
  let probe = abs;
  for (;;) {
    const real = await realpathOrNull(probe);
    if (real !== null) {
      if (!isInside(realRoot, real)) {
        throw new UserError(`Path leaves the worktree through a symlink: ${rel}.`, "Write to the link's target inside the repository instead.");
      }
      const relReal = path.relative(realRoot, real).split(path.sep);
      if (relReal.some((s) => s.toLowerCase() === ".git")) {
        throw new UserError(`Path resolves into .git through a symlink: ${rel}.`);
      }
      break;
    }
    const parent = path.dirname(probe);
    if (parent === probe || !isInside(root, parent)) break;
    probe = parent;
  }
  return { rel, abs };
}
