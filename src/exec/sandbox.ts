import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { UserError } from "../util/errors.js";
import { isInside } from "../util/paths.js";
import { stateDir } from "../util/state-dir.js";
import { CREDENTIALS, NAMING_VARS, namedCredentials } from "./sandbox-creds.js";
import { gitDirView, includedFiles, isRealDir, realOrSelf, statOrNull, submoduleConfigs, worktreeConfigOf, writeSafeConfig } from "./sandbox-git.js";
import { listeningSockets, sharedTmpdir } from "./sandbox-host.js";
import { keyringFilter } from "./sandbox-seccomp.js";

/** The descriptor on which each sandboxed command's bwrap reads its seccomp program (run.ts writes it). */
export const SECCOMP_FD = 3;

/** How a session's commands are confined (bubblewrap). */
export interface Sandbox {
  /** Directories the command may write: the worktree. Everything else is read-only or hidden. */
  writable: string[];
  /** Directories re-exposed read-only (what the commands need of the checkout, its git directory's objects). */
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
  /** Folders replaced by an empty one before the others are shown over them (code-trm's state folder). */
  hidden?: string[];
  /**
   * The user's checkout (and the main one of a linked checkout): empty and read-only, wherever it is, but
   * for `fromCheckouts`.
   */
  checkouts?: string[];
  /**
   * What is shown read-only of the checkouts, each at the path it has (a link, such as a linkPaths
   * `node_modules` leading elsewhere, shown as what it leads to: the link itself is gone with the checkout).
   */
  fromCheckouts?: string[];
}

/** What a command in one of code-trm's worktrees of a repository runs in: a session's step, a review's head. */
export interface RepoConfinement {
  worktree: string;
  /** The user's checkout, hidden but for `fromCheckout`, and its git directory. */
  top: string;
  commonDir: string;
  /** What the commands need of the checkout (its node_modules, linkPaths, a Python environment): shown read-only. */
  fromCheckout: string[];
  /** The private folder: the commands' home and the safe copy of the repository's config. */
  private: string;
  network: boolean;
  /** More folders shown read-only (packages node_modules links to outside the checkout). */
  readable?: string[];
  exposed?: string[];
}

/**
 * The one sandbox of a command in a worktree of the repository, for the session and the review alike:
 * the worktree writable, the git directory reduced to what git needs (gitDirView), code-trm's state folder
 * (other sessions' worktrees and homes) hidden, and so is the user's checkout (the `.env`, keys and other
 * ignored or untracked files in it, and in the main checkout of a linked one), but for what the commands
 * need of it and the folders on PATH inside it.
 */
export function repoSandbox(c: RepoConfinement): Sandbox {
  // The checkout that holds the git directory: a linked checkout's main one (`/main/.git`), a submodule's
  // superproject (`/main/.git/modules/lib`), whose `.env` and config (a remote URL with a token) are the user's too.
  const parts = c.commonDir.split(path.sep);
  const main = parts.lastIndexOf(".git") > 1 ? parts.slice(0, parts.lastIndexOf(".git")).join(path.sep) : null;
  // One that lies in another (a submodule in its superproject) is emptied with it.
  const checkouts = [...new Set([c.top, ...(main ? [main] : [])])].filter((t, _, all) => !all.some((o) => o !== t && isInside(o, t)));
  const onPath = (process.env.PATH ?? "").split(path.delimiter).filter((d) => path.isAbsolute(d) && checkouts.some((t) => isInside(t, d)) && existsSync(d));
  // Never a folder that holds a checkout whole (`cd /app/ && …`, `/app/src/..`, a venv made in the checkout's
  // root, the root on PATH, a package linked from `..`): that would show its `.env` and keys again.
  const whole = (p: string) => checkouts.some((t) => isInside(p, t) || isInside(realOrSelf(p), realOrSelf(t)));
  return {
    writable: [c.worktree],
    readable: [c.commonDir, ...(c.readable ?? []).filter((p) => !whole(p))],
    network: c.network,
    private: c.private,
    gitDir: c.commonDir,
    hidden: [stateDir()],
    checkouts,
    fromCheckouts: [...new Set([...c.fromCheckout, ...onPath])].filter((p) => !whole(p)),
    ...(c.exposed ? { exposed: c.exposed } : {}),
  };
}

/**
 * What the sandbox cannot do for a server run as root: bubblewrap (and a user namespace, whose `--uid` maps
 * back to uid 0) leaves the commands uid 0, without capabilities, so every file root owns and the sandbox
 * does not hide stays readable. Said at session start and in a review that runs a head's code; null otherwise.
 */
export function rootNotice(): string | null {
  if (process.getuid?.() !== 0) return null;
  return "sandbox: the server runs as root, so its sandboxed commands run as uid 0 too (without capabilities, so they cannot undo the sandbox), and can read every file root owns that the sandbox does not hide: /etc/shadow, the machine's SSH host keys in /etc/ssh, root-only logs. Start code-trm as an unprivileged user to keep those out of their reach.";
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
          [
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-net",
            "--die-with-parent",
            "--cap-drop",
            "ALL",
            "--seccomp",
            "0",
            "true",
          ],
          // The seccomp program too: a kernel without seccomp filters would fail every command.
          { input: keyringFilter(), stdio: ["pipe", "ignore", "pipe"], timeout: 10_000 },
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
 * the command, and no network unless asked. `passed`: the variables the session passes by name (passEnv),
 * kept with what they name.
 */
export function sandboxArgv(bin: string, given: Sandbox, shell: string, cmd: string, passed: readonly string[] = []): string[] {
  // Paths as the kernel resolves them (links followed): bwrap makes each mount point by its path in the new
  // root, where a link on the way (HOME=/home/alice -> /data/alice, CODE_TRM_STATE_DIR through a link)
  // leads nowhere and failed every command, or, not hidden, left the home in view. Inside the home the
  // path is kept as given below the home: the private home's folders are made afresh, links and all.
  const lexicalHome = os.homedir();
  const home = lexicalHome ? realOrSelf(lexicalHome) : lexicalHome;
  const mountPath = (p: string) => {
    for (const h of lexicalHome ? [home, lexicalHome] : []) if (isInside(h, p)) return path.join(home, path.relative(h, p));
    return realOrSelf(p);
  };
  const sb = mountPaths(given, mountPath);
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  // The keyring's own listings stay hidden too (key names and descriptions: a ticket's principal; h36), where the
  // kernel has them: a mount point procfs lacks would fail every command.
  for (const f of ["/proc/keys", "/proc/key-users"]) if (existsSync(f)) args.push("--ro-bind", "/dev/null", f);
  // Unix sockets are reachable through a read-only mount (a user bus, docker, an ssh or gpg agent): the
  // runtime folders go, and the variables that name them. The machine's shared temporary folders go too
  // (what other programs and users leave in /var/tmp, the server's own TMPDIR): each command gets empty ones.
  const hidden = [
    ...new Set(["/tmp", "/var/tmp", sharedTmpdir(home), "/run", "/var/run", process.env.XDG_RUNTIME_DIR].filter((d): d is string => !!d).map(realOrSelf)),
  ];
  for (const dir of hidden.slice(1)) if (isRealDir(dir) && !hidden.some((h) => h !== dir && isInside(h, dir))) args.push("--tmpfs", dir);
  const shown: string[] = [];
  let priv: { home: string } | null = null;
  if (home && home !== "/" && isRealDir(home)) {
    hidden.push(home);
    priv = sb.private ? ensurePrivate(sb.private) : null;
    if (priv) args.push("--bind", priv.home, home);
    else args.push("--tmpfs", home);
    for (const p of toolchainPaths(home, mountPath)) shown.push(p);
  }
  // What goes over the home, and the masks: after the private home's fresh folders (below).
  const over: string[] = [];
  const masked: string[] = [];
  const mask = (kind: "--tmpfs" | "--ro-bind", p: string, source = "/dev/null") => {
    over.push(...(kind === "--tmpfs" ? [kind, p] : [kind, source, p]));
    masked.push(p);
  };
  for (const p of sb.exposed ?? []) if (existsSync(p)) shown.push(p);
  // code-trm's state folder (other sessions' worktrees, homes and configs), where the home or /tmp does not
  // hide it already (CODE_TRM_STATE_DIR elsewhere): emptied, the worktree shown again over it below.
  // Where it really is too: a state folder in the home whose `~/.local` links to another disk is there.
  for (const h of (sb.hidden ?? []).flatMap((p) => [p, realOrSelf(p)])) {
    if (!isRealDir(h) || hidden.some((d) => isInside(d, h))) continue;
    over.push("--tmpfs", h);
    hidden.push(h);
  }
  // The user's checkout: its `.env`, keys, other ignored and untracked files are no command's business (the
  // tracked ones are the worktree's). Emptied wherever it is (in /tmp or the home too, so that a write there
  // fails as before instead of landing in an empty folder), read-only once what the commands need of it
  // (node_modules, linkPaths) is shown over it. Never one that holds the home.
  const checkouts = [...new Set((sb.checkouts ?? []).flatMap((p) => [p, realOrSelf(p)]))].filter((c) => isRealDir(c) && !(home && isInside(c, home)));
  // A folder shown that holds one (sandboxPaths of /work for /work/app) goes first, the checkout emptied in it
  // (shown after, it covered the checkout's mount, and bwrap failed to make that read-only: every command failed).
  const around = shown.filter((p) => checkouts.some((c) => isInside(p, c)));
  for (const p of around) over.push("--ro-bind", p, p);
  for (const c of checkouts) {
    over.push("--tmpfs", c);
    hidden.push(c);
  }
  const fromCheckouts = (given.fromCheckouts ?? [])
    .filter((p) => existsSync(p))
    .map((p) => ({ p, at: path.join(mountPath(path.dirname(p)), path.basename(p)) }));
  for (const { p, at } of fromCheckouts) over.push("--ro-bind", p, at);
  for (const p of shown) if (!around.includes(p)) over.push("--ro-bind", p, p);
  for (const r of sb.readable) over.push("--ro-bind", r, r);
  // The git directory: only what git needs to read the worktree's commit (gitDirView), before the
  // worktree, which an older session keeps inside it.
  const view = sb.gitDir && sb.private ? gitDirView(sb.gitDir, sb.writable, sb.private) : null;
  if (view) {
    over.push(...view.args);
    masked.push(...view.points);
  }
  for (const w of sb.writable) {
    over.push("--bind", w, w);
    // The worktree's `.git` file tells the server's own git calls where the repository is: a command that
    // rewrote it could point them at a config of its own.
    const pointer = path.join(w, ".git");
    if (existsSync(pointer)) mask("--ro-bind", pointer, pointer);
  }
  const visibleRoots = [...shown, ...fromCheckouts.map((f) => f.at), ...sb.readable, ...sb.writable];
  const inView = (p: string) => !view || !isInside(sb.gitDir!, p) || [...view.roots, ...sb.writable].some((r) => isInside(r, p));
  const visible = (p: string) => inView(p) && (visibleRoots.some((r) => isInside(r, p)) || !hidden.some((h) => isInside(h, p)));
  // A file to mask where it is in view: by its path (not through a link, which bwrap cannot mount on) and
  // where it really is (`~/.aws` a link to a keys disk, which `find /` finds).
  const inViewAt = (p: string) =>
    [...new Set([mountPath(p), realOrSelf(p)])].filter((q) => visible(q) && !lstatSync(q, { throwIfNoEntry: false })?.isSymbolicLink());
  // Credentials inside what is shown (a sandboxPaths of ~/.config, a checkout that is the home itself).
  for (const rel of CREDENTIALS) {
    const p = path.join(home, rel);
    const st = statOrNull(p);
    if (!st) continue;
    for (const q of inViewAt(p)) mask(st.isDirectory() ? "--tmpfs" : "--ro-bind", q);
  }
  // What the server's environment names as a configuration or a credential, wherever it is (GIT_CONFIG_GLOBAL
  // outside the home, XDG_CONFIG_HOME's gh token, GOOGLE_APPLICATION_CREDENTIALS): hidden, and the variables unset below.
  for (const p of namedCredentials(home, passed)) {
    const st = statOrNull(p);
    if (!st || (!st.isFile() && !st.isDirectory()) || sb.writable.some((w) => isInside(w, p))) continue;
    for (const q of inViewAt(p)) mask(st.isDirectory() ? "--tmpfs" : "--ro-bind", q);
  }
  if (view) {
    // What the config includes (`[include] path = creds.cfg` in .git, a CI's credentials file) is config too.
    for (const inc of includedFiles(path.join(sb.gitDir!, "config"), home)) for (const q of inViewAt(inc)) mask("--ro-bind", q);
    // The repositories of submodules (the checkout's in modules/, the worktree's in worktrees/<name>/modules/)
    // have configs of their own, with the remote URL `git submodule` copied, a token in it too, and hooks.
    for (const sub of view.repos.flatMap((d) => submoduleConfigs(path.join(d, "modules")))) {
      mask("--ro-bind", sub, writeSafeConfig(sub, sb.private!, true));
      if (isRealDir(path.join(path.dirname(sub), "hooks"))) mask("--tmpfs", path.join(path.dirname(sub), "hooks"));
    }
    for (const wc of [...view.repos.slice(1).map((d) => path.join(d, "config.worktree")), ...sb.writable.map((w) => worktreeConfigOf(w))]) {
      if (wc && existsSync(wc)) for (const q of inViewAt(wc)) mask("--ro-bind", q);
    }
  }
  // A socket anywhere that stays visible (a docker socket in ~/.colima shown through sandboxPaths, one
  // in the checkout, /var/spool, /nix): the kernel lists every bound one; each is covered by an empty file.
  for (const s of listeningSockets()) for (const q of inViewAt(s)) mask("--ro-bind", q);
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
  for (const c of checkouts) args.push("--remount-ro", c);
  for (const v of ["SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "GPG_AGENT_INFO", "DOCKER_HOST", ...NAMING_VARS.filter((n) => !passed.includes(n))])
    args.push("--unsetenv", v);
  // A TMPDIR the sandbox does not show or cannot write (one under /tmp is now the private tmpfs, where
  // it does not exist): go and cargo fail to make their work folders in it. The private /tmp instead.
  const tmpdir = process.env.TMPDIR;
  if (tmpdir && !sb.writable.some((w) => isInside(w, mountPath(tmpdir)))) args.push("--setenv", "TMPDIR", "/tmp");
  // IPC of its own: System V shared memory, semaphores and message queues of the machine (a browser's, an
  // X server's, a database's) are reachable by key from any process of the user otherwise.
  // No capability: bwrap started by root keeps root's, and CAP_SYS_ADMIN undoes every mount above (`umount` of
  // the home's mask, `mount -o remount,rw` of the checkout, the host's /proc under the sandbox's).
  args.push("--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session", "--cap-drop", "ALL");
  if (!sb.network) args.push("--unshare-net");
  // The keyring calls denied (sandbox-seccomp.ts); the caller gives the program on this descriptor.
  args.push("--seccomp", String(SECCOMP_FD));
  args.push("--chdir", sb.writable[0] ?? "/", "--", shell, "-c", cmd);
  return [bin, ...args];
}

/** The sandbox's folders at the paths its mounts are made at (sandboxArgv). */
function mountPaths(sb: Sandbox, at: (p: string) => string): Sandbox {
  return {
    ...sb,
    writable: sb.writable.map(at),
    readable: sb.readable.map(at),
    ...(sb.gitDir ? { gitDir: at(sb.gitDir) } : {}),
    ...(sb.exposed ? { exposed: sb.exposed.map(at) } : {}),
    ...(sb.hidden ? { hidden: sb.hidden.map(at) } : {}),
    ...(sb.checkouts ? { checkouts: sb.checkouts.map(at) } : {}),
  };
}

/** The toolchain folders of the home that exist, and the PATH entries inside the home. */
function toolchainPaths(home: string, at: (p: string) => string): string[] {
  const out = new Set<string>();
  for (const rel of TOOLCHAIN_PATHS) {
    const p = path.join(home, rel);
    if (existsSync(p)) out.add(p);
  }
  for (const entry of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!entry || !path.isAbsolute(entry)) continue;
    const d = at(path.resolve(entry));
    if (isInside(home, d) && d !== home && existsSync(d) && !CREDENTIALS.some((c) => isInside(path.join(home, c), d))) out.add(d);
  }
  return [...out];
}

/** `home/` of the session's private folder, made on first use. */
function ensurePrivate(dir: string): { home: string } {
  const home = path.join(dir, "home");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return { home };
}

/** A link or a file the command left where a folder of the private home must be: removed. */
function unlinkIfNotDir(p: string): void {
  const st = lstatSync(p, { throwIfNoEntry: false });
  if (st && !st.isDirectory()) rmSync(p, { force: true });
}
