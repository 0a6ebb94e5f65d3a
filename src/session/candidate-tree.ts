/**
 * The applied candidate's tree, written in-process from its own changed paths against the tip's tree:
 * one blob per changed file and the trees on their paths, no `git add`, no whole-index `write-tree`.
 * git's rules that matter for what a path records are kept: the executable bit (100755), a symlink's
 * text as a 120000 blob, a deleted path, a file that became a folder or the reverse, a new file that
 * .gitignore excludes refused. Anything git would transform or judge by rules of its own (attributes,
 * filters, autocrlf, sparse checkout, submodules, nested repositories, links on the way) goes through
 * `git add` + `write-tree` as before: correctness first. The worktree's index is left behind and
 * brought up to date once the step is recorded (syncIndex), before the reply.
 */
import { lstat, readFile, readlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { existsSync } from "node:fs";
import { git, GitError, gitOrNull } from "../git/cli.js";
import { entryAt, GITLINK_MODE, NeedsGit, TREE_MODE, writeObject, writeTreeWith, type PathChange } from "../git/objects.js";
import { UserError } from "../util/errors.js";

/** Why the in-process path is not taken for a whole session (null: it is taken), read once per session. */
const eligibility = new Map<string, Promise<string | null>>();

async function sessionBlocker(worktree: string, commonDir: string): Promise<string | null> {
  const listed = await gitOrNull(worktree, ["config", "-z", "--list"]);
  if (listed === null) return "configuration unreadable";
  const config = new Map<string, string>();
  for (const item of listed.split("\0")) {
    const nl = item.indexOf("\n");
    if (nl > 0) config.set(item.slice(0, nl).toLowerCase(), item.slice(nl + 1).toLowerCase());
  }
  const isTrue = (k: string) => ["true", "yes", "on", "1"].includes(config.get(k) ?? "");
  const isFalse = (k: string) => ["false", "no", "off", "0"].includes(config.get(k) ?? "");
  if (["true", "input"].includes(config.get("core.autocrlf") ?? "")) return "core.autocrlf";
  if (isFalse("core.filemode")) return "core.fileMode=false";
  if (isFalse("core.symlinks")) return "core.symlinks=false";
  if (isTrue("core.ignorecase")) return "core.ignoreCase";
  if (isTrue("core.sparsecheckout")) return "sparse checkout";
  if ((config.get("extensions.objectformat") ?? "sha1") !== "sha1") return "object format";
  if (config.has("core.attributesfile")) return "core.attributesFile";
  if (config.has("core.sharedrepository")) return "shared repository permissions";
  if ([...config.keys()].some((k) => /^filter\..*\.(clean|process)$/.test(k))) return "filters";
  const xdg = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config");
  if (existsSync(path.join(xdg, "git", "attributes")) || existsSync(path.join(commonDir, "info", "attributes"))) return "attributes";
  const attrs = await git(worktree, ["ls-files", "-z", "--", ":(glob)**/.gitattributes"]);
  if (attrs.length > 0) return ".gitattributes";
  return null;
}

/** Writes the tree of `worktree` = `baseTree` + the files at `paths`; `indexStale`: the index was not written. */
export async function writeCandidateTree(
  s: { id: string; config: { commonDir: string } },
  worktree: string,
  baseTree: string,
  paths: string[],
): Promise<{ tree: string; indexStale: boolean }> {
  const commonDir = s.config.commonDir;
  const key = `${commonDir}\0${s.id}`;
  if (paths.some((p) => path.posix.basename(p) === ".gitattributes")) eligibility.set(key, Promise.resolve(".gitattributes"));
  let blocker = eligibility.get(key);
  if (!blocker) eligibility.set(key, (blocker = sessionBlocker(worktree, commonDir)));
  if ((await blocker) === null) {
    const changes = await changesOf(commonDir, worktree, baseTree, paths);
    if (changes) {
      try {
        return { tree: await writeTreeWith(commonDir, baseTree, changes), indexStale: true };
      } catch (err) {
        if (!(err instanceof NeedsGit)) throw err;
      }
    }
  }
  await stageCandidate(worktree, paths);
  return { tree: (await git(worktree, ["write-tree"])).trim(), indexStale: false };
}

/** After an in-process tree: the index as `git add` would have left it. */
export async function syncIndex(worktree: string, paths: string[]): Promise<void> {
  await git(worktree, ["add", "-A", "--", ...paths], { env: { GIT_LITERAL_PATHSPECS: "1" } });
}

/** The changes as tree entries (blobs written), or null when git's own rules must decide. */
async function changesOf(commonDir: string, worktree: string, baseTree: string, paths: string[]): Promise<PathChange[] | null> {
  const changes: PathChange[] = [];
  const added: string[] = [];
  for (const rel of paths) {
    const parts = rel.split("/");
    // Names git judges by rules of its own (.git look-alikes on NTFS / HFS+) are left to it.
    if (!rel || rel.startsWith("/") || parts.some((p) => p === "" || p === "." || p === ".." || /^\.git[. ]*$|^git~\d|[:\\]|[. ]$|[^\x20-\x7e]/i.test(p))) return null;
    const old = await entryAt(commonDir, baseTree, rel);
    if (old?.mode === GITLINK_MODE) return null;
    const abs = path.join(worktree, rel);
    const st = await lstat(abs).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT" || err.code === "ENOTDIR") return null;
      throw err;
    });
    if (!st) {
      changes.push({ path: rel, entry: null });
      continue;
    }
    if (old?.mode === TREE_MODE) return null;
    if (st.isDirectory()) {
      // A file that became a folder: the file goes; what the folder holds comes with its own paths.
      if (!old) return null;
      changes.push({ path: rel, entry: null });
      continue;
    }
    let entry: PathChange["entry"];
    if (st.isSymbolicLink()) entry = { mode: "120000", oid: await writeObject(commonDir, "blob", Buffer.from(await readlink(abs, { encoding: "buffer" }))) };
    else if (st.isFile()) entry = { mode: st.mode & 0o100 ? "100755" : "100644", oid: await writeObject(commonDir, "blob", await readFile(abs)) };
    else return null;
    if (!old) {
      // A new path: git refuses it under a link and records a nested repository as a gitlink.
      for (let i = 1; i < parts.length; i++) {
        const dir = path.join(worktree, ...parts.slice(0, i));
        if (!(await lstat(dir)).isDirectory()) return null;
        if (existsSync(path.join(dir, ".git"))) return null;
      }
      added.push(rel);
    }
    changes.push({ path: rel, entry });
  }
  if (added.length > 0) {
    // Exit 0: its output lists the paths .gitignore (or info/exclude) excludes; exit 1: none is; any
    // other failure leaves the decision to `git add`.
    let ignored = "";
    try {
      ignored = await git(worktree, ["check-ignore", "-z", "--stdin"], { input: added.join("\0") + "\0" });
    } catch (err) {
      if (!(err instanceof GitError) || err.exitCode !== 1) return null;
    }
    if (ignored.split("\0").some(Boolean)) {
      throw new UserError(
        `git will not record the candidate's files: ignored by .gitignore: ${ignored.split("\0").filter(Boolean).slice(0, 6).join(", ")}`,
        "Write only files the repository tracks or may track: not ignored by .gitignore, not inside a submodule, inside the sparse checkout. Nothing was changed.",
      );
    }
  }
  return changes;
}

/**
 * Stages the candidate's paths. git refuses paths it would not track here (ignored by .gitignore,
 * outside a sparse checkout, inside a submodule): that is the candidate's problem, said as such.
 */
async function stageCandidate(worktree: string, paths: string[]): Promise<void> {
  try {
    await git(worktree, ["add", "-A", "--", ...paths], { env: { GIT_LITERAL_PATHSPECS: "1" } });
  } catch (err) {
    if (!(err instanceof GitError)) throw err;
    const why = err.stderr
      .split("\n")
      .filter((l) => l.trim() && !l.startsWith("hint:"))
      .slice(0, 6)
      .join(" ");
    throw new UserError(
      `git will not record the candidate's files: ${why}`,
      "Write only files the repository tracks or may track: not ignored by .gitignore, not inside a submodule, inside the sparse checkout. Nothing was changed.",
    );
  }
}
