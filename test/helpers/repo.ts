import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");

/** Git for the tests themselves (making fixture repos); code-trm must not rely on this identity. */
export function g(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Test User",
      GIT_AUTHOR_EMAIL: "user@example.com",
      GIT_COMMITTER_NAME: "Test User",
      GIT_COMMITTER_EMAIL: "user@example.com",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_NOSYSTEM: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

const made: string[] = [];

/** A fresh temporary folder, removed after the test file (test/helpers/cleanup.ts). */
export function tmpDir(prefix = "trm-test-"): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every folder tmpDir made so far (git worktrees and session files inside them included). */
export function removeTmpDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}

/** A git repository made from fixtures/repos/<name>, with one commit on main. */
export function makeRepo(fixture: string): string {
  const dir = path.join(tmpDir(), fixture);
  cpSync(path.join(ROOT, "fixtures", "repos", fixture), dir, { recursive: true });
  g(dir, "init", "-q", "-b", "main");
  g(dir, "add", "-A");
  g(dir, "commit", "-q", "-m", "initial");
  return dir;
}

/** Leaves the checkout in the messy state real users have: staged, unstaged, untracked, a stash. */
export function makeMessy(dir: string, file: string): void {
  writeFileSync(path.join(dir, "stashed.txt"), "stash me\n");
  g(dir, "add", "stashed.txt");
  g(dir, "stash", "push", "-q", "-m", "user stash");
  writeFileSync(path.join(dir, "staged.txt"), "staged\n");
  g(dir, "add", "staged.txt");
  writeFileSync(path.join(dir, file), readFileSync(path.join(dir, file), "utf8") + "\n// user's uncommitted edit\n");
  writeFileSync(path.join(dir, "untracked-notes.md"), "user's untracked file\n");
}

function hashTree(dir: string, rel = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(path.join(dir, rel))) {
    if (rel === "" && name === ".git") continue;
    const r = rel ? `${rel}/${name}` : name;
    const st = lstatSync(path.join(dir, r));
    if (st.isDirectory()) Object.assign(out, hashTree(dir, r));
    else if (st.isSymbolicLink()) out[r] = `link:${readlinkSync(path.join(dir, r))}`;
    else
      out[r] = `${st.mode.toString(8)}:${createHash("sha1")
        .update(readFileSync(path.join(dir, r)))
        .digest("hex")}`;
  }
  return out;
}

/**
 * Everything of the user's that code-trm must never change: working-tree files (bytes and modes), the
 * index file byte for byte, the repository config, HEAD, every ref outside code-trm's own namespaces,
 * and the stash.
 */
export function checkoutState(dir: string) {
  const gitDir = path.join(dir, ".git");
  const refs = g(dir, "for-each-ref", "--format=%(refname) %(objectname)")
    .split("\n")
    .filter((l) => l && !/^refs\/(heads\/trm\/|tags\/trm\/|notes\/trm\/|notes\/trm-logs\/|trm\/)/.test(l));
  return {
    files: hashTree(dir),
    index: existsSync(path.join(gitDir, "index"))
      ? createHash("sha1")
          .update(readFileSync(path.join(gitDir, "index")))
          .digest("hex")
      : null,
    // The repository's config is theirs too (e.g. `git submodule init` in a worktree would write it).
    config: readFileSync(path.join(gitDir, "config"), "utf8"),
    head: readFileSync(path.join(gitDir, "HEAD"), "utf8"),
    headCommit: (() => {
      try {
        return g(dir, "rev-parse", "HEAD").trim();
      } catch {
        return null; // unborn HEAD
      }
    })(),
    refs,
    stash: (() => {
      try {
        return g(dir, "stash", "list", "--format=%H %gs");
      } catch {
        return "";
      }
    })(),
    status: g(dir, "status", "--porcelain=v1", "--untracked-files=all"),
  };
}

/** A git repository made of `files`, committed on main (in a folder tmpDir removes). */
export function repoFromFiles(files: Record<string, string>, prefix = "trm-repo-"): string {
  const dir = path.join(tmpDir(prefix), "repo");
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    writeFileSync(path.join(dir, p), c);
  }
  g(dir, "init", "-q", "-b", "main");
  g(dir, "add", "-A");
  g(dir, "commit", "-q", "-m", "initial");
  return dir;
}

/**
 * The tree git records for `dir` (a repository or a worktree) after `git add -A -- paths` on top of HEAD,
 * through a scratch index: the worktree's own index is left as it is.
 */
export function gitTreeOf(dir: string, paths: string[]): string {
  const index = path.join(tmpDir("trm-scratch-index-"), "index");
  process.env.GIT_INDEX_FILE = index;
  try {
    g(dir, "read-tree", "HEAD");
    g(dir, "--literal-pathspecs", "add", "-A", "--", ...paths);
    return g(dir, "write-tree").trim();
  } finally {
    delete process.env.GIT_INDEX_FILE;
    rmSync(index, { force: true });
  }
}

/** Every entry below `root` but .git, sorted: kind, permission bits, content digest or link text (to compare two checkouts). */
export function entriesBelow(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (dir === root && name === ".git") continue;
      const abs = path.join(dir, name);
      const rel = path.relative(root, abs);
      const st = lstatSync(abs);
      if (st.isSymbolicLink()) out.push(`link ${rel} -> ${readlinkSync(abs)}`);
      else if (st.isDirectory()) {
        out.push(`dir ${rel}`);
        walk(abs);
      } else out.push(`file ${rel} ${(st.mode & 0o777).toString(8)} ${createHash("sha1").update(readFileSync(abs)).digest("hex")}`);
    }
  };
  walk(root);
  return out;
}

/** Commits everything in `dir` (`git add -A`) with `message`; returns the new commit's id. */
export function commitAll(dir: string, message: string): string {
  g(dir, "add", "-A");
  g(dir, "commit", "-q", "-m", message);
  return g(dir, "rev-parse", "HEAD").trim();
}
