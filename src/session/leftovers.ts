/**
 * What a step's commands leave behind, removed before a later step can see it: a step's commands start
 * from the committed tree plus what the session keeps by declaration (docs/git-model.md#what-a-step-starts-from).
 * A file a run writes and nobody commits (a `conftest.py` pytest loads, a `usercustomize.py` in the
 * sandbox home's site-packages, a dependency's link in node_modules replaced by a forged package)
 * would otherwise be loaded by every later step, and a candidate that fixes nothing would pass.
 *
 * Kept: the untracked files setupCmd made (recorded once it ran: `node_modules/`, `.venv/`, `target/`),
 * the linkPaths links and the node_modules layers code-trm made (checked, and made again when a command
 * changed them), and in the sandbox's private home what setupCmd made there and the package and build
 * caches. Everything else untracked, ignored files included, goes.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { GitError, git } from "../git/cli.js";
import { sandboxDir } from "../git/refs.js";
import type { SessionConfig } from "./config.js";
import { linkIgnored } from "./link-paths.js";
import { privateDir } from "./policy.js";
import { CACHES, type LayerSnapshot, layersIntact, layerWorkspaces, snapshotLayers } from "./workspaces.js";

/** What a worktree keeps from step to step besides its tree, recorded once setupCmd ran (kept.json). */
interface Kept {
  v: 1;
  /** Untracked entries setupCmd made, as git lists them (a wholly untracked folder as `dir/`). */
  made: string[];
  /** linkPaths made as links (a tracked path is the tree's). */
  links: string[];
  /** node_modules layers code-trm made that setupCmd left as they were. */
  layers: string[];
  /** Top-level names setupCmd made in the sandbox's private home. */
  home: string[];
}

/**
 * What the private home of the sandbox keeps besides what setupCmd made: package and build caches
 * (Go's build cache and pip's in `.cache`). Configuration a tool reads from the home (`.npmrc`,
 * `.gitconfig`, `.cargo/config.toml`, `~/.config/go/env`) and code Python imports at start (the user
 * site-packages in `.local`) are not among them.
 */
const HOME_CACHES = [".cache", ".npm", "go/pkg/mod", ".cargo/registry", ".cargo/git", ".m2/repository", ".gradle/caches", ".gradle/wrapper"];

/** Where a worktree's commands run from: the checkout, its linkPaths, the kept record, the sandbox home. */
export interface LeftoverScope {
  top: string;
  linkPaths: string[];
  /** The session's kept.json, shared by its pool worktrees (made by the same setupCmd). */
  keptFile: string;
  /** The private home of the sandbox the commands run in; null without the sandbox (your home is never touched). */
  home: string | null;
}

export function leftoverScope(config: SessionConfig, worktree: string): LeftoverScope {
  return {
    top: config.repoTop,
    linkPaths: config.linkPaths,
    keptFile: path.join(sandboxDir(config.commonDir, config.id), "kept.json"),
    home: config.sandbox ? path.join(privateDir(config, worktree), "home") : null,
  };
}

const kept = new Map<string, Kept | null>();
const layers = new Map<string, LayerSnapshot>();

/** The layers of `wt` as made, before setupCmd runs: recordKept keeps those setupCmd left alone. */
export function layersBeforeSetup(wt: string, made: string[]): Map<string, LayerSnapshot> {
  return new Map(made.map((l) => [l, snapshotLayers(wt, [l])]));
}

/** Records what `wt` keeps from step to step: call right after setupCmd (or after the links and layers without one). */
export async function recordKept(scope: LeftoverScope, wt: string, before: Map<string, LayerSnapshot>, setupRan: boolean): Promise<void> {
  const keptLayers = [...before].filter(([, snap]) => layersIntact(snap)).map(([l]) => l);
  const links = scope.linkPaths.filter((rel) => linkedAt(scope.top, wt, rel));
  const skip = new Set([...links, ...keptLayers.map((l) => `${l}/`)]);
  const made = setupRan ? (await git(wt, ["ls-files", "-z", "--others", "--directory"])).split("\0").filter((p) => p && !skip.has(p)) : [];
  // Not the empty folders bubblewrap made as mount points of what it shows read-only (`.local` for `.local/bin`).
  const home = setupRan && scope.home ? readdirSync(scope.home).filter((n) => !HOME_CACHES.includes(n) && holdsFiles(path.join(scope.home!, n))) : [];
  const record: Kept = { v: 1, made, links, layers: keptLayers, home };
  mkdirSync(path.dirname(scope.keptFile), { recursive: true });
  writeFileSync(scope.keptFile, JSON.stringify(record));
  kept.set(scope.keptFile, record);
  const snap: LayerSnapshot = new Map();
  for (const l of keptLayers) for (const [dir, s] of before.get(l)!) snap.set(dir, s);
  layers.set(wt, snap);
}

/** The layers of a new pool worktree, once its setupCmd ran: those the session keeps, as they are now. */
export function rememberLayers(scope: LeftoverScope, wt: string): void {
  const k = readKept(scope.keptFile);
  if (k) layers.set(wt, snapshotLayers(wt, k.layers));
}

function holdsFiles(p: string): boolean {
  const st = lstatSync(p, { throwIfNoEntry: false });
  if (!st?.isDirectory()) return !!st;
  return readdirSync(p).some((n) => holdsFiles(path.join(p, n)));
}

function readKept(file: string): Kept | null {
  if (kept.has(file)) return kept.get(file)!;
  let k: Kept | null = null;
  try {
    const j = JSON.parse(readFileSync(file, "utf8")) as Partial<Kept>;
    if (j.v === 1 && [j.made, j.links, j.layers, j.home].every((a) => Array.isArray(a) && a.every((x) => typeof x === "string"))) k = j as Kept;
  } catch {
    // A session started before kept.json: the older rule below.
  }
  kept.set(file, k);
  return k;
}

/**
 * What the clean leaves. Not the bytecode setupCmd wrote beside the project's own sources (`lib/__pycache__/`
 * when it imported the package): in the sandbox Python reads it (no PYTHONPYCACHEPREFIX there), so a .pyc a
 * run forged in it, stamped with an unchanged source's mtime and size, would be trusted by every later step.
 */
function keptPaths(k: Kept): string[] {
  const made = k.made.filter((p) => !p.split("/").some((part) => part === "__pycache__" || part.endsWith(".pyc")));
  return [...made, ...k.links, ...k.layers.map((l) => `${l}/`)];
}

/** A gitignore pattern that matches exactly `rel` from the worktree's root (`dir/` a folder only). */
function exactPattern(rel: string): string {
  return `/${rel.replace(/[\\*?[\]!# ]/g, (c) => `\\${c}`)}`;
}

function linkedAt(top: string, wt: string, rel: string): boolean {
  try {
    return lstatSync(path.join(wt, rel)).isSymbolicLink() && readlinkSync(path.join(wt, rel)) === path.join(top, rel);
  } catch {
    return false;
  }
}

/**
 * The folders removeLeftovers would take from `wt` now (a dry run), for the start's note that a build
 * output the baseline's commands made is made again at every step. Empty without kept.json.
 */
export async function leftoverFolders(scope: LeftoverScope, wt: string): Promise<string[]> {
  const k = readKept(scope.keptFile);
  if (!k) return [];
  const keep = keptPaths(k);
  const out = await git(wt, ["clean", "-ndx", ...keep.flatMap((p) => ["-e", exactPattern(p)])]).catch(() => "");
  // `Would remove dir/`: git names a wholly untracked folder once, by its top. Only those worth saying:
  // a cache of a few files (.pytest_cache) costs nothing to make again, and Python's bytecode, which
  // setupCmd does not keep (keptPaths), would be named with advice that does not help.
  return out
    .split("\n")
    .map((l) => /^Would remove (.+\/)$/.exec(l)?.[1])
    .filter((d): d is string => !!d && !d.split("/").includes("__pycache__") && holdsAtLeast(path.join(wt, d), NOTABLE_BYTES));
}

const NOTABLE_BYTES = 1024 * 1024;

/** Whether the files under `p` (links not followed) add up to `bytes`, read only until they do. */
function holdsAtLeast(p: string, bytes: number): boolean {
  let left = bytes;
  let seen = 0;
  const walk = (q: string): boolean => {
    try {
      const st = lstatSync(q, { throwIfNoEntry: false });
      if (!st || ++seen > 100_000) return false;
      if (!st.isDirectory()) return (left -= st.size) <= 0;
      return readdirSync(q).some((n) => walk(path.join(q, n)));
    } catch {
      // What a command left unreadable (chmod 0 build, as an unprivileged server meets it) is not counted:
      // git lists it all the same, and a note is no reason to fail the start.
      return false;
    }
  };
  return walk(p);
}

/**
 * The tracked files of `wt` as at `commit` once commands ran in it, reset only when they changed. git keeps no
 * folder's mode, and one a command took its owner's rights from stays so: without x (`chmod 0 src`) git status,
 * as an unprivileged server runs it, only warns and does not see a tracked file changed there (a forged module
 * that would judge every later step), and without r the clean cannot list it (what was planted stays) nor Python
 * import from it (every later step fails). The owner gets its rights back on the tracked folders first.
 * Whether it reset (files were written).
 */
export async function restoreTracked(wt: string, commit: string, commandsRan = true): Promise<boolean> {
  if (commandsRan) await openTrackedFolders(wt, commit);
  const status = await git(wt, ["status", "--porcelain=v2", "--branch", "--untracked-files=no", "--ignore-submodules=all"], {
    env: { GIT_OPTIONAL_LOCKS: "1" },
  });
  const head = /^# branch\.oid (\S+)/m.exec(status)?.[1];
  if (head === commit && !status.split("\n").some((l) => l && !l.startsWith("#"))) return false;
  await resetTo(wt, commit);
  return true;
}

/**
 * Gives the owner rwx on `wt` and each folder tracked at `commit` that is a real folder (links not followed,
 * nor anything behind one: a command's link on the way to your checkout), and returns those folders.
 */
async function openTrackedFolders(wt: string, commit: string): Promise<string[]> {
  const trees = (await git(wt, ["ls-tree", "-r", "-d", "-z", commit]))
    .split("\0")
    .map((l) => /^\d+ tree \w+\t(.+)$/s.exec(l)?.[1])
    .filter((p): p is string => !!p);
  const real = new Set<string>();
  // git lists a folder before the folders in it.
  for (const rel of ["", ...trees]) {
    const parent = rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/")) : "";
    if (rel && !real.has(parent)) continue;
    const abs = path.join(wt, rel);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (!st?.isDirectory()) continue;
    ownerRwx(abs, st.mode);
    real.add(rel);
  }
  real.delete("");
  return [...real];
}

/**
 * `git reset --hard` of a worktree commands ran in: a folder a command made unwritable after changing a file
 * in it (`chmod 500 src`) fails the reset, and every later call of the session with it; made writable, then again.
 */
export async function resetTo(wt: string, commit: string): Promise<void> {
  await git(wt, ["reset", "--hard", "-q", commit]).catch(async (err: unknown) => {
    if (!(err instanceof GitError)) throw err;
    writableFolders(wt, "", new Set([".git"]));
    await git(wt, ["reset", "--hard", "-q", commit]);
  });
}

/**
 * Removes from `wt` (already reset to its commit) every untracked or ignored file it does not keep,
 * makes the links and layers again where a command changed them, and prunes the sandbox home. Throws
 * when something cannot be removed: the worktree is then not trusted, and the next step tries again.
 */
export async function removeLeftovers(scope: LeftoverScope, wt: string): Promise<void> {
  const k = readKept(scope.keptFile);
  if (!k) {
    // A session started by an older version: what was removed then (untracked files, not ignored ones).
    await git(wt, ["clean", "-ffdq", "-e", "node_modules", ...scope.linkPaths.flatMap((p) => ["-e", exactPattern(p)])]);
    return;
  }
  const tracked = await openTrackedFolders(wt, "HEAD");
  const keep = keptPaths(k);
  const clean = () => git(wt, ["clean", "-ffdxq", ...keep.flatMap((p) => ["-e", exactPattern(p)])]);
  await clean().catch(async (err: unknown) => {
    // A folder a command made unwritable (chmod 500) keeps what is in it: made writable, then again.
    if (!(err instanceof GitError)) throw err;
    writableFolders(wt, "", new Set([".git", ...keep.map((p) => p.replace(/\/$/, ""))]));
    await clean();
  });
  removeNestedGit(wt, tracked, k.links);
  for (const rel of k.links) {
    if (linkedAt(scope.top, wt, rel)) continue;
    forceRemove(path.join(wt, rel));
    await linkIgnored(scope.top, wt, [rel]);
  }
  // What tools cache beside the dependencies (nyc's and babel's transforms in `.cache`, vite's `.vite`) is a
  // command's output like any other: a forged entry under the hash of a later step's source would run there.
  for (const l of k.layers) if (lstatSync(path.join(wt, l), { throwIfNoEntry: false })?.isDirectory()) for (const c of CACHES) forceRemove(path.join(wt, l, c));
  const snap = layers.get(wt);
  if (k.layers.length > 0 && !(snap && layersIntact(snap))) {
    // Changed by a command, or not seen by this server yet (made before a restart): made again.
    for (const l of k.layers) forceRemove(path.join(wt, l));
    await layerWorkspaces(scope.top, wt);
    layers.set(wt, snapshotLayers(wt, k.layers));
  }
  if (scope.home && lstatSync(scope.home, { throwIfNoEntry: false })?.isDirectory()) prune(scope.home, [...k.home, ...HOME_CACHES]);
}

/**
 * A `.git` a command made in a folder git tracks (`git init src`), or on the way to a linkPaths link: git lists
 * no path named .git, so no clean removes it (what it holds stays for later steps), and the folder is then a
 * repository of its own, whose files every later candidate is refused (apply-and-judge.ts). A submodule is
 * no tree (git lists it as a commit), so its `.git` stays.
 */
function removeNestedGit(wt: string, tracked: string[], links: string[]): void {
  // The tracked folders that are real ones (openTrackedFolders); the folders on the way to a link are untracked,
  // each checked (a command's link there, should the clean have left one, is not followed).
  const onTheWay = links.flatMap((l) => {
    const parts = l.split("/");
    return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join("/"));
  });
  const realDir = (rel: string) => rel.split("/").every((_, i, a) => lstatSync(path.join(wt, ...a.slice(0, i + 1)), { throwIfNoEntry: false })?.isDirectory());
  for (const dir of new Set([...tracked, ...onTheWay.filter(realDir)])) {
    const dotGit = path.join(wt, dir, ".git");
    if (lstatSync(dotGit, { throwIfNoEntry: false })) forceRemove(dotGit);
  }
}

/** Removes what `dir` holds except the `keep` paths (relative, `a/b` keeps b inside a and nothing else of a). */
function prune(dir: string, keep: string[]): void {
  // A folder a command took its owner's rights from (`chmod 0 ~/go`) is read all the same, as the worktree's clean does.
  const st = lstatSync(dir);
  ownerRwx(dir, st.mode);
  for (const name of readdirSync(dir)) {
    if (keep.includes(name)) continue;
    const p = path.join(dir, name);
    const deeper = keep.filter((k) => k.startsWith(`${name}/`)).map((k) => k.slice(name.length + 1));
    if (deeper.length > 0 && lstatSync(p).isDirectory()) prune(p, deeper);
    else forceRemove(p);
  }
}

/** Gives a folder's owner rwx, where a command took any of them away. */
function ownerRwx(dir: string, mode: number): void {
  if ((mode & 0o700) !== 0o700) chmodSync(dir, mode | 0o700);
}

function forceRemove(p: string): void {
  try {
    rmSync(p, { recursive: true, force: true });
  } catch {
    writableFolders(p, "", new Set());
    rmSync(p, { recursive: true, force: true });
  }
}

/** Gives the owner rwx on every folder under `root` (links not followed), but those in `skip`. */
function writableFolders(root: string, rel: string, skip: Set<string>): void {
  const abs = path.join(root, rel);
  const st = lstatSync(abs, { throwIfNoEntry: false });
  if (!st?.isDirectory()) return;
  ownerRwx(abs, st.mode);
  for (const name of readdirSync(abs)) {
    const r = rel ? `${rel}/${name}` : name;
    if (!skip.has(r)) writableFolders(root, r, skip);
  }
}
