import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reviewPr } from "../../../src/review/review.js";
import { UserError } from "../../../src/util/errors.js";

const ENV = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };
const sh = (cwd: string, ...args: string[]): string => execFileSync("git", args, { cwd, env: ENV, encoding: "utf8" });
// Read-only probes for the snapshot: without this, `git status` itself refreshes (rewrites) the index.
const probe = (...args: string[]): string => execFileSync("git", args, { cwd: repo, env: { ...ENV, GIT_OPTIONAL_LOCKS: "0" }, encoding: "utf8" });

let root: string;
let repo: string;

function write(rel: string, text: string): void {
  mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
  writeFileSync(path.join(repo, rel), text);
}

/** Everything about the user's checkout that a review must not change. */
function snapshot(): Record<string, string> {
  const index = path.join(repo, ".git", "index");
  return {
    head: probe("rev-parse", "HEAD"),
    symbolicHead: probe("symbolic-ref", "HEAD"),
    status: probe("status", "--porcelain=v2", "--untracked-files=all"),
    refs: probe("for-each-ref", "--format=%(refname) %(objectname)"),
    stash: probe("stash", "list"),
    worktrees: probe("worktree", "list", "--porcelain"),
    index: createHash("sha256").update(readFileSync(index)).digest("hex"),
    indexMtime: String(statSync(index).mtimeMs),
    dirtyFile: readFileSync(path.join(repo, "src/app.ts"), "utf8"),
  };
}

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "trm-review-local-"));
  repo = path.join(root, "repo");
  mkdirSync(repo);
  sh(repo, "init", "-q", "-b", "main");
  write("src/app.ts", "export function main(): number {\n  return 1;\n}\n");
  write("src/app.test.ts", "test('main', () => {});\n");
  sh(repo, "add", "-A");
  sh(repo, "commit", "-q", "-m", "base");
  sh(repo, "switch", "-q", "-c", "feature");
  write(
    "src/app.ts",
    'export function main(): number {\n  console.log("starting");\n  return 1;\n}\n\nexport function parse(raw: string): any {\n  return JSON.parse(raw);\n}\n',
  );
  write("src/app.test.ts", "test('main', () => {});\ntest('parse', () => {});\n");
  sh(repo, "add", "-A");
  sh(repo, "commit", "-q", "-m", "Add parse helper");
  sh(repo, "switch", "-q", "main");
  // main moves on after the branch point: the review must show only the feature's own changes.
  write("src/other.ts", "export const other = 2; // TODO on main, not part of the feature\n");
  sh(repo, "add", "-A");
  sh(repo, "commit", "-q", "-m", "main moves on");
  // The user has uncommitted work: staged and unstaged changes and an untracked file.
  write("src/app.ts", "export function main(): number {\n  return 2;\n}\n");
  sh(repo, "add", "src/app.ts");
  write("src/app.ts", "export function main(): number {\n  return 3; // unstaged\n}\n");
  write("notes.txt", "untracked\n");
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("local range review (repoPath + base + head)", () => {
  it("reviews base...head from the merge base, with new-file line numbers, and leaves the checkout untouched", async () => {
    const before = snapshot();
    const r = await reviewPr({ repoPath: repo, base: "main", head: "feature" });
    expect(snapshot()).toEqual(before);
    expect(r.comments.map((c) => [c.file, c.line, c.rule])).toEqual([
      ["src/app.ts", 2, "console-log"],
      ["src/app.ts", 6, "ts-explicit-any"],
    ]);
    expect(r.summary).toMatchObject({ filesChanged: 2, linesAdded: 6, linesRemoved: 0, assessment: "comments" });
    expect(r.prInfo).toMatchObject({ title: "Add parse helper", author: "t", base: "main", head: "feature", state: "local" });
    expect(r.prInfo?.headSha).toBe(sh(repo, "rev-parse", "feature").trim());
  });

  it("accepts commit ids and relative refs", async () => {
    const r = await reviewPr({ repoPath: repo, base: "feature~1", head: sh(repo, "rev-parse", "feature").trim() });
    expect(r.comments.map((c) => c.rule)).toEqual(["console-log", "ts-explicit-any"]);
  });

  it("refuses option-looking refs without running them as options", async () => {
    const target = path.join(root, "pwned.txt");
    for (const ref of [`--output=${target}`, "-p", "--exec=touch x"]) {
      const err = await reviewPr({ repoPath: repo, base: ref, head: "feature" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UserError);
      expect((err as UserError).message).toMatch(/does not name a commit/);
    }
    expect(existsSync(target)).toBe(false);
  });

  it("explains an unknown ref and a path that is not a repository", async () => {
    const err = (await reviewPr({ repoPath: repo, base: "main", head: "no-such-branch" }).catch((e: unknown) => e)) as UserError;
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toMatch(/head ref "no-such-branch" does not name a commit/);
    expect(err.hint).toMatch(/git branch -a/);
    const notRepo = (await reviewPr({ repoPath: root, base: "a", head: "b" }).catch((e: unknown) => e)) as UserError;
    expect(notRepo).toBeInstanceOf(UserError);
    expect(notRepo.message).toMatch(/Not a git repository/);
  });

  it("compares unrelated histories directly and says so", async () => {
    sh(repo, "stash", "-q", "--include-untracked");
    try {
      sh(repo, "switch", "-q", "--orphan", "island");
      write("island.ts", "export const island = true;\n");
      sh(repo, "add", "island.ts");
      sh(repo, "commit", "-q", "-m", "island");
      sh(repo, "switch", "-q", "main");
    } finally {
      sh(repo, "stash", "pop", "-q");
    }
    const r = await reviewPr({ repoPath: repo, base: "main", head: "island" });
    expect(r.notes?.[0]).toMatch(/share no history/);
  });
});
