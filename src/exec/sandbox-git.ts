import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * What a sandboxed command sees of the repository's git directory (sandbox.ts): a view with what git needs
 * to read the worktree's commit, the config reduced to its format keys, the configs of submodule
 * repositories and what a config includes masked.
 */

const KEPT_CORE = new Set(["repositoryformatversion", "filemode", "bare", "logallrefupdates", "ignorecase", "precomposeunicode", "symlinks"]);

/**
 * The repository's config reduced to what git needs to read it: `[core]` format keys and
 * `[extensions]` (object format, worktree config). Remotes (URLs that may carry a token), credential
 * helpers, includes and every program are left out.
 */
export function safeGitConfig(text: string): string {
  const out: string[] = [];
  let section = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)\s*(?:"[^"]*")?\s*\]/.exec(line);
    if (header) {
      section = /"/.test(line) ? `${header[1]!.toLowerCase()}.sub` : header[1]!.toLowerCase();
      if (section === "core" || section === "extensions") out.push(`[${section}]`);
      continue;
    }
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*([^;#"\\]*?))?\s*$/.exec(line);
    if (!kv) continue;
    const key = kv[1]!.toLowerCase();
    if ((section === "core" && KEPT_CORE.has(key)) || section === "extensions") out.push(`\t${key} = ${kv[2] ?? "true"}`);
  }
  return `${out.join("\n")}\n`;
}

/** The safe copy of `config` in `priv`: the repository's as `gitconfig`, a submodule's named by its content. */
export function writeSafeConfig(config: string, priv: string, submodule = false): string {
  const text = safeGitConfig(readFileSync(config, "utf8"));
  const file = path.join(priv, submodule ? `gitconfig-${createHash("sha256").update(text).digest("hex").slice(0, 12)}` : "gitconfig");
  let old: string | null = null;
  try {
    old = readFileSync(file, "utf8");
  } catch {
    // First command of the session.
  }
  if (old !== text) {
    mkdirSync(priv, { recursive: true, mode: 0o700 });
    writeFileSync(file, text);
  }
  return file;
}

/** The `path` values of `[include]` and `[includeIf "…"]` sections of a config's text. Pure. */
export function includePaths(text: string): string[] {
  const out: string[] = [];
  let inInclude = false;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)/.exec(line);
    if (header) inInclude = /^include(if)?$/i.test(header[1]!);
    const kv = /^(?:\[[^\]]*\]\s*)?path\s*=\s*(.*?)\s*$/i.exec(line);
    if (inInclude && kv?.[1]) out.push(kv[1].replace(/^"(.*)"$/, "$1"));
  }
  return out;
}

/** The existing files `config` includes, resolved as git does (`~/`, relative to its folder), and theirs. */
export function includedFiles(config: string, home: string, depth = 0, out = new Set<string>()): string[] {
  if (depth > 4 || out.size >= 50) return [...out];
  let text = "";
  try {
    text = readFileSync(config, "utf8");
  } catch {
    return [...out];
  }
  for (const p of includePaths(text)) {
    const file = p.startsWith("~/") ? path.join(home, p.slice(2)) : path.resolve(path.dirname(config), p);
    if (out.has(file) || !statOrNull(file)?.isFile()) continue;
    out.add(file);
    includedFiles(file, home, depth + 1, out);
  }
  return [...out];
}

/** The folders in `dir` (none when it is missing). */
function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? [path.join(dir, e.name)] : []));
  } catch {
    return [];
  }
}

/**
 * The configs of the submodule repositories under a `modules` folder: a name may have slashes
 * (`modules/libs/a`), a submodule its own submodules. Bounded: a few levels, 200 configs.
 */
export function submoduleConfigs(modules: string, depth = 0, out: string[] = []): string[] {
  if (depth > 6) return out;
  for (const dir of subfolders(modules)) {
    if (out.length >= 200) break;
    if (!existsSync(path.join(dir, "HEAD"))) submoduleConfigs(dir, depth + 1, out);
    else {
      if (existsSync(path.join(dir, "config"))) out.push(path.join(dir, "config"));
      submoduleConfigs(path.join(dir, "modules"), depth + 1, out);
    }
  }
  return out;
}

/** The admin folder of a linked worktree (`<gitDir>/worktrees/<name>`), from its `.git` file, or null. */
function adminDirOf(wt: string): string | null {
  try {
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(path.join(wt, ".git"), "utf8"));
    return m ? path.resolve(wt, m[1]!.trim()) : null;
  } catch {
    return null;
  }
}

/** The per-worktree config of a linked worktree, from its `.git` file, or null. */
export function worktreeConfigOf(wt: string): string | null {
  const admin = adminDirOf(wt);
  return admin ? path.join(admin, "config.worktree") : null;
}

/**
 * What of the repository's git directory a command sees: what git needs to read the worktree's commit,
 * its history and its refs (`git describe`, setuptools-scm), read-only. Hidden: the config (a copy with its
 * format keys stands in), hooks, the other worktrees' folders (their index, HEAD, logs), reflogs, the
 * checkout's index, FETCH_HEAD, COMMIT_EDITMSG, a rebase in progress, and whatever else lives there.
 */
export const GIT_DIR_SHOWN = ["HEAD", "objects", "refs", "packed-refs", "reftable", "shallow", "info", "modules"];

export interface GitDirView {
  args: string[];
  /** Mount points, for the fresh-folder guard of sandboxArgv. */
  points: string[];
  /** What is visible of the git directory. */
  roots: string[];
  /** The repositories shown: the git directory and the worktrees' own folders (their submodules' are inside). */
  repos: string[];
}

export function gitDirView(gitDir: string, worktrees: string[], priv: string): GitDirView {
  const v: GitDirView = { args: ["--tmpfs", gitDir], points: [gitDir], roots: [], repos: [gitDir] };
  const show = (p: string, source = p) => {
    v.args.push("--ro-bind", source, p);
    v.points.push(p);
    v.roots.push(p);
  };
  for (const name of GIT_DIR_SHOWN) {
    const p = path.join(gitDir, name);
    if (lstatSync(p, { throwIfNoEntry: false })) show(p);
  }
  const config = path.join(gitDir, "config");
  if (existsSync(config)) show(config, writeSafeConfig(config, priv));
  // The worktree's own folder (its HEAD, index, `commondir`), and no other: only one named by a `.git` file
  // of the worktree that lies directly in `worktrees/`.
  for (const w of worktrees) {
    const found = adminDirOf(w);
    const admin = found && path.join(gitDir, "worktrees", path.basename(found));
    if (admin && realOrSelf(path.dirname(found)) === realOrSelf(path.dirname(admin)) && isRealDir(admin)) {
      show(admin);
      v.repos.push(admin);
    }
  }
  return v;
}

/** The path as the kernel resolves it (every link followed), or as given when it does not exist. */
export function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

export function statOrNull(p: string) {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

/** A directory that is not a link (`/var/run` is often a link to `/run`, which is hidden already). */
export function isRealDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}
