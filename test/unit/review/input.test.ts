import { describe, expect, it } from "vitest";
import { z } from "zod";
import { reviewInputSchema, reviewInputShape, reviewOutputSchema } from "../../../src/mcp/tools/review-tools.js";
import { parsePrUrl } from "../../../src/review/pr-url.js";
import { reviewPr, selectSource } from "../../../src/review/review.js";
import { UserError } from "../../../src/util/errors.js";

async function userError(p: Promise<unknown>): Promise<UserError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(UserError);
  return e as UserError;
}

describe("input validation", () => {
  it("needs exactly one source", async () => {
    let e = await userError(reviewPr({}));
    expect(e.message).toBe("Nothing to review.");
    expect(e.hint).toMatch(/prUrl, diff, files, or repoPath \+ base \+ head/);
    e = await userError(reviewPr({ diff: "x", prUrl: "https://github.com/a/b/pull/1" }));
    expect(e.message).toMatch(/Several inputs given \(prUrl, diff\)/);
    e = await userError(reviewPr({ repoPath: "/tmp" }));
    expect(e.hint).toMatch(/base and head/);
    e = await userError(reviewPr({ base: "main", head: "x" }));
    expect(e.message).toMatch(/need repoPath/);
    e = await userError(reviewPr({ repoPath: "/tmp", base: "main" }));
    expect(e.message).toMatch(/both base and head/);
  });

  it("refuses empty or header-less diffs and empty files with a hint", async () => {
    expect((await userError(reviewPr({ diff: "  " }))).message).toBe("diff is empty.");
    const e = await userError(reviewPr({ diff: "just some text\nwithout hunks\n" }));
    expect(e.message).toBe("diff contains no file changes.");
    expect(e.hint).toMatch(/git diff/);
    expect((await userError(reviewPr({ files: [] }))).message).toBe("files is empty.");
    expect(
      (
        await userError(
          reviewPr({
            files: [
              { path: "a.ts", content: "x" },
              { path: "./a.ts", content: "y" },
            ],
          }),
        )
      ).message,
    ).toMatch(/given twice/);
  });

  it("evaluate says what it needs", async () => {
    expect((await userError(reviewPr({ prUrl: "https://github.com/a/b/pull/1", evaluate: true }))).message).toMatch(/^evaluate needs repoPath/);
    expect((await userError(reviewPr({ prUrl: "https://github.com/a/b/pull/1", evaluate: true, repoPath: "/r" }))).message).toMatch(
      /^evaluate needs at least one command/,
    );
    expect(
      (await userError(reviewPr({ diff: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", evaluate: true, repoPath: "/r", testCmd: "npm test" }))).message,
    ).toMatch(/^evaluate runs commands on commits/);
  });

  it("notes ignored parameters instead of failing", () => {
    const { notes } = selectSource({ diff: "x", repoPath: "/r", testCmd: "npm test" });
    expect(notes).toEqual([
      "repoPath was ignored: it is used with base + head (local range) or with prUrl.",
      "buildCmd / testCmd / lintCmd were ignored: they apply with evaluate: true or mutate: true.",
    ]);
    // With a pull request, repoPath is the clone the project's own tools run in.
    expect(selectSource({ prUrl: "https://github.com/o/r/pull/1", repoPath: "/r" }).notes).toEqual([]);
  });

  it("rejects malformed PR URLs with an example of a good one", async () => {
    for (const bad of [
      "not a url at all",
      "https://github.com/octo-org/widgets",
      "https://github.com/octo-org/widgets/issues/3",
      "https://github.com/octo-org/widgets/pull/abc",
      "https://github.com/octo-org/widgets/pull/0",
      "ftp://github.com/a/b/pull/1",
      "https://user:pw@github.com/a/b/pull/1",
      "https://github.com/-bad-/x/pull/1",
    ]) {
      const e = await userError(reviewPr({ prUrl: bad }));
      expect(e.hint, bad).toMatch(/github\.com\/OWNER\/REPO\/pull\/123|GITHUB_TOKEN/);
    }
  });
});

describe("parsePrUrl", () => {
  it("derives the API base from github.com and GitHub Enterprise URLs", () => {
    expect(parsePrUrl("https://github.com/octo-org/widgets/pull/42/files?w=1#diff-abc")).toEqual({
      owner: "octo-org",
      repo: "widgets",
      number: 42,
      host: "github.com",
      apiBase: "https://api.github.com",
      webUrl: "https://github.com/octo-org/widgets/pull/42",
    });
    expect(parsePrUrl("https://ghe.example.com/org/repo/pull/5")).toMatchObject({
      host: "ghe.example.com",
      apiBase: "https://ghe.example.com/api/v3",
      number: 5,
    });
    expect(parsePrUrl("http://ghe.local:8080/org/repo/pull/5")).toMatchObject({ host: "ghe.local:8080", apiBase: "http://ghe.local:8080/api/v3" });
    expect(parsePrUrl("github.com/o/r/pull/7")).toMatchObject({ owner: "o", repo: "r", number: 7, apiBase: "https://api.github.com" });
    expect(parsePrUrl("o/r.js#12")).toMatchObject({ owner: "o", repo: "r.js", number: 12 });
    expect(parsePrUrl("https://api.github.com/repos/o/r/pulls/3")).toMatchObject({ owner: "o", repo: "r", number: 3, host: "github.com" });
    expect(parsePrUrl("https://ghe.example.com/api/v3/repos/o/r/pulls/3")).toMatchObject({ apiBase: "https://ghe.example.com/api/v3" });
  });
});

describe("schemas", () => {
  it("the input schema is a flat object shape, cheap to send to the model", () => {
    const json = JSON.stringify(z.toJSONSchema(reviewInputSchema));
    // Every tool's schema is sent on every turn: keep this one small.
    expect(json.length).toBeLessThan(1600);
    expect(Object.keys(reviewInputShape).sort()).toEqual(
      [
        "base",
        "buildCmd",
        "diff",
        "evaluate",
        "files",
        "focus",
        "format",
        "head",
        "lintCmd",
        "mutate",
        "post",
        "prUrl",
        "repoPath",
        "testCmd",
        "timeoutSec",
        "trustPr",
      ].sort(),
    );
    expect(reviewInputSchema.safeParse({ focus: ["security", "formatting"], format: "sarif" }).success).toBe(true);
    expect(reviewInputSchema.safeParse({ focus: ["style"] }).success).toBe(false);
  });

  it("results match the output schema, with and without SARIF", async () => {
    const diff = "--- a/a.ts\n+++ b/a.ts\n@@ -1 +1,2 @@\n a\n+console.log(1);\n";
    for (const format of ["json", "sarif"] as const) {
      const r = await reviewPr({ diff, format });
      expect(reviewOutputSchema.parse(r)).toEqual(r);
    }
  });
});
