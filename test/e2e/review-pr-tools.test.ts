import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { textOf, tmpEnv } from "../helpers/client.js";
import { serveWithRecordedGitHub } from "../helpers/github-server.js";
import { checkoutState, g, makeMessy, ROOT, tmpDir } from "../helpers/repo.js";

/**
 * The project's own ESLint and tsc on a pull request (prUrl + repoPath): the recorded PR
 * acme/typed-lib#12 (fixtures/github/typed-lib-12) has its head commit in the user's clone, built from
 * fixtures/repos/ts-lint-pr with fixed identities and dates so that its id is the recorded one. tsc is
 * the real one of this project's node_modules, ESLint the stand-in of fixtures/repos/eslint-stub.
 */

type Any = Record<string, any>;
const PR = "https://github.com/acme/typed-lib/pull/12";
const BASE = "8cfecc654a07ea6aed0adfdfa75edd031900ebab";
const HEAD = "6923762d740b00c0302390cfda50aecf13c8ee2b";
const WHO = "Typed Dev";
const WHEN = "2026-01-05T10:00:00+00:00";
const FIXED = {
  GIT_AUTHOR_NAME: WHO,
  GIT_AUTHOR_EMAIL: "dev@typed.example",
  GIT_AUTHOR_DATE: WHEN,
  GIT_COMMITTER_NAME: WHO,
  GIT_COMMITTER_EMAIL: "dev@typed.example",
  GIT_COMMITTER_DATE: WHEN,
};

function gFixed(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, ...FIXED, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** The user's clone of acme/typed-lib, on main; with `withHead`, the PR's head is on the branch mean-ratio. */
function typedLib(withHead: boolean): string {
  const dir = path.join(tmpDir("trm-pr-tools-"), "typed-lib");
  cpSync(path.join(ROOT, "fixtures", "repos", "ts-lint-pr"), dir, { recursive: true });
  gFixed(dir, "init", "-q", "-b", "main");
  gFixed(dir, "add", "-A");
  gFixed(dir, "commit", "-q", "-m", "Initial typed-lib");
  if (withHead) {
    gFixed(dir, "checkout", "-q", "-b", "mean-ratio");
    appendFileSync(path.join(dir, "src/math.ts"), "\nexport function mean(xs: number[]): string {\n  return sum(xs) / xs.length;\n}\n");
    appendFileSync(path.join(dir, "src/format.js"), "\nexport function ratio(a, b) {\n  let r = a / b;\n  return percent(r);\n}\n");
    gFixed(dir, "commit", "-q", "-am", "Add mean and ratio");
    expect(gFixed(dir, "rev-parse", "HEAD").trim(), "the fixture or the head change was edited: update the shas in fixtures/github/typed-lib-12").toBe(HEAD);
    gFixed(dir, "checkout", "-q", "main");
  }
  expect(gFixed(dir, "rev-parse", "HEAD").trim(), "fixtures/repos/ts-lint-pr was edited: update the shas in fixtures/github/typed-lib-12").toBe(BASE);
  g(dir, "remote", "add", "origin", "https://github.com/acme/typed-lib.git");
  // The project's tools, installed (ignored by its .gitignore) as a package manager would.
  mkdirSync(path.join(dir, "node_modules", ".bin"), { recursive: true });
  symlinkSync(path.join(ROOT, "node_modules", "typescript"), path.join(dir, "node_modules", "typescript"));
  symlinkSync("../typescript/bin/tsc", path.join(dir, "node_modules", ".bin", "tsc"));
  cpSync(path.join(ROOT, "fixtures", "repos", "eslint-stub"), path.join(dir, "node_modules", "eslint"), { recursive: true });
  writeFileSync(path.join(dir, "node_modules", ".bin", "eslint"), `#!/bin/sh\nexec node "$(dirname "$0")/../eslint/bin/eslint.js" "$@"\n`);
  chmodSync(path.join(dir, "node_modules", ".bin", "eslint"), 0o755);
  return dir;
}

const toolFindings = (r: Any) => (r.comments as Any[]).filter((c) => /^(tsc|eslint)\//.test(c.rule)).map((c) => [c.file, c.line, c.rule, c.severity]);

const servers = serveWithRecordedGitHub();

describe("the project's ESLint and tsc on a pull request's head", () => {
  it("runs them on the head commit found in repoPath, reports only added lines, and the dry run would post them", async () => {
    const dir = typedLib(true);
    makeMessy(dir, "src/math.ts");
    const before = checkoutState(dir);
    const posts = () => servers.gh.requests.filter((q) => q.method !== "GET").length;
    const postsBefore = posts();

    const r = await servers.srv.call<Any>("trm_review_pr", { prUrl: PR, repoPath: dir, post: "dry" });
    // TS2322 on the added return of mean; the base's own error (LIMIT, line 1) is not this PR's.
    expect(toolFindings(r)).toEqual([
      ["src/format.js", 6, "eslint/prefer-const", "warning"],
      ["src/math.ts", 8, "tsc/TS2322", "critical"],
    ]);
    expect(r.comments.find((c: Any) => c.rule === "tsc/TS2322").message).toMatch(/^tsc: `Type 'number' is not assignable to type 'string'/);
    expect(r.summary.assessment).toBe("needs-changes");
    expect(r.prInfo.headSha).toBe(HEAD);
    // One note says what ran; nothing else about the tools (no failure, no refusal).
    expect((r.notes ?? []).filter((n: string) => /ESLint|tsc/.test(n))).toEqual(["Project tools: ran ESLint and tsc."]);
    // The dry run returns exactly what it would post: the tools' findings as inline comments.
    expect(r.posted).toMatchObject({ dryRun: true, action: "create", commitId: HEAD });
    const inline = (r.posted.comments as Any[]).map((c) => [c.path, c.line, /`(tsc|eslint)\/[^`]+`/.exec(c.body)?.[0]]);
    expect(inline).toEqual(
      expect.arrayContaining([
        ["src/math.ts", 8, "`tsc/TS2322`"],
        ["src/format.js", 6, "`eslint/prefer-const`"],
      ]),
    );
    expect(posts()).toBe(postsBefore);

    // The user's checkout (uncommitted edit of src/math.ts, staged file, stash) is exactly as it was.
    expect(checkoutState(dir)).toEqual(before);
    expect(g(dir, "worktree", "list")).not.toMatch(/trm-review/);
    expect(g(dir, "for-each-ref", "refs/trm")).toBe("");
  });

  it("says what to fetch when the head commit is not in repoPath, fetches nothing, and still reviews", async () => {
    const dir = typedLib(false);
    const before = checkoutState(dir);
    const r = await servers.srv.raw("trm_review_pr", { prUrl: PR, repoPath: dir });
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as Any;
    expect(s.notes).toContain(
      `The project's ESLint and tsc were skipped: the pull request's head commit ${HEAD.slice(0, 12)} is not in ${dir}. Fetch it with \`git -C ${dir} fetch origin pull/12/head\` and review again.`,
    );
    expect(textOf(r)).toContain("fetch origin pull/12/head");
    expect(toolFindings(s)).toEqual([]);
    expect(s.summary.filesChanged).toBe(2);
    expect(s.prInfo.number).toBe(12);
    // Nothing was fetched behind the user's back.
    expect(() => g(dir, "cat-file", "-e", `${HEAD}^{commit}`)).toThrow();
    expect(existsSync(path.join(dir, ".git", "FETCH_HEAD"))).toBe(false);
    expect(checkoutState(dir)).toEqual(before);
    // A repoPath that is not a clone is an error that says what to pass, not a silent skip.
    const bad = await servers.srv.raw("trm_review_pr", { prUrl: PR, repoPath: path.join(dir, "nope") });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/does not exist/);
  });

  it("code-trm review <prUrl> --repo runs them too (exit 1 on the type error)", async () => {
    const dir = typedLib(true);
    const before = checkoutState(dir);
    const cwd = tmpDir("trm-pr-tools-cli-");
    // Asynchronous: the recorded GitHub server answers from this process.
    const child = spawn(process.execPath, [path.join(ROOT, "dist", "cli", "main.js"), "review", PR, "--repo", dir, "--json"], {
      cwd,
      env: { ...tmpEnv(), PATH: process.env.PATH ?? "", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", GITHUB_API_URL: servers.gh.url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const run = { stdout: "", stderr: "", status: null as number | null };
    child.stdout.on("data", (d: Buffer) => (run.stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (run.stderr += d.toString("utf8")));
    run.status = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(run.stderr).toBe("");
    expect(run.status).toBe(1);
    const j = JSON.parse(run.stdout) as Any;
    expect(toolFindings(j)).toEqual([
      ["src/format.js", 6, "eslint/prefer-const", "warning"],
      ["src/math.ts", 8, "tsc/TS2322", "critical"],
    ]);
    expect(checkoutState(dir)).toEqual(before);
  });
});
