// The generated repository the git benchmarks run on, and their shared helpers (figures, pauses).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export const gitEnv = { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" };
export const git = (cwd, ...args) => execFileSync("git", args, { cwd, env: gitEnv, encoding: "utf8" });
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A committed repository of `files` small JavaScript files spread over `dirs` folders of src/ (each split
 * into `subdirs`), in a new temporary folder named `prefix`…; the caller removes it.
 */
export function makeRepo(files, { prefix = "trm-bench-", dirs = 50, subdirs = 1 } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  for (let i = 0; i < files; i++) {
    const d = subdirs > 1 ? path.join(dir, "src", `m${i % dirs}`, `s${i % subdirs}`) : path.join(dir, "src", `m${i % dirs}`);
    mkdirSync(d, { recursive: true });
    writeFileSync(path.join(d, `f${i}.js`), `export const v${i} = ${i};\n// ${"x".repeat(200)}\n`);
  }
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "init");
  // Files written in the same second as the index are "racily clean" and re-hashed by every git command;
  // a real checkout's index is older than its files. Refresh it as any `git status` would.
  execFileSync("sleep", ["1.1"]);
  git(dir, "update-index", "-q", "--refresh");
  return dir;
}

/**
 * TRM_BENCH_REPO=<checkout> runs a bench on a real repository instead of generated ones (one "size": its
 * own), TRM_BENCH_PATHS=<a,b,c> naming tracked files the steps rewrite (the first three are used). The
 * checkout itself is never changed (sessions work in .git/trm) and never removed.
 */
export function benchRepos(sizes, make) {
  const real = process.env.TRM_BENCH_REPO;
  if (!real) return sizes.map((size) => ({ size, repo: make(size), paths: ["src/m0/s0/f0.js", "src/m1/s1/f1.js", "src/m2/s2/f2.js"], own: true }));
  const paths = (process.env.TRM_BENCH_PATHS ?? "").split(",").filter(Boolean);
  if (paths.length < 3) throw new Error("TRM_BENCH_PATHS: three tracked files of TRM_BENCH_REPO, comma-separated");
  const size = git(real, "ls-files").split("\n").filter(Boolean).length;
  return [{ size, repo: real, paths, own: false }];
}
