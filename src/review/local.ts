import { git, gitOrNull, openRepo } from "../git/cli.js";
import { UserError } from "../util/errors.js";
import { attachContents, gitReader, projectInfo } from "./contents.js";
import { parseUnifiedDiff } from "./diff.js";
import type { PrInfo } from "./github.js";
import type { FileChange, ProjectInfo } from "./types.js";

/**
 * Review of a local range `base...head`, like a pull request from head into base: the diff from
 * their merge base to head, computed by the git CLI from objects only. Nothing here writes: no
 * checkout, no index refresh (the git wrapper sets GIT_OPTIONAL_LOCKS=0), so the user's HEAD,
 * index and files are untouched. Refs come from the client and are only passed after
 * `--end-of-options`; after resolution only full object ids are passed on.
 */

export interface LocalRange {
  info: PrInfo;
  files: FileChange[];
  notes: string[];
  project: ProjectInfo;
  top: string;
}

async function resolveCommit(top: string, ref: string, which: "base" | "head"): Promise<string> {
  if (ref.trim() === "" || ref.includes("\0") || ref.includes("\n")) {
    throw new UserError(`Invalid ${which} ref: ${JSON.stringify(ref)}.`, 'Pass a branch, tag or commit, e.g. base: "main", head: "feature".');
  }
  const out = await gitOrNull(top, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`]);
  const sha = out?.trim();
  if (!sha || !/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(sha)) {
    throw new UserError(
      `${which} ref ${JSON.stringify(ref)} does not name a commit in ${top}.`,
      "Check the name with `git branch -a` / `git tag`; fetch it first if it only exists on a remote.",
    );
  }
  return sha;
}

/**
 * Diff options that do not depend on the user's configuration (prefixes, external diff drivers,
 * colour, textconv), with function context so rules needing a whole construct (a function's length, a
 * catch block) see all of it. Every diff the rules read is made with them (a local range, a session's).
 */
export const REVIEW_DIFF_ARGS = [
  "diff",
  "--no-color",
  "--no-ext-diff",
  "--no-textconv",
  "--find-renames",
  "--src-prefix=a/",
  "--dst-prefix=b/",
  "--no-relative",
  "--function-context",
];

export async function reviewLocalRange(repoPath: string, base: string, head: string): Promise<LocalRange> {
  const { top } = await openRepo(repoPath);
  const baseSha = await resolveCommit(top, base, "base");
  const headSha = await resolveCommit(top, head, "head");
  const notes: string[] = [];
  let from = (await gitOrNull(top, ["merge-base", baseSha, headSha]))?.trim();
  if (!from) {
    notes.push(`${base} and ${head} share no history: compared the two trees directly.`);
    from = baseSha;
  }
  const diff = await git(top, [...REVIEW_DIFF_ARGS, from, headSha, "--"]);
  const meta = (await git(top, ["log", "-1", "--format=%s%x00%an", headSha])).trim();
  const [subject = "", author = ""] = meta.split("\0");
  const files = parseUnifiedDiff(diff);
  // Whole files from git objects: rules parse them, and hunks no longer start mid-comment.
  const read = gitReader(top, headSha);
  notes.push(...(await attachContents(files, read)));
  return {
    info: { title: subject, author, base, head, state: "local", baseSha, headSha },
    files,
    notes,
    project: await projectInfo(read, subject),
    top,
  };
}
