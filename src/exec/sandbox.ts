import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { UserError } from "../util/errors.js";
import { isInside } from "../util/paths.js";

/** How a session's commands are confined (bubblewrap). */
export interface Sandbox {
  /** Directories the command may write: the worktree. Everything else is read-only or hidden. */
  writable: string[];
  /** Directories re-exposed read-only (the checkout and its git directory: node_modules links, objects). */
  readable: string[];
  network: boolean;
  /**
   * The session's private folder: `home/` becomes the command's $HOME (caches persist from step to
   * step, never in the user's home), and `gitconfig` stands in for the repository's config. Without
   * it, $HOME is an empty tmpfs.
   */
  private?: string;
  /** The repository's git directory, whose config (remote URLs with tokens, programs) is replaced. */
  gitDir?: string;
  /** More paths the user re-exposes read-only (start option `sandboxPaths`). */
  exposed?: string[];
}

export const INSTALL_BWRAP = "apt-get update && apt-get install -y bubblewrap (Debian/Ubuntu; dnf install bubblewrap on Fedora)";

/**
 * What a toolchain needs of the home folder, re-exposed read-only over the hidden home: interpreters
 * and compilers installed per user, and package caches (no credentials: `.cargo/credentials.toml`,
 * `.npmrc`, `.pypirc` stay hidden because only these folders are shown). Folders on PATH inside the
 * home are re-exposed too.
 */
export const TOOLCHAIN_PATHS = [
  ".pyenv",
  ".rbenv",
  ".rustup",
  ".cargo/bin",
  ".cargo/registry",
  ".cargo/git",
  ".nvm",
  ".volta",
  ".fnm",
  ".bun",
  ".deno",
  ".asdf",
  ".local/bin",
  ".local/lib",
  ".local/share/mise",
  ".local/share/pnpm",
  ".sdkman",
  ".ghcup",
  ".elan",
  "go/pkg/mod",
  "go/bin",
  ".m2/repository",
  ".gradle/caches",
  ".gradle/wrapper",
  ".cache/ms-playwright",
];

/** Credentials that may sit inside a re-exposed folder (a user's sandboxPaths of `~/.config`, say): hidden. */
const CREDENTIALS = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".config/gh",
  ".docker",
  ".kube",
  ".azure",
  ".config/gcloud",
  ".netrc",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pypirc",
  ".git-credentials",
  ".cargo/credentials.toml",
  ".cargo/credentials",
  ".config/git/credentials",
  ".config/github-copilot",
  ".vault-token",
  ".pgpass",
  ".my.cnf",
  ".config/hub",
  ".terraform.d/credentials.tfrc.json",
  ".m2/settings.xml",
  ".gradle/gradle.properties",
];

let probed: string | null | undefined;

/** The path of a working bwrap, or an actionable error: no silent fallback to running unconfined. */
export function assertSandboxAvailable(): string {
  if (probed === undefined) {
    const bin = (process.env.PATH ?? "")
      .split(path.delimiter)
      .map((d) => path.join(d, "bwrap"))
      .find((p) => existsSync(p));
    if (!bin) probed = null;
    else {
      try {
        execFileSync(
          bin,
          ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-ipc", "--unshare-net", "--die-with-parent", "true"],
          { stdio: ["ignore", "ignore", "pipe"], timeout: 10_000 },
        );
        probed = bin;
      } catch (err) {
        const why = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message)
          .trim()
          .split("\n")[0];
        throw new UserError(
          `sandbox: bubblewrap is installed but cannot create a sandbox here (${why}).`,
          "Allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or start without sandbox.",
        );
      }
    }
  }
  if (!probed)
    throw new UserError("sandbox: true needs bubblewrap (bwrap), which is not installed.", `Install it: ${INSTALL_BWRAP}; or start without sandbox.`);
  return probed;
}

/**
 * The bwrap command line around `shell -c cmd`: the filesystem read-only, the home folder, /tmp and the
 * runtime folders replaced (the home by the session's private one), toolchains and the checkout
 * re-exposed read-only, the worktree writable, every listening unix socket masked, the repository's
 * config replaced by a copy without remotes or programs, private pid and IPC namespaces that die with
 * the command, and no network unless asked.
 */
export function sandboxArgv(bin: string, sb: Sandbox, shell: string, cmd: string): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  // Unix sockets are reachable through a read-only mount (a user bus, docker, an ssh or gpg agent): the
  // runtime folders go, and the variables that name them.
  const hidden = ["/tmp", "/run", "/var/run", process.env.XDG_RUNTIME_DIR].filter((d): d is string => !!d);
  for (const dir of hidden.slice(1)) if (isRealDir(dir)) args.push("--tmpfs", dir);
  const home = os.homedir();
  const shown: string[] = [];
  let priv: { home: string } | null = null;
  if (home && home !== "/" && isRealDir(home)) {
    hidden.push(home);
    priv = sb.private ? ensurePrivate(sb.private) : null;
    if (priv) args.push("--bind", priv.home, home);
    else args.push("--tmpfs", home);
    for (const p of toolchainPaths(home)) shown.push(p);
  }
  // What goes over the home, and the masks: after the private home's fresh folders (below).
  const over: string[] = [];
  const masked: string[] = [];
  const mask = (kind: "--tmpfs" | "--ro-bind", p: string, source = "/dev/null") => {
    over.push(...(kind === "--tmpfs" ? [kind, p] : [kind, source, p]));
    masked.push(p);
  };
  for (const p of sb.exposed ?? []) if (existsSync(p)) shown.push(p);
  for (const p of shown) over.push("--ro-bind", p, p);
  for (const r of sb.readable) over.push("--ro-bind", r, r);
  for (const w of sb.writable) {
    over.push("--bind", w, w);
    // The worktree's `.git` file tells the server's own git calls where the repository is: a command that
    // rewrote it could point them at a config of its own.
    const pointer = path.join(w, ".git");
    if (existsSync(pointer)) mask("--ro-bind", pointer, pointer);
  }
  const visibleRoots = [...shown, ...sb.readable, ...sb.writable];
  const visible = (p: string) => visibleRoots.some((r) => isInside(r, p)) || !hidden.some((h) => isInside(h, p));
  // Credentials inside what is shown (a sandboxPaths of ~/.config, a checkout that is the home itself).
  for (const rel of CREDENTIALS) {
    const p = path.join(home, rel);
    const st = statOrNull(p);
    if (!st || !visible(p)) continue;
    mask(st.isDirectory() ? "--tmpfs" : "--ro-bind", p);
  }
  if (sb.gitDir && sb.private) {
    // The repository's config may hold a token in a remote URL, credential helpers, programs: the
    // commands see a copy with only what git needs to read the repository.
    const config = path.join(sb.gitDir, "config");
    if (existsSync(config)) mask("--ro-bind", config, writeSafeConfig(config, sb.private));
    // What it includes (`[include] path = creds.cfg` in .git, a CI's credentials file) is config too.
    for (const inc of includedFiles(config, home)) if (visible(inc)) mask("--ro-bind", inc);
    // The repositories of submodules (the checkout's in modules/, each worktree's in worktrees/<name>/modules/)
    // have configs of their own, with the remote URL `git submodule` copied, a token in it too.
    const gitDirs = [sb.gitDir, ...subfolders(path.join(sb.gitDir, "worktrees"))];
    for (const sub of gitDirs.flatMap((d) => submoduleConfigs(path.join(d, "modules")))) mask("--ro-bind", sub, writeSafeConfig(sub, sb.private, true));
    for (const wc of [...gitDirs.map((d) => path.join(d, "config.worktree")), ...sb.writable.map((w) => worktreeConfigOf(w))]) {
      if (wc && existsSync(wc)) mask("--ro-bind", wc);
    }
  }
  // A socket anywhere that stays visible (a docker socket in ~/.colima shown through sandboxPaths, one
  // in the checkout, /var/spool, /nix): the kernel lists every bound one; each is covered by an empty file.
  for (const s of listeningSockets()) if (visible(s)) mask("--ro-bind", s);
  // bwrap finds each mount point by its path, through the private home, which the commands write: a link
  // one left there (`~/src -> …` through the worktree's mount point) would lead a mask elsewhere than
  // the mount it covers. The first folder under the home of every mount that holds a mask is therefore
  // a fresh tmpfs (what the command writes there does not persist); a mount point in every running
  // sandbox, no command can swap it for a link while this one is being set up.
  if (priv) {
    const fresh = new Set<string>();
    for (const m of masked)
      for (const r of visibleRoots) if (isInside(r, m) && isInside(home, r) && r !== home) fresh.add(path.relative(home, r).split(path.sep)[0]!);
    for (const name of fresh) {
      unlinkIfNotDir(path.join(priv.home, name));
      args.push("--tmpfs", path.join(home, name));
    }
  }
  args.push(...over);
  for (const v of ["SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "GPG_AGENT_INFO", "DOCKER_HOST"]) args.push("--unsetenv", v);
  // A TMPDIR the sandbox does not show or cannot write (one under /tmp is now the private tmpfs, where
  // it does not exist): go and cargo fail to make their work folders in it. The private /tmp instead.
  const tmpdir = process.env.TMPDIR;
  if (tmpdir && !sb.writable.some((w) => isInside(w, tmpdir))) args.push("--setenv", "TMPDIR", "/tmp");
  // IPC of its own: System V shared memory, semaphores and message queues of the machine (a browser's, an
  // X server's, a database's) are reachable by key from any process of the user otherwise.
  args.push("--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session");
  if (!sb.network) args.push("--unshare-net");
  args.push("--chdir", sb.writable[0] ?? "/", "--", shell, "-c", cmd);
  return [bin, ...args];
}

/** The toolchain folders of the home that exist, and the PATH entries inside the home. */
function toolchainPaths(home: string): string[] {
  const out = new Set<string>();
  for (const rel of TOOLCHAIN_PATHS) {
    const p = path.join(home, rel);
    if (existsSync(p)) out.add(p);
  }
  for (const d of (process.env.PATH ?? "").split(path.delimiter)) {
    if (
      d &&
      path.isAbsolute(d) &&
      isInside(home, d) &&
      path.resolve(d) !== path.resolve(home) &&
      existsSync(d) &&
      !CREDENTIALS.some((c) => isInside(path.join(home, c), d))
    )
      out.add(path.resolve(d));
  }
  return [...out];
}

/** The paths of the unix sockets bound in this network namespace (`/proc/net/unix`, Linux). */
export function listeningSockets(table = readTable()): string[] {
  const out = new Set<string>();
  for (const line of table.split("\n").slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path: the path is the eighth field (abstract ones start with @).
    const p = line.trim().split(/\s+/).slice(7).join(" ");
    if (!p.startsWith("/")) continue;
    try {
      if (lstatSync(p).isSocket()) out.add(p);
    } catch {
      // Gone, or its folder unreadable: nothing to mask.
    }
  }
  return [...out];
}

function readTable(): string {
  try {
    return readFileSync("/proc/net/unix", "utf8");
  } catch {
    return "";
  }
}

/** `home/` of the session's private folder, made on first use. */
function ensurePrivate(dir: string): { home: string } {
  const home = path.join(dir, "home");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return { home };
}

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
function writeSafeConfig(config: string, priv: string, submodule = false): string {
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
function includedFiles(config: string, home: string, depth = 0, out = new Set<string>()): string[] {
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
function submoduleConfigs(modules: string, depth = 0, out: string[] = []): string[] {
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

/** The per-worktree config of a linked worktree, from its `.git` file, or null. */
function worktreeConfigOf(wt: string): string | null {
  try {
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(path.join(wt, ".git"), "utf8"));
    return m ? path.join(m[1]!.trim(), "config.worktree") : null;
  } catch {
    return null;
  }
}

/** A link or a file the command left where a folder of the private home must be: removed. */
function unlinkIfNotDir(p: string): void {
  const st = lstatSync(p, { throwIfNoEntry: false });
  if (st && !st.isDirectory()) rmSync(p, { force: true });
}

function statOrNull(p: string) {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

/** A directory that is not a link (`/var/run` is often a link to `/run`, which is hidden already). */
function isRealDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}
