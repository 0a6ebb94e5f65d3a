import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_POSTED, planReview, REVIEW_MARKER } from "../../../src/review/post.js";
import { reviewPr } from "../../../src/review/review.js";
import type { ReviewResult } from "../../../src/review/schema.js";
import { UserError } from "../../../src/util/errors.js";
import { type GitHubServer, startGitHubServer } from "../../helpers/github-server.js";

/** Posting one updatable GitHub review, against the recorded GitHub server (fixtures/github). */

let gh: GitHubServer;
beforeAll(async () => {
  gh = await startGitHubServer();
});
afterAll(async () => {
  await gh.close();
});

const TOKEN = ["ghp", "postTestToken0123456789abcdefghijklmnop"].join("_");
const PR = "https://github.com/octo-org/widgets/pull/42";
const since = (n: number) => gh.requests.slice(n).map((r) => `${r.method} ${new URL(r.url, gh.url).pathname}`);

describe("posting a review", () => {
  it("dry run returns exactly what would be posted and sends nothing", async () => {
    const n = gh.requests.length;
    const r = await reviewPr({ prUrl: PR, post: "dry" }, { baseUrl: gh.url, env: {} });
    const p = r.posted as Record<string, any>;
    expect(p).toMatchObject({ dryRun: true, action: "create", commitId: "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432", notInline: 0 });
    expect(p.body.startsWith(REVIEW_MARKER)).toBe(true);
    // Every finding, most severe first.
    expect(p.comments.map((c: any) => `${c.path}:${c.line}:${c.side}`).sort()).toEqual(r.comments.map((c) => `${c.file}:${c.line}:RIGHT`).sort());
    expect(p.comments[0].body).toMatch(/^🛑 \*\*critical\*\*/);
    expect(since(n).filter((x) => !x.startsWith("GET"))).toEqual([]);
  });

  it("creates one review with inline comments on the head commit: the POST is the dry run's plan", async () => {
    const dry = (await reviewPr({ prUrl: PR, post: "dry" }, { baseUrl: gh.url, env: {} })).posted as Record<string, any>;
    const n = gh.requests.length;
    const r = await reviewPr({ prUrl: PR, post: "submit" }, { baseUrl: gh.url, env: { GITHUB_TOKEN: TOKEN } });
    const posts = gh.requests.slice(n).filter((q) => q.method === "POST");
    expect(posts.map((q) => new URL(q.url, gh.url).pathname)).toEqual(["/repos/octo-org/widgets/pulls/42/reviews"]);
    expect(JSON.parse(posts[0]!.body)).toEqual({ commit_id: dry.commitId, body: dry.body, event: "COMMENT", comments: dry.comments });
    expect(posts[0]!.headers.authorization).toBe(`token ${TOKEN}`);
    expect(r.posted).toMatchObject({ dryRun: false, action: "create", reviewId: 1402 });
    expect(JSON.stringify(r)).not.toContain(TOKEN);
  });

  it("updates its own earlier review (found by the marker): body rewritten, still-valid comment edited, stale one deleted, no new review", async () => {
    const n = gh.requests.length;
    const r = await reviewPr({ prUrl: "https://github.com/acme/stats/pull/7", post: "submit" }, { baseUrl: gh.url, env: { GITHUB_TOKEN: TOKEN } });
    expect(since(n).filter((x) => !x.startsWith("GET /repos/acme/stats/pulls/7/files") && !x.includes("/git/blobs/") && !x.includes("/contents/"))).toEqual([
      "GET /repos/acme/stats/pulls/7",
      "GET /repos/acme/stats/pulls/7/reviews",
      "GET /repos/acme/stats/pulls/7/reviews/7001/comments",
      "PUT /repos/acme/stats/pulls/7/reviews/7001",
      "PATCH /repos/acme/stats/pulls/comments/70011",
      "DELETE /repos/acme/stats/pulls/comments/70012",
    ]);
    const put = gh.requests.slice(n).find((q) => q.method === "PUT")!;
    expect(JSON.parse(put.body).body).toContain(REVIEW_MARKER);
    const patch = gh.requests.slice(n).find((q) => q.method === "PATCH")!;
    expect(JSON.parse(patch.body).body).toContain("<!-- code-trm:src/stats.js:13:console-log -->");
    expect(r.posted).toMatchObject({ dryRun: false, action: "update", reviewId: 7001, edited: 1, deleted: 1 });
  });

  it(`caps inline comments at ${MAX_POSTED}, most severe first; the body lists the rest`, () => {
    const comments = Array.from({ length: 40 }, (_, i) => ({
      file: "src/a.ts",
      line: i + 1,
      severity: i === 39 ? ("critical" as const) : ("info" as const),
      category: "code-quality" as const,
      rule: "magic-number",
      message: `m${i}`,
    }));
    const r: ReviewResult = {
      summary: {
        filesChanged: 1,
        linesAdded: 40,
        linesRemoved: 0,
        commentsCount: 40,
        criticalCount: 1,
        warningCount: 0,
        infoCount: 39,
        assessment: "needs-changes",
        highlights: [],
      },
      comments,
    };
    const plan = planReview(r);
    expect(plan.comments).toHaveLength(MAX_POSTED);
    expect(plan.comments[0]!.line).toBe(40);
    expect(plan.notInline).toHaveLength(15);
    expect(plan.body).toContain("15 more finding(s), not commented inline (cap 25)");
  });

  it("refuses to submit without a token, and post without a pull request", async () => {
    await expect(reviewPr({ prUrl: PR, post: "submit" }, { baseUrl: "https://api.github.example", env: {} }).catch((e: unknown) => e)).resolves.toBeInstanceOf(
      Error,
    );
    const e = await reviewPr({ diff: "--- a/x.ts\n+++ b/x.ts\n@@ -0,0 +1 @@\n+x\n", post: "dry" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UserError);
    expect((e as UserError).message).toMatch(/post needs prUrl/);
  });
});
