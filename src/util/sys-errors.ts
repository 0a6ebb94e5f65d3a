import { UserError } from "./errors.js";
import { truncate } from "./text.js";

/**
 * Errors of the system or of git that have a known cause the user can fix, said as such instead of
 * "unexpected": a name too long for the file system, a repository that cannot be written, a branch or
 * tag named `trm` in the way of code-trm's refs. Anything else stays unexpected.
 */
export function explainSystemError(err: unknown): UserError | null {
  // A UserError says what happened already, and may quote a command's output ("npm error EROFS"): kept.
  if (!(err instanceof Error) || err instanceof UserError) return null;
  const e = err as NodeJS.ErrnoException & { stderr?: string };
  const text = `${e.message}\n${typeof e.stderr === "string" ? e.stderr : ""}`;
  const where = e.path ? ` ${truncate(e.path, 200)}` : "";
  if (e.code === "ENAMETOOLONG" || /File name too long/i.test(text)) {
    return new UserError(
      `A file or folder name is too long for the file system (ENAMETOOLONG)${where ? `:${where}` : ""}.`,
      "Use names of at most 255 bytes per path component (4096 for a whole path). Nothing was recorded.",
    );
  }
  const blocked = /cannot lock ref '(refs\/(heads|tags|notes)\/trm)\/[^']*': '(refs\/(?:heads|tags|notes)\/trm)' exists/.exec(text);
  if (blocked) return trmRefInTheWay(blocked[3]!);
  if (
    e.code === "EROFS" ||
    e.code === "EACCES" ||
    e.code === "EPERM" ||
    /Read-only file system|Permission denied|unable to create temporary file|insufficient permission/i.test(text)
  ) {
    const why = e.code === "EROFS" || /Read-only file system/i.test(text) ? "it is on a read-only file system" : "permission is denied";
    return new UserError(
      `code-trm cannot write${where || " in the repository"}: ${why}. It keeps its refs, notes and worktrees in the repository's git directory, so that directory must be writable.`,
      "Make the repository's .git writable for this user (fix its permissions or remount it read-write), or start the session on a writable clone (git clone <repo> <copy>). Nothing was recorded.",
    );
  }
  return null;
}

/** A user's branch, tag or notes ref named `trm` makes git refuse every `trm/<id>` ref below it. */
export function trmRefInTheWay(ref: string): UserError {
  const fix = ref.startsWith("refs/heads/")
    ? "git branch -m trm <new-name>"
    : ref.startsWith("refs/tags/")
      ? "git tag <new-name> trm && git tag -d trm"
      : `git update-ref refs/notes/<new-name> ${ref} && git update-ref -d ${ref}`;
  return new UserError(
    `Your ${ref.startsWith("refs/heads/") ? "branch" : ref.startsWith("refs/tags/") ? "tag" : "notes ref"} \`${ref.replace(/^refs\/(heads|tags)\//, "")}\` (${ref}) is in the way: git cannot create code-trm's refs ${ref}/<sessionId> while a ref named ${ref} exists.`,
    `Rename it (${fix}), then start the session again. Nothing was created.`,
  );
}
