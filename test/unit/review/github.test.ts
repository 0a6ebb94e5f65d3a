import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchPullRequest, githubError } from "../../../src/review/github.js";
import { parsePrUrl } from "../../../src/review/pr-url.js";
import { reviewPr } from "../../../src/review/review.js";
import { UserError } from "../../../src/util/errors.js";
import { type GitHubServer, startGitHubServer } from "../../helpers/github-server.js";

// A token-shaped value that must never appear in any result, note or error.
const TOKEN = ["ghp", "T0kenThatMustNeverLeak0000000000000000"].join("_");

let gh: GitHubServer;
beforeAll(async () => {
  gh = await startGitHubServer();
});
afterAll(async () => {
  await gh.close();
});

const PR = "https://github.com/octo-org/widgets/pull/42";

async function failure(p: Promise<unknown>): Promise<UserError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UserError);
  const u = err as UserError;
  // The token must not leak through the message, the hint, or the details.
  expect(JSON.stringify({ m: u.message, h: u.hint, d: u.details, s: u.stack })).not.toContain(TOKEN);
  return u;
}

describe("fetchPullRequest against recorded GitHub responses", () => {
  it("reads metadata, follows Link pagination and falls back to the .diff media type for a file without patch", async () => {
    const before = gh.requests.length;
    const pr = await fetchPullRequest(parsePrUrl(PR), { baseUrl: gh.url, env: {} });
    const reqs = gh.requests.slice(before);
    const urls = reqs.map((r) => [new URL(r.url, gh.url).pathname + new URL(r.url, gh.url).search, /diff/.test(String(r.headers.accept))]);
    expect(urls.slice(0, 4)).toEqual([
      ["/repos/octo-org/widgets/pulls/42", false],
      ["/repos/octo-org/widgets/pulls/42/files?per_page=100", false],
      ["/repos/octo-org/widgets/pulls/42/files?per_page=100&page=2", false],
      ["/repos/octo-org/widgets/pulls/42", true],
    ]);
    // Then the whole files at the head: changed text files by blob sha (not the binary, not the doc
    // without code), and the project's settings through the contents API at the head commit.
    const rest = urls.slice(4).map(([u]) => u as string);
    expect(rest.filter((u) => u.includes("/git/blobs/")).sort()).toEqual(
      [
        "b2c3d4e5f60718293a4b5c6d7e8f9012345678ab",
        "c3d4e5f60718293a4b5c6d7e8f9012345678abcd",
        "e5f60718293a4b5c6d7e8f9012345678abcdef01",
        "f60718293a4b5c6d7e8f9012345678abcdef0123",
      ].map((s) => `/repos/octo-org/widgets/git/blobs/${s}`),
    );
    expect(rest).toContain("/repos/octo-org/widgets/contents/.editorconfig?ref=9f8e7d6c5b4a39281706f5e4d3c2b1a098765432");
    expect(pr.files[0]!.content).toMatch(/^import type \{ Request, Response \}/);
    expect(pr.files[0]!.known.get(6)).toBe(" * One order by id, from the cache when warm.");
    // No recorded blob for table.ts (GitHub answered 404): it is reviewed from its hunks.
    expect(pr.files[3]!.content).toBeUndefined();
    expect(pr.project.maxLineLength).toBe(100);
    expect(pr.info).toEqual({
      title: "Look up orders by id",
      author: "octocat",
      base: "main",
      head: "feature/order-lookup",
      state: "open",
      url: PR,
      number: 42,
      draft: false,
      baseSha: "1a2b3c4d5e6f708192a3b4c5d6e7f80912345678",
      headSha: "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432",
    });
    expect(pr.files.map((f) => [f.path, f.status, f.linesAdded, f.linesRemoved, f.added])).toEqual([
      ["src/api/orders.ts", "modified", 3, 0, [13, 14, 15]],
      ["docs/guide.md", "modified", 1, 0, [4]],
      ["assets/logo.png", "added", 0, 0, []],
      // No patch in the file list: its added lines come from the PR's diff.
      ["src/lookup/table.ts", "modified", 2, 2, [121, 122]],
      ["src/labels/format.ts", "renamed", 1, 0, [2]],
    ]);
    expect(pr.files[4]!.oldPath).toBe("src/util/labels.ts");
    expect(pr.notes).toEqual([]);
  });

  it("reviews the PR end to end: comments on the right new-file lines, including the file recovered from the diff", async () => {
    const r = await reviewPr({ prUrl: PR }, { baseUrl: gh.url, env: {} });
    expect(r.comments.map((c) => [c.file, c.line, c.severity, c.rule, c.cwe])).toEqual([
      ["src/api/orders.ts", 13, "warning", "console-log", undefined],
      ["src/api/orders.ts", 14, "critical", "sql-injection", "CWE-89"],
      ["src/lookup/table.ts", 121, "critical", "eval", "CWE-95"],
      ["src/labels/format.ts", 2, "info", "todo-comment", undefined],
    ]);
    expect(r.summary).toMatchObject({
      filesChanged: 5,
      linesAdded: 7,
      linesRemoved: 2,
      criticalCount: 2,
      warningCount: 1,
      infoCount: 1,
      assessment: "needs-changes",
    });
    expect(r.prInfo?.title).toBe("Look up orders by id");
  });

  it("caches blobs by sha: a second review of the same head reads no blob it already has", async () => {
    await reviewPr({ prUrl: PR }, { baseUrl: gh.url, env: {} });
    const before = gh.requests.length;
    await reviewPr({ prUrl: PR }, { baseUrl: gh.url, env: {} });
    const blobs = gh.requests
      .slice(before)
      .map((r) => r.url)
      .filter((u) => u.includes("/git/blobs/"));
    expect(blobs.some((u) => u.includes("b2c3d4e5f60718293a4b5c6d7e8f9012345678ab"))).toBe(false);
    // The blob GitHub did not serve (404) is asked for again: only contents are cached.
    expect(blobs.some((u) => u.includes("e5f60718293a4b5c6d7e8f9012345678abcdef01"))).toBe(true);
  });

  it("says when GitHub's 3,000-file limit cut the file list, reporting progress page by page", async () => {
    const progress: string[] = [];
    const r = await reviewPr({ prUrl: "https://github.com/octo-org/monorepo/pull/9" }, { baseUrl: gh.url, env: {}, onProgress: (m) => progress.push(m) });
    expect(progress).toHaveLength(31);
    expect(progress[30]).toBe("Listed 3000 of 3412 files");
    expect(r.summary.filesChanged).toBe(3000);
    expect(r.notes).toHaveLength(2);
    expect(r.notes![0]).toMatch(/at most 3,000 files/);
    expect(r.notes![1]).toMatch(/Whole files were read for the first 150 files; 2850 more were reviewed from their hunks only/);
    expect(r.notes![0]).toMatch(/changes 3,412, so 412 were not reviewed/);
    expect(r.notes![0]).toMatch(/repoPath \+ base \+ head/);
  });

  it("maps 404 to a message that says to check the URL or set a token", async () => {
    const e = await failure(fetchPullRequest(parsePrUrl("https://github.com/octo-org/secret-project/pull/7"), { baseUrl: gh.url, env: {} }));
    expect(e.message).toMatch(/octo-org\/secret-project#7 not found/);
    expect(e.hint).toMatch(/Check the URL/);
    expect(e.hint).toMatch(/GITHUB_TOKEN/);
  });

  it("with a token, a 404 says the token may lack access (and never shows the token)", async () => {
    const e = await failure(
      fetchPullRequest(parsePrUrl("https://github.com/octo-org/secret-project/pull/7"), { baseUrl: gh.url, env: { GITHUB_TOKEN: TOKEN } }),
    );
    expect(e.message).toMatch(/cannot see it/);
    expect(e.hint).toMatch(/read access/);
  });

  it("maps 401 to a bad-token message", async () => {
    const e = await failure(fetchPullRequest(parsePrUrl("https://github.com/octo-org/widgets/pull/401"), { baseUrl: gh.url, env: { GH_TOKEN: TOKEN } }));
    expect(e.message).toMatch(/rejected the token \(401/);
    expect(e.hint).toMatch(/GITHUB_TOKEN or GH_TOKEN/);
  });

  it("a 401 without a token asks for one", async () => {
    const e = await failure(fetchPullRequest(parsePrUrl("https://github.com/octo-org/widgets/pull/401"), { baseUrl: gh.url, env: {} }));
    expect(e.message).toMatch(/requires authentication/);
    expect(e.hint).toMatch(/Set GITHUB_TOKEN \(or GH_TOKEN\)/);
  });

  it("gives up after the time budget, and passes a caller's cancellation through", async () => {
    // A fetch that never answers until its signal aborts.
    const hanging: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => {
        const signal = init?.signal;
        if (signal?.aborted) reject(signal.reason as Error);
        signal?.addEventListener("abort", () => reject(signal.reason as Error));
      });
    const e = await failure(fetchPullRequest(parsePrUrl(PR), { baseUrl: gh.url, env: {}, fetch: hanging, timeoutMs: 50 }));
    expect(e.message).toMatch(/did not answer within 0\.1 s/);
    const controller = new AbortController();
    const pending = fetchPullRequest(parsePrUrl(PR), { baseUrl: gh.url, env: {}, fetch: hanging, signal: controller.signal });
    controller.abort();
    const err = await pending.catch((x: unknown) => x);
    expect(err).not.toBeInstanceOf(UserError);
  });

  it("maps a 403 rate limit to the reset time and the advice to set a token", async () => {
    const e = await failure(fetchPullRequest(parsePrUrl("https://github.com/octo-org/widgets/pull/403"), { baseUrl: gh.url, env: {} }));
    expect(e.message).toMatch(/rate limit exceeded/);
    expect(e.message).toContain("2026-01-01T00:00:00.000Z");
    expect(e.hint).toMatch(/GITHUB_TOKEN.*5,000 per hour/);
  });

  it("maps a secondary rate limit to its retry-after delay", async () => {
    const e = await failure(fetchPullRequest(parsePrUrl("https://github.com/octo-org/widgets/pull/429"), { baseUrl: gh.url, env: { GITHUB_TOKEN: TOKEN } }));
    expect(e.message).toMatch(/secondary rate limit exceeded/);
    expect(e.message).toMatch(/Retry in 60 s/);
    expect(e.hint).toMatch(/Wait/);
  });

  it("maps other 403s to a permission message with GitHub's reason", async () => {
    const e = await failure(fetchPullRequest(parsePrUrl("https://github.com/octo-org/widgets/pull/4030"), { baseUrl: gh.url, env: { GITHUB_TOKEN: TOKEN } }));
    expect(e.message).toMatch(/403: Resource not accessible by personal access token/);
    expect(e.hint).toMatch(/lacks permission/);
  });

  it("reports an unreachable API without hanging", async () => {
    const closed = await startGitHubServer();
    const url = closed.url;
    await closed.close();
    const e = await failure(fetchPullRequest(parsePrUrl(PR), { baseUrl: url, env: {} }));
    expect(e.message).toMatch(/Could not reach the GitHub API/);
    expect(e.message).toMatch(/ECONNREFUSED/);
  });

  it("sends the token to the configured API, as a header only", async () => {
    const before = gh.requests.length;
    await fetchPullRequest(parsePrUrl(PR), { baseUrl: gh.url, env: { GITHUB_TOKEN: TOKEN } });
    const reqs = gh.requests.slice(before);
    expect(reqs.length).toBeGreaterThan(0);
    for (const r of reqs) {
      expect(r.headers.authorization).toBe(`token ${TOKEN}`);
      expect(r.url).not.toContain(TOKEN);
    }
  });

  it("derives the GitHub Enterprise API base (/api/v3) from the URL, and does not send the token to an unconfigured host", async () => {
    const before = gh.requests.length;
    const r = await reviewPr({ prUrl: `${gh.url}/octo-org/widgets/pull/42` }, { env: { GITHUB_TOKEN: TOKEN } });
    const reqs = gh.requests.slice(before);
    expect(reqs[0]!.url).toBe("/api/v3/repos/octo-org/widgets/pulls/42");
    // The Link header of the enterprise layout keeps the /api/v3 prefix.
    expect(reqs.some((q) => q.url === "/api/v3/repos/octo-org/widgets/pulls/42/files?per_page=100&page=2")).toBe(true);
    expect(reqs.every((q) => q.headers.authorization === undefined)).toBe(true);
    expect(r.notes?.join(" ")).toMatch(/not sent to 127\.0\.0\.1:\d+.*GH_HOST/);
    expect(JSON.stringify(r)).not.toContain(TOKEN);
  });

  it("never sends the token over plain http to a host taken from the URL; GITHUB_API_URL (set by the operator) overrides the base", async () => {
    let before = gh.requests.length;
    // GH_HOST trusts the host, but this PR URL (the model's) says http: the token would travel in clear.
    const plain = await reviewPr({ prUrl: `${gh.url}/octo-org/widgets/pull/42` }, { env: { GITHUB_TOKEN: TOKEN, GH_HOST: gh.host } });
    expect(gh.requests.slice(before).length).toBeGreaterThan(0);
    expect(gh.requests.slice(before).every((q) => q.headers.authorization === undefined)).toBe(true);
    expect(JSON.stringify(plain)).not.toContain(TOKEN);

    before = gh.requests.length;
    const r = await reviewPr({ prUrl: "https://ghe.example.com/octo-org/widgets/pull/42" }, { env: { GITHUB_API_URL: `${gh.url}/api/v3`, GH_TOKEN: TOKEN } });
    const reqs = gh.requests.slice(before);
    expect(reqs[0]!.url).toBe("/api/v3/repos/octo-org/widgets/pulls/42");
    expect(reqs.every((q) => q.headers.authorization === `token ${TOKEN}`)).toBe(true);
    expect(r.summary.filesChanged).toBe(5);
  });

  it("keeps the token out of results even when the reviewed text contains it", async () => {
    const diff = `--- a/src/x.ts\n+++ b/src/x.ts\n@@ -1 +1,2 @@\n a\n+// TODO rotate ${TOKEN} soon\n`;
    const r = await reviewPr({ diff, format: "sarif" }, { env: { GITHUB_TOKEN: TOKEN } });
    expect(r.comments.length).toBeGreaterThan(0);
    expect(JSON.stringify(r)).not.toContain(TOKEN);
  });

  it("githubError redacts the token from GitHub's own message", () => {
    const err = Object.assign(new Error("x"), { status: 403, response: { headers: {}, data: { message: `denied for ${TOKEN}` } } });
    const e = githubError(err, {
      ref: parsePrUrl(PR),
      baseUrl: "https://api.github.com",
      token: TOKEN,
      sentToken: true,
      timeoutMs: 1000,
      timedOut: () => false,
      cancelled: () => false,
    }) as UserError;
    expect(e.message).toContain("[REDACTED]");
    expect(e.message).not.toContain(TOKEN);
  });
});
