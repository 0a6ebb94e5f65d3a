import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { textOf } from "../helpers/client.js";
import { MEDIAN_RIGHT, statsWith } from "../helpers/fixtures.js";
import { serveWithRecordedGitHub } from "../helpers/github-server.js";
import { checkoutState, g, makeRepo, tmpDir } from "../helpers/repo.js";

type Any = Record<string, any>;
const servers = serveWithRecordedGitHub();

describe("trm_review_pr over stdio", () => {
  it("reviews a unified diff and returns SARIF on request", async () => {
    const diff =
      "--- a/src/db.ts\n+++ b/src/db.ts\n@@ -1,2 +1,3 @@\n import { db } from './conn';\n+export const find = (id: string) => db.query(\"SELECT * FROM users WHERE id = '\" + id + \"'\");\n export {};\n";
    const r = await servers.srv.call<Any>("trm_review_pr", { diff, format: "sarif" });
    expect(r.summary.assessment).toBe("needs-changes");
    expect(r.comments).toEqual([expect.objectContaining({ file: "src/db.ts", line: 2, severity: "critical", category: "security", cwe: "CWE-89" })]);
    expect(r.sarif.version).toBe("2.1.0");
  });

  it("a bare diff gets the syntax-tree rules on its hunks: `.only` and a floating promise from the hunks alone", async () => {
    const diff = [
      "--- a/test/cart.test.ts",
      "+++ b/test/cart.test.ts",
      '@@ -10,4 +10,7 @@ describe("cart", () => {',
      '   it("adds", () => {',
      "     expect(add(1)).toBe(1);",
      "   });",
      '+  it.only("removes", () => {',
      "+    expect(remove(1)).toBe(0);",
      "+  });",
      " });",
      "--- a/src/sync.ts",
      "+++ b/src/sync.ts",
      "@@ -20,6 +20,7 @@ export class Sync {",
      "   run(): void {",
      '     this.log("start");',
      "+    fetch(this.url).then((r) => this.apply(r));",
      '     this.log("done");',
      "   }",
      " }",
      "",
    ].join("\n");
    const r = await servers.srv.call<Any>("trm_review_pr", { diff });
    expect(r.comments.map((c: Any) => `${c.file}:${c.line}:${c.rule}`)).toEqual(
      expect.arrayContaining(["test/cart.test.ts:13:test-only", "src/sync.ts:22:floating-promise"]),
    );
  });

  it("reviews a GitHub pull request through the API (a local recorded server)", async () => {
    const r = await servers.srv.raw("trm_review_pr", { prUrl: "https://github.com/octo-org/widgets/pull/42" });
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as Any;
    expect(s.prInfo).toMatchObject({ number: 42, title: "Look up orders by id" });
    expect(s.summary.filesChanged).toBeGreaterThan(1);
    expect(textOf(r)).toMatch(/^Assessment: /);
    expect(servers.gh.requests.some((q) => q.url.startsWith("/repos/octo-org/widgets/pulls/42/files"))).toBe(true);
  });

  it("says what to do on a missing pull request", async () => {
    const r = await servers.srv.raw("trm_review_pr", { prUrl: "https://github.com/octo-org/widgets/pull/404040" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/GITHUB_TOKEN|URL/);
  });

  it("evaluates a pull request: fetches refs/pull/N/head from the repository's remote and runs the commands on base and head", async () => {
    // A bare repository stands in for github.com/acme/stats, with the PR head under refs/pull/7/head.
    const upstream = makeRepo("js-stats");
    const bare = path.join(tmpDir("trm-remote-"), "stats.git");
    g(upstream, "clone", "-q", "--bare", upstream, bare);
    g(upstream, "checkout", "-q", "-b", "fix-median");
    const fixed = statsWith(upstream, MEDIAN_RIGHT).replace(
      "  const mid = Math.floor(s.length / 2);\n",
      '  const mid = Math.floor(s.length / 2);\n  console.log("median of", s.length);\n',
    );
    writeFileSync(path.join(upstream, "src/stats.js"), fixed);
    g(upstream, "commit", "-q", "-am", "Fix median for even-length input");
    g(upstream, "push", "-q", bare, "HEAD:refs/pull/7/head");

    // The user's clone names the remote by its GitHub URL; insteadOf sends the fetch to the bare repo.
    const user = path.join(tmpDir("trm-user-"), "stats");
    g(path.dirname(user), "clone", "-q", bare, user);
    g(user, "remote", "set-url", "origin", "https://github.com/acme/stats.git");
    g(user, "config", `url.${bare}.insteadOf`, "https://github.com/acme/stats.git");
    // The remote's main moves on after the user's last fetch: their origin/main must stay where it was.
    g(upstream, "checkout", "-q", "main");
    writeFileSync(path.join(upstream, "later.txt"), "later\n");
    g(upstream, "add", "later.txt");
    g(upstream, "commit", "-q", "-m", "later work on main");
    g(upstream, "push", "-q", bare, "main");
    const before = checkoutState(user);
    expect(before.refs.join("\n")).toMatch(/refs\/remotes\/origin\/main/);

    const r = await servers.srv.call<Any>("trm_review_pr", {
      prUrl: "https://github.com/acme/stats/pull/7",
      repoPath: user,
      evaluate: true,
      testCmd: "node --test",
    });
    expect(r.evaluation).toMatchObject({ verdict: "better", fixedTests: ["median of even length"], newFailures: [] });
    expect(r.evaluation.base.tests).toBe("3/4");
    expect(r.evaluation.head.tests).toBe("4/4");
    expect(r.evaluation.scoreDelta).toBeCloseTo(0.25, 6);
    expect(r.comments).toEqual([expect.objectContaining({ file: "src/stats.js", line: 13, category: "logging" })]);

    // Nothing of the user's changed, and nothing was left behind.
    expect(checkoutState(user)).toEqual(before);
    expect(g(user, "for-each-ref", "refs/trm")).toBe("");
    expect(g(user, "worktree", "list")).not.toMatch(/trm-review/);
    expect(existsSync(path.join(user, ".git", "FETCH_HEAD"))).toBe(false);
  });

  it("evaluates a local range with no network", async () => {
    const repo = makeRepo("js-stats");
    g(repo, "checkout", "-q", "-b", "topic");
    writeFileSync(path.join(repo, "src/stats.js"), statsWith(repo, "export function median(xs) {\n  return xs[0];\n}\n"));
    g(repo, "commit", "-q", "-am", "simplify median");
    g(repo, "checkout", "-q", "main");
    const before = checkoutState(repo);
    const r = await servers.srv.call<Any>("trm_review_pr", { repoPath: repo, base: "main", head: "topic", evaluate: true, testCmd: "node --test" });
    expect(r.evaluation).toMatchObject({ verdict: "worse", newFailures: ["median of odd length"] });
    expect(checkoutState(repo)).toEqual(before);
    const bad = await servers.srv.raw("trm_review_pr", { repoPath: repo, base: "main", head: "--output=/tmp/x", evaluate: true, testCmd: "true" });
    expect(bad.isError).toBe(true);
  });
});
