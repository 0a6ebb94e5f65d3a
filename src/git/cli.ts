import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import { stat, unlink } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { cleanEnv } from "../exec/env.js";
import { errorMessage, UserError } from "../util/errors.js";
import { heldCredentials, holdUrlCredentials } from "../util/secrets.js";
import { shellQuote } from "../util/text.js";

/**
 * The one way code-trm runs the git CLI. Every call:
 * - disables the user's hooks, signing prompts, fsmonitor and auto-gc (they must not run on our commits),
 * - commits as a fixed identity, so a machine with no user.name / user.email works,
 * - runs with a cleaned environment: inherited GIT_DIR / GIT_INDEX_FILE (e.g. when started from a hook)
 *   would redirect git into the user's repository state,
 * - sets GIT_OPTIONAL_LOCKS=0 so read-only commands never refresh (rewrite) the user's index.
 * Client-supplied strings are only ever passed after `--end-of-options` or `--` by the callers.
 */
const SAFE_CONFIG = [
  "core.hooksPath=/dev/null",
  "commit.gpgsign=false",
  "tag.gpgsign=false",
  "gc.auto=0",
  "maintenance.auto=false",
  "core.fsmonitor=false",
  "core.quotepath=false",
  "advice.detachedHead=false",
  "init.defaultBranch=main",
  // A command may replace a submodule's `.git` with a repository of its own, whose config names
  // programs (filters, fsmonitor, hooks): git must never step into one on our behalf.
  "submodule.recurse=false",
  "status.submoduleSummary=false",
  "diff.submodule=short",
  "fetch.recurseSubmodules=false",
  // Programs git could start that no internal call needs.
  "core.pager=cat",
  "diff.external=",
  "core.editor=:",
  "sequence.editor=:",
  "core.alternateRefsCommand=",
];

/** Programs git may start for a fetch (ssh, credentials): blanked for every other call. */
const LOCAL_ONLY_CONFIG = ["core.sshCommand=", "credential.helper=", "core.askPass=", "protocol.ext.allow=never"];

/** Config keys that name a program per attribute driver: `filter.<name>.clean|smudge|process`, `merge.<name>.driver`. */
const DRIVER_KEY = /^(filter)\.(.+)\.(clean|smudge|process)$|^(merge)\.(.+)\.(driver)$/;

const driversByCwd = new Map<string, Promise<string[]>>();

/**
 * The `-c` arguments that switch off every attribute driver program the configuration seen from `cwd`
 * defines: a `.gitattributes` a command wrote (`* filter=lfs`) must not make our own `git add` or
 * `reset` run a program. Read once per folder with `git config --list` (which runs nothing), which also
 * registers a token found in a remote URL for redaction. Diff drivers (textconv, external diff) are off
 * through --no-textconv / --no-ext-diff at each diff.
 */
function driverOverrides(cwd: string): Promise<string[]> {
  let p = driversByCwd.get(cwd);
  if (!p) {
    p = execa("git", [...CONFIG_ARGS, ...LOCAL_ARGS, "config", "--list", "-z"], { cwd, env: gitEnv(), extendEnv: false, reject: false, stdin: "ignore" }).then(
      (r) => {
        const off = new Set<string>();
        for (const entry of String(r.stdout).split("\0")) {
          const nl = entry.indexOf("\n");
          const key = (nl < 0 ? entry : entry.slice(0, nl)).trim();
          // A token in a remote URL is redacted from every output like the environment's credentials.
          if (nl >= 0) holdUrlCredentials(entry.slice(nl + 1));
          const m = DRIVER_KEY.exec(key);
          if (m?.[1]) for (const k of ["clean=", "smudge=", "process=", "required=false"]) off.add(`filter.${m[2]}.${k}`);
          else if (m?.[4]) off.add(`merge.${m[5]}.driver=`);
        }
        return [...off].flatMap((c) => ["-c", c]);
      },
    );
    driversByCwd.set(cwd, p);
  }
  return p;
}

export const TRM_IDENTITY = { name: "code-trm", email: "code-trm@localhost" };

/**
 * Programs git could start on its own (editors, pagers, ssh, askpass, external diff). Internal git
 * calls never need them, so they are removed for git only; the session's commands keep them.
 */
const GIT_ONLY_STRIPPED = [
  "EDITOR",
  "VISUAL",
  "PAGER",
  "GIT_PAGER",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_PROXY_COMMAND",
  "GIT_EXTERNAL_DIFF",
  "GIT_EXEC_PATH",
  "GIT_TEMPLATE_DIR",
  "PREFIX",
];

function gitEnv(extra: Record<string, string> = {}, network = false): Record<string, string> {
  const env = cleanEnv({
    GIT_AUTHOR_NAME: TRM_IDENTITY.name,
    GIT_AUTHOR_EMAIL: TRM_IDENTITY.email,
    GIT_COMMITTER_NAME: TRM_IDENTITY.name,
    GIT_COMMITTER_EMAIL: TRM_IDENTITY.email,
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    LC_ALL: "C",
    ...extra,
  });
  // A fetch may need the credentials (a helper such as `gh auth git-credential` reads GH_TOKEN); local calls do not.
  if (network) for (const [k, v] of heldCredentials()) env[k] ??= v;
  for (const k of Object.keys(env)) {
    if (network && (k === "GIT_SSH" || k === "GIT_SSH_COMMAND")) continue;
    if (GIT_ONLY_STRIPPED.includes(k.toUpperCase())) delete env[k];
  }
  return env;
}

export interface GitOptions {
  /** Extra environment, e.g. GIT_INDEX_FILE for a temporary index. */
  env?: Record<string, string>;
  /** Written to git's stdin (messages, notes, `update-ref --stdin` transactions). */
  input?: string;
  /** Keep the user's ssh settings (GIT_SSH, GIT_SSH_COMMAND): only for fetching from their remotes. */
  network?: boolean;
}

export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly exitCode: number | undefined,
    readonly stderr: string,
  ) {
    super(`git ${args.slice(0, 2).join(" ")} failed${exitCode !== undefined ? ` (exit ${exitCode})` : ""}: ${stderr.trim() || "no message"}`);
    this.name = "GitError";
  }
}

const CONFIG_ARGS = SAFE_CONFIG.flatMap((c) => ["-c", c]);
const LOCAL_ARGS = LOCAL_ONLY_CONFIG.flatMap((c) => ["-c", c]);

/**
 * One git process. execa rather than simple-git: simple-git adds a fixed ~50 ms to every call that
 * prints nothing (update-ref measured 55.8 ms vs 5.0 ms), which alone broke the per-step budget, and
 * has no stdin. Client strings are never options here: callers pass them after `--end-of-options`/`--`.
 */
async function runGit(cwd: string, args: string[], env: Record<string, string>, input: string | undefined, network: boolean): Promise<string> {
  const r = await execa("git", [...CONFIG_ARGS, ...(network ? [] : [...LOCAL_ARGS, ...(await driverOverrides(cwd))]), ...args], {
    cwd,
    env,
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
    maxBuffer: 256 * 1024 * 1024,
    ...(input !== undefined ? { input } : { stdin: "ignore" as const }),
  });
  if (r.exitCode !== 0) throw new GitError(args, r.exitCode, r.failed && r.exitCode === undefined ? String(r.shortMessage) : String(r.stderr));
  return String(r.stdout);
}

/** CODE_TRM_DEBUG_GIT=1 prints each git call's duration on stderr (for profiling). */
const DEBUG = process.env.CODE_TRM_DEBUG_GIT === "1";

const LOCK_RE = /Unable to create '([^']+\.lock)': File exists/;
/** Locks that only code-trm creates: safe to remove when a crash left them behind. */
const OWN_LOCK_RE = /(\/worktrees\/trm-[^/]+\/[^/]+\.lock$)|(\/refs\/(heads|tags|notes)\/trm\/.+\.lock$)/;
const STALE_LOCK_MS = 10_000;

/**
 * Runs `git <args>` in `cwd` and returns stdout. Retries briefly when git reports a lock held by a
 * concurrent git process (git fails at once instead of waiting); removes a lock that code-trm alone
 * owns if it is older than any live operation could make it.
 */
export async function git(cwd: string, args: string[], opts: GitOptions = {}): Promise<string> {
  const env = gitEnv(opts.env, opts.network);
  for (let attempt = 0; ; attempt++) {
    try {
      if (!DEBUG) return await runGit(cwd, args, env, opts.input, !!opts.network);
      const t = performance.now();
      try {
        return await runGit(cwd, args, env, opts.input, !!opts.network);
      } finally {
        process.stderr.write(`git ${args.slice(0, 3).join(" ")}: ${(performance.now() - t).toFixed(1)} ms\n`);
      }
    } catch (err) {
      const m = LOCK_RE.exec(errorMessage(err));
      if (!m || attempt >= 6) throw err;
      const lock = m[1]!;
      if (OWN_LOCK_RE.test(lock)) {
        const age = await stat(lock)
          .then((s) => Date.now() - s.mtimeMs)
          .catch(() => 0);
        if (age > STALE_LOCK_MS) await unlink(lock).catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, 40 * (attempt + 1)));
    }
  }
}

/**
 * Raw bytes of a git command's stdout (e.g. a blob): a string would re-encode binary files. Same
 * configuration and environment as {@link git}; no retries (read-only commands take no lock).
 */
export async function gitBytes(cwd: string, args: string[]): Promise<Buffer> {
  // stripFinalNewline off: a blob's last byte is content (execa would drop a file's final newline).
  const r = await execa("git", [...CONFIG_ARGS, ...LOCAL_ARGS, ...(await driverOverrides(cwd)), ...args], {
    cwd,
    env: gitEnv(),
    extendEnv: false,
    reject: false,
    encoding: "buffer",
    stdin: "ignore",
    stripFinalNewline: false,
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.exitCode !== 0) throw new GitError(args, r.exitCode, Buffer.from(r.stderr as Uint8Array).toString("utf8"));
  return Buffer.from(r.stdout as Uint8Array);
}

/**
 * A long-lived git process fed through stdin (e.g. `update-ref --stdin`, whose transactions then cost
 * no spawn): same configuration and environment as {@link git}. It is unref'd, so it never keeps the
 * server alive, and exits on its own when its stdin closes (also when the server dies). Started by
 * long-lived.ts alone, which owns their lifecycle.
 */
export function gitProcess(cwd: string, args: string[]) {
  // check-attr, cat-file --batch and update-ref --stdin run no attribute driver.
  const child = execa("git", [...CONFIG_ARGS, ...LOCAL_ARGS, ...args], {
    cwd,
    env: gitEnv(),
    extendEnv: false,
    reject: false,
    buffer: false,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  child.unref();
  for (const s of [child.stdin, child.stdout, child.stderr] as const) (s as unknown as { unref?: () => void } | null)?.unref?.();
  return child;
}

/** Like {@link git} but returns null instead of throwing (for probes such as `rev-parse --verify`). */
export async function gitOrNull(cwd: string, args: string[], opts: GitOptions = {}): Promise<string | null> {
  try {
    return await git(cwd, args, opts);
  } catch {
    return null;
  }
}

/** Resolves the repository of `repoPath`: its top level and its common git directory. */
export async function openRepo(repoPath: string): Promise<{ top: string; commonDir: string; gitDir: string }> {
  const fast = openRepoFast(repoPath);
  if (fast) return fast;
  let statCode = "";
  const st = await stat(repoPath).catch((err: NodeJS.ErrnoException) => {
    statCode = err.code ?? "";
    return null;
  });
  if (!st && statCode !== "ENAMETOOLONG")
    throw new UserError(`${repoPath} does not exist.`, "Pass the absolute path of an existing checkout (check it for typos).");
  if (st && !st.isDirectory()) throw new UserError(`${repoPath} is a file, not a folder.`, "Pass the absolute path of the checkout's top folder.");
  let failure = "";
  const out = await git(repoPath, ["rev-parse", "--show-toplevel", "--git-common-dir", "--absolute-git-dir"]).catch((err: unknown) => {
    failure = err instanceof GitError ? err.stderr : errorMessage(err);
    return null;
  });
  if (out === null) {
    // git refuses a repository owned by another user (CVE-2022-24765) unless it is listed as safe.
    const dubious = /detected dubious ownership in repository at '([^']+)'/.exec(failure);
    if (dubious) {
      throw new UserError(
        `git refuses ${dubious[1]}: the repository is owned by another user (git's safe.directory protection), so code-trm cannot use it either.`,
        `If you trust it, mark it safe: git config --global --add safe.directory ${shellQuote(dubious[1]!)} ; or run code-trm as the repository's owner.`,
      );
    }
    if (
      /File name too long/i.test(failure) ||
      path
        .resolve(repoPath)
        .split("/")
        .some((c) => Buffer.byteLength(c) > 255)
    ) {
      throw new UserError(
        `repoPath has a name longer than the file system allows (ENAMETOOLONG, 255 bytes per name): ${repoPath.slice(0, 120)}….`,
        "Pass the path of an existing checkout.",
      );
    }
    if ((await gitOrNull(repoPath, ["rev-parse", "--is-bare-repository"]))?.trim() === "true") {
      throw new UserError(
        `${repoPath} is a bare repository: it has no working tree to start from.`,
        "Pass the path of a checkout (git worktree add, or a clone) instead.",
      );
    }
    throw new UserError(
      `Not a git repository (or not readable): ${repoPath}.`,
      "Pass repoPath = the absolute path of a git checkout (run `git init` first if it has none).",
    );
  }
  const [top, common, gitDir] = out.trim().split("\n");
  if (!top || !common || !gitDir)
    throw new UserError(`${repoPath} is a bare repository or has no working tree.`, "Pass the path of a checkout with a working tree.");
  // git prints --git-common-dir relative to the directory it ran in (repoPath), not to the top level.
  return { top, commonDir: path.resolve(repoPath, common), gitDir };
}

/**
 * The common case of {@link openRepo} without a git process: `repoPath` is the top of a checkout whose
 * `.git` is a folder of its own (not a linked worktree, a submodule or a bare repository), owned by this
 * user with its top (git's safe.directory check passes), with a plain configuration (no core.worktree,
 * core.bare, include or extension). Anything else is left to git, its messages included. Session start
 * begins the worktree's checkout this much sooner (one git process: 5-15 ms measured under load).
 */
function openRepoFast(repoPath: string): { top: string; commonDir: string; gitDir: string } | null {
  const uid = process.getuid?.();
  if (uid === undefined || !path.isAbsolute(repoPath)) return null;
  try {
    // git names the top by its real path (a link on the way resolved), as --show-toplevel prints it.
    const top = realpathSync(repoPath);
    const gitDir = path.join(top, ".git");
    const st = lstatSync(gitDir);
    if (!st.isDirectory() || st.uid !== uid || statSync(top).uid !== uid) return null;
    if (existsSync(path.join(gitDir, "commondir")) || existsSync(path.join(gitDir, "config.worktree"))) return null;
    if (!statSync(path.join(gitDir, "objects")).isDirectory() || !statSync(path.join(gitDir, "refs")).isDirectory()) return null;
    if (!/^(ref: refs\/\S+|[0-9a-f]{40})\s*$/.test(readFileSync(path.join(gitDir, "HEAD"), "utf8"))) return null;
    const config = readFileSync(path.join(gitDir, "config"), "utf8");
    if (/^\s*\[\s*(include|includeif|extensions)\b/im.test(config) || /^\s*worktree\s*=/im.test(config)) return null;
    for (const m of config.matchAll(/^\s*bare\s*(?:=\s*(.*?))?\s*$/gim)) if (!["false", "no", "off", "0"].includes((m[1] ?? "true").toLowerCase())) return null;
    // As git prints --git-common-dir: relative to repoPath, which openRepo resolves without following links.
    return { top, commonDir: path.join(path.resolve(repoPath), ".git"), gitDir };
  } catch {
    return null;
  }
}
