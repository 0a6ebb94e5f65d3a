/**
 * JavaScript workspaces (npm / yarn `workspaces`, `pnpm-workspace.yaml`) link their packages into
 * node_modules (`node_modules/a -> ../packages/a`). A worktree has no node_modules of its own, so Node
 * and tsc walk up and find the checkout's, whose links lead to the checkout's packages: a fix in
 * packages/a would be tested, from packages/b, against the unfixed a. The worktree therefore gets
 * node_modules folders of its own whose entries are links: to the checkout's entries (nothing is
 * downloaded or copied), except links into the checkout's own packages, which point at the worktree's.
 * The folders are untracked and only ever staged by explicit path, so they are never committed.
 */
import { type Dirent, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, unlinkSync } from "node:fs";
import { lstat, mkdir, readdir, readlink, realpath, symlink, unlink } from "node:fs/promises";
import path from "node:path";
import { realOr } from "../evaluate/environment.js";
import { matchesGlobExactly } from "../util/glob.js";
import { isInside } from "../util/paths.js";

const MAX_PACKAGES = 500;
const MAX_DEPTH = 4;
const SKIP_DIRS = new Set(["node_modules", ".git", "dist", "build", "coverage"]);

/** The workspace patterns a repository declares (package.json workspaces, pnpm-workspace.yaml). */
export function workspacePatterns(packageJson: string | undefined, pnpmYaml: string | undefined): string[] {
  const out: string[] = [];
  if (packageJson) {
    try {
      const j = JSON.parse(packageJson) as { workspaces?: unknown };
      const w = j.workspaces;
      const list = Array.isArray(w)
        ? w
        : w && typeof w === "object" && Array.isArray((w as { packages?: unknown }).packages)
          ? (w as { packages: unknown[] }).packages
          : [];
      for (const p of list) if (typeof p === "string") out.push(p);
    } catch {
      // An unreadable package.json is the build's to report.
    }
  }
  if (pnpmYaml) {
    // packages:\n  - 'packages/*'\n  - "apps/**"\n  - '!**/test/**'  (a list under one key: no YAML library needed)
    let inPackages = false;
    for (const line of pnpmYaml.split("\n")) {
      if (/^packages\s*:/.test(line)) {
        inPackages = true;
        continue;
      }
      if (inPackages && /^\S/.test(line)) inPackages = false;
      const m = inPackages ? /^\s*-\s*['"]?([^'"#]+?)['"]?\s*(?:#.*)?$/.exec(line) : null;
      if (m) out.push(m[1]!.trim());
    }
  }
  return out;
}

/** Folders of the tree (relative) that match the patterns and hold a package.json. Synchronous: sandbox.ts's caller asks too. */
function packageDirs(root: string, patterns: string[]): string[] {
  const include = patterns.filter((p) => !p.startsWith("!")).map((p) => p.replace(/^\.\//, "").replace(/\/+$/, ""));
  const exclude = patterns.filter((p) => p.startsWith("!")).map((p) => p.slice(1).replace(/^\.\//, ""));
  const out: string[] = [];
  const walk = (rel: string, depth: number): void => {
    if (out.length >= MAX_PACKAGES || depth > MAX_DEPTH) return;
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      // Unreadable: no packages there.
    }
    for (const e of entries) {
      if (!e.isDirectory() || SKIP_DIRS.has(e.name) || e.name.startsWith(".")) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      // packages/* names packages/a, not packages/a/src.
      if (include.some((p) => matchesGlobExactly(r, p)) && !exclude.some((p) => matchesGlobExactly(r, p)) && existsSync(path.join(root, r, "package.json")))
        out.push(r);
      walk(r, depth + 1);
    }
  };
  walk("", 0);
  return out;
}

/**
 * The workspace package folders of the tree at `wt` (relative), as its package.json and
 * pnpm-workspace.yaml declare them; null when it declares no workspaces.
 */
function workspaceDirs(wt: string): string[] | null {
  const read = (f: string) => {
    try {
      return readFileSync(path.join(wt, f), "utf8");
    } catch {
      return undefined;
    }
  };
  const patterns = workspacePatterns(read("package.json"), read("pnpm-workspace.yaml"));
  return patterns.length === 0 ? null : packageDirs(wt, patterns);
}

/**
 * The node_modules folders of the checkout `top` that layerWorkspaces links the worktree `wt` to (relative):
 * the root's and, in a workspace repository, each package's. What a sandboxed command needs of them.
 */
export function dependencyFolders(top: string, wt: string): string[] {
  return ["", ...(workspaceDirs(wt) ?? [])]
    .map((d) => path.join(d, "node_modules"))
    .filter((rel) => statSync(path.join(top, rel), { throwIfNoEntry: false })?.isDirectory());
}

export interface LayerResult {
  /** node_modules folders made in the worktree (relative). */
  layers: string[];
  /** Workspace package links redirected to the worktree, e.g. "node_modules/a -> packages/a". */
  redirected: string[];
}

/**
 * Builds the node_modules layers of the worktree `wt` of checkout `top`: for a workspace repository,
 * the root's and each package's; otherwise the root's alone (the worktree lives outside the checkout,
 * so Node's walk up would not find it). Does nothing without installed node_modules.
 */
export async function layerWorkspaces(top: string, wt: string): Promise<LayerResult> {
  const result: LayerResult = { layers: [], redirected: [] };
  const pkgs = workspaceDirs(wt);
  if (!pkgs) {
    if (layerPlain(top, wt)) result.layers.push("node_modules");
    return result;
  }
  const realTop = await realpath(top);
  // Package folders of the checkout, real paths, longest first so nested packages win.
  const roots = pkgs.map((r) => path.join(realTop, r)).sort((a, b) => b.length - a.length);
  for (const dir of ["", ...pkgs]) {
    const from = path.join(top, dir, "node_modules");
    if (!(await isDir(from))) continue;
    const to = path.join(wt, dir, "node_modules");
    const st = await lstat(to).catch(() => null);
    if (st?.isSymbolicLink()) {
      // A whole-folder link made from linkPaths: its workspace links would lead into the checkout.
      const target = await realpath(to).catch(() => "");
      if (target !== (await realpath(from))) continue;
      await unlink(to);
    } else if (st) continue; // the worktree has its own (setupCmd installed it)
    await mkdir(to);
    result.layers.push(path.join(dir, "node_modules"));
    await layerFolder(from, to, realTop, wt, roots, result, 0);
  }
  return result;
}

/**
 * Caches tools keep beside the dependencies (vite's `.vite` and `.vite-temp`, babel's and eslint's
 * `.cache`): never linked, so a tool writes its own in the worktree's layer, not in the checkout (which
 * the sandbox makes read-only).
 */
export const CACHES = new Set([".vite", ".vite-temp", ".cache"]);

/**
 * The layers as made: each real folder of them (the layer, `.bin` and scopes of a workspace layer) with
 * its ctime and, per entry, its inode and ctime (a link retargeted, or replaced by a folder of forged
 * code, is a new inode with a new ctime, which no command can set). The caches above are left out.
 */
export type LayerSnapshot = Map<string, { ctimeNs: bigint; top: boolean; entries: Map<string, string> }>;

export function snapshotLayers(wt: string, layers: string[]): LayerSnapshot {
  const snap: LayerSnapshot = new Map();
  const walk = (dir: string, top: boolean) => {
    const ctimeNs = lstatSync(dir, { bigint: true }).ctimeNs;
    const entries = new Map<string, string>();
    for (const name of readdirSync(dir)) {
      if (top && CACHES.has(name)) continue;
      const st = lstatSync(path.join(dir, name), { bigint: true });
      entries.set(name, `${st.ino}:${st.ctimeNs}`);
      if (st.isDirectory()) walk(path.join(dir, name), false);
    }
    snap.set(dir, { ctimeNs, top, entries });
  };
  for (const l of layers) if (lstatSync(path.join(wt, l), { throwIfNoEntry: false })?.isDirectory()) walk(path.join(wt, l), true);
  return snap;
}

/**
 * Whether the layers are still as `snap` has them: one lstat per real folder while nothing in them
 * changed; their entries compared only when a folder's ctime moved (a tool's cache made beside them).
 */
export function layersIntact(snap: LayerSnapshot): boolean {
  for (const [dir, s] of snap) {
    const st = lstatSync(dir, { bigint: true, throwIfNoEntry: false });
    if (!st?.isDirectory()) return false;
    if (st.ctimeNs === s.ctimeNs) continue;
    const names = readdirSync(dir).filter((n) => !(s.top && CACHES.has(n)));
    if (names.length !== s.entries.size) return false;
    for (const n of names) {
      const e = lstatSync(path.join(dir, n), { bigint: true, throwIfNoEntry: false });
      if (!e || s.entries.get(n) !== `${e.ino}:${e.ctimeNs}`) return false;
    }
    s.ctimeNs = st.ctimeNs;
  }
  return true;
}

/**
 * The root layer of a repository without workspaces: each entry a link to the checkout's (`.bin` whole:
 * its links are relative, so they resolve in the checkout). Synchronous calls: a thousand packages are
 * a thousand links, each asynchronous call a thread-pool round trip.
 */
function layerPlain(top: string, wt: string): boolean {
  const from = path.join(top, "node_modules");
  const to = path.join(wt, "node_modules");
  let names: string[];
  try {
    if (!statSync(from).isDirectory()) return false;
    names = readdirSync(from);
  } catch {
    return false;
  }
  const st = lstatSync(to, { throwIfNoEntry: false });
  if (st?.isSymbolicLink() && realOr(to) === realOr(from))
    unlinkSync(to); // a linkPaths link: a layer instead
  else if (st) return false; // the worktree has its own (tracked, or setupCmd installed it)
  mkdirSync(to);
  for (const name of names) if (!CACHES.has(name)) symlinkSync(path.join(from, name), path.join(to, name));
  return true;
}

async function layerFolder(from: string, to: string, realTop: string, wt: string, roots: string[], result: LayerResult, depth: number): Promise<void> {
  for (const name of await readdir(from)) {
    if (depth === 0 && CACHES.has(name)) continue;
    const src = path.join(from, name);
    const dst = path.join(to, name);
    if (name === ".bin") {
      await mkdir(dst);
      for (const bin of await readdir(src).catch(() => [] as string[])) {
        const b = path.join(src, bin);
        const text = await readlink(b).catch(() => null);
        // npm's bin links are relative (../a/cli.js): the same text here resolves through this layer,
        // so a workspace package's command runs the worktree's file.
        await symlink(text !== null && !path.isAbsolute(text) ? text : b, path.join(dst, bin));
      }
      continue;
    }
    if (name.startsWith("@") && depth === 0 && (await isDir(src))) {
      const real = await realpath(src).catch(() => src);
      if (intoPackages(real, roots)) {
        await symlink(await redirect(real, realTop, wt), dst);
        continue;
      }
      // A scope may mix workspace packages and installed ones: a folder of its own, linked per entry.
      const entries = await readdir(src);
      const anyOurs = await someAsync(entries, async (e) => intoPackages(await realpath(path.join(src, e)).catch(() => ""), roots));
      if (anyOurs) {
        await mkdir(dst);
        await layerFolder(src, dst, realTop, wt, roots, result, 1);
        continue;
      }
    }
    const real = await realpath(src).catch(() => null);
    if (real && intoPackages(real, roots)) {
      const target = await redirect(real, realTop, wt);
      await symlink(path.relative(to, target), dst);
      result.redirected.push(`${path.relative(wt, dst)} -> ${path.relative(wt, target)}`);
    } else {
      await symlink(src, dst);
    }
  }
}

/** True for a path inside one of the checkout's workspace packages (not inside its node_modules). */
function intoPackages(real: string, roots: string[]): boolean {
  const root = roots.find((r) => isInside(r, real));
  return !!root && !path.relative(root, real).split(path.sep).includes("node_modules");
}

async function redirect(real: string, realTop: string, wt: string): Promise<string> {
  return path.join(wt, path.relative(realTop, real));
}

async function isDir(p: string): Promise<boolean> {
  const st = await lstat(p).catch(() => null);
  if (!st) return false;
  if (st.isDirectory()) return true;
  return (
    st.isSymbolicLink() &&
    !!(
      await realpath(p)
        .then((r) => lstat(r))
        .catch(() => null)
    )?.isDirectory()
  );
}

async function someAsync<T>(xs: T[], f: (x: T) => Promise<boolean>): Promise<boolean> {
  for (const x of xs) if (await f(x)) return true;
  return false;
}
