import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, tmpEnv } from "../helpers/client.js";
import { checkoutState, g, ROOT, repoFromFiles } from "../helpers/repo.js";

/**
 * trm_review_pr / code-trm review with mutate: the head's tests run with Node's V8 coverage and with
 * Stryker's mutants of the covered added lines, in temporary checkouts; findings are line comments.
 */

type Any = Record<string, any>;

const TEST_LO_MID = `import { test } from "node:test";
import assert from "node:assert";
import { clamp } from "../src/clamp.js";
test("below", () => assert.equal(clamp(-1, 0, 5), 0));
test("inside", () => assert.equal(clamp(3, 0, 5), 3));
`;

/** main: clamp returns x. topic: clamp learns lo and hi but no test goes above hi, and stats is half tested. good: all tested. */
function fixture(): string {
  const repo = repoFromFiles({
    "package.json": '{"type":"module"}\n',
    "src/clamp.js": "export function clamp(x, lo, hi) {\n  return x;\n}\n",
    "test/clamp.test.js": 'import { test } from "node:test";\ntest("nothing yet", () => {});\n',
  });
  const clamp = "export function clamp(x, lo, hi) {\n  if (x < lo) {\n    return lo;\n  }\n  if (x > hi) {\n    return hi;\n  }\n  return x;\n}\n";
  g(repo, "checkout", "-q", "-b", "topic");
  writeFileSync(path.join(repo, "src/clamp.js"), clamp);
  writeFileSync(
    path.join(repo, "src/stats.js"),
    "export function stats(xs) {\n  const n = xs.length;\n  const sum = xs.reduce((a, b) => a + b, 0);\n  return { n, mean: sum / n };\n}\n",
  );
  writeFileSync(
    path.join(repo, "test/clamp.test.js"),
    `${TEST_LO_MID}import { stats } from "../src/stats.js";\ntest("stats counts", () => assert.equal(stats([1, 2, 3]).n, 3));\n`,
  );
  g(repo, "add", "-A");
  g(repo, "commit", "-q", "-m", "clamp and stats");
  g(repo, "checkout", "-q", "-b", "good", "main");
  writeFileSync(path.join(repo, "src/clamp.js"), clamp);
  writeFileSync(path.join(repo, "test/clamp.test.js"), `${TEST_LO_MID}test("above", () => assert.equal(clamp(9, 0, 5), 5));\n`);
  g(repo, "add", "-A");
  g(repo, "commit", "-q", "-m", "clamp, tested");
  g(repo, "checkout", "-q", "main");
  return repo;
}

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv?.close();
});

const findings = (r: Any) =>
  (r.comments as Any[]).filter((c) => c.rule === "untested-change" || c.rule === "surviving-mutant").map((c) => [c.file, c.line, c.rule]);

describe("a review that runs the tests: untested lines and surviving mutants of the change", () => {
  it("reports the branch no test takes and the mutants every test passes, and leaves the user's checkout as it was", async () => {
    const repo = fixture();
    const before = checkoutState(repo);
    const r = await srv.call<Any>("trm_review_pr", { repoPath: repo, base: "main", head: "topic", mutate: true, testCmd: "node --test" });
    expect(findings(r)).toEqual([
      ["src/clamp.js", 6, "untested-change"],
      ["src/stats.js", 3, "surviving-mutant"],
      ["src/stats.js", 4, "surviving-mutant"],
    ]);
    const mutant = (r.comments as Any[]).find((c) => c.line === 4 && c.file === "src/stats.js");
    // Which tests ran, as the output named them (issue 26): the count and the first few names.
    expect(mutant.message).toMatch(/every test still passes \(`node --test`: 3 tests passed, among them `[^`]+`, `[^`]+`, `[^`]+`\)/);
    expect(mutant.suggestion).toContain("-  return { n, mean: sum / n };\n+  return { n, mean: sum * n };");
    expect(r.notes.join("\n")).toMatch(/Coverage of the change: \d+ of \d+ added code lines ran/);
    expect(r.notes.join("\n")).toMatch(/Mutants of the covered added lines: (\d+) of \1 run .* survived/);
    expect(checkoutState(repo)).toEqual(before);
    // Nothing of code-trm's is left: no worktree, no coverage folder.
    expect(g(repo, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
  }, 120_000);

  it("reports nothing on a change whose tests take every branch and fail on every mutant", async () => {
    const repo = fixture();
    const r = await srv.call<Any>("trm_review_pr", { repoPath: repo, base: "main", head: "good", mutate: true, testCmd: "node --test" });
    expect(findings(r)).toEqual([]);
    expect(r.notes.join("\n")).toMatch(/Coverage of the change: (\d+) of \1 added code lines ran/);
    expect(r.notes.join("\n")).toMatch(/Mutants of the covered added lines: (\d+) of \1 run .* \1 killed, 0 survived/);
  }, 120_000);

  it("refuses mutate without a test command or on a bare diff, changing nothing", async () => {
    const repo = fixture();
    const a = await srv.raw("trm_review_pr", { repoPath: repo, base: "main", head: "topic", mutate: true });
    expect(a.isError).toBe(true);
    expect(JSON.stringify(a.content)).toMatch(/mutate needs repoPath \(a local clone\) and testCmd/);
    const b = await srv.raw("trm_review_pr", { diff: "--- a/x.js\n+++ b/x.js\n@@ -1 +1 @@\n-a\n+b\n", repoPath: repo, mutate: true, testCmd: "node --test" });
    expect(b.isError).toBe(true);
  });

  it("code-trm review --mutate honours the mutants' time budget", () => {
    const repo = fixture();
    // Each test run takes over a second: with a 10 s budget (the baseline included) some mutants cannot start.
    writeFileSync(path.join(repo, "slow.test.mjs"), 'import { test } from "node:test";\ntest("slow", () => new Promise((r) => setTimeout(r, 3000)));\n');
    const before = checkoutState(repo);
    const t0 = Date.now();
    let out = "";
    try {
      out = execFileSync(
        process.execPath,
        [
          path.join(ROOT, "dist/cli/main.js"),
          "review",
          "main..topic",
          "--repo",
          repo,
          "--mutate",
          "--test-cmd",
          `node --test test/clamp.test.js ${path.join(repo, "slow.test.mjs")}`,
          "--mutate-budget",
          "10",
          "--json",
        ],
        { encoding: "utf8", env: { ...process.env, ...tmpEnv() } },
      );
    } catch (err) {
      out = (err as { stdout: string }).stdout;
    }
    const r = JSON.parse(out) as Any;
    const notes = (r.notes as string[]).join("\n");
    const m = /Mutants of the covered added lines: (\d+) of (\d+) run in (\d+) s/.exec(notes);
    expect(m, notes).not.toBeNull();
    expect(Number(m![1])).toBeLessThan(Number(m![2]));
    // The last mutant started before the deadline is stopped at it: a second of slack for its kill.
    expect(Number(m![3])).toBeLessThanOrEqual(12);
    expect(notes).toMatch(/of \d+ mutants were not run within the 10 s budget/);
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect(checkoutState(repo)).toEqual(before);
  }, 120_000);

  it("testStrength in the loop: a step that passes every test with a weak test is told the surviving mutants of its lines", async () => {
    const repo = fixture();
    const before = checkoutState(repo);
    const { sessionId } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", testStrength: true });
    const stats = "export function stats(xs) {\n  const n = xs.length;\n  const sum = xs.reduce((a, b) => a + b, 0);\n  return { n, mean: sum / n };\n}\n";
    const weakTest =
      'import { test } from "node:test";\nimport assert from "node:assert";\nimport { stats } from "../src/stats.js";\ntest("stats counts", () => assert.equal(stats([1, 2, 3]).n, 3));\n';
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId,
      candidate: {
        mode: "files",
        files: [
          { path: "src/stats.js", content: stats },
          { path: "test/stats.test.js", content: weakTest },
        ],
      },
    });
    expect(r.shouldHalt).toBe(true);
    expect(r.feedback).toMatch(/testStrength: src\/stats\.js:3 Surviving mutant \(ArithmeticOperator\)/);
    expect(r.feedback).toMatch(/testStrength: src\/stats\.js:4 Surviving mutant[\s\S]*\+  return \{ n, mean: sum \* n \};/);
    await srv.call("trm_end_session", { sessionId });
    expect(checkoutState(repo)).toEqual(before);
  }, 120_000);

  it("testStrength with a weight: weak tests lower the passing step's score below success, tests that kill its mutants bring it to 1", async () => {
    const repo = fixture();
    const { sessionId } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", testStrength: 0.5 });
    const stats = "export function stats(xs) {\n  const n = xs.length;\n  const sum = xs.reduce((a, b) => a + b, 0);\n  return { n, mean: sum / n };\n}\n";
    const head = 'import { test } from "node:test";\nimport assert from "node:assert";\nimport { stats } from "../src/stats.js";\n';
    const submit = (test: string) =>
      srv.call<Any>("trm_submit_candidate", {
        sessionId,
        candidate: {
          mode: "files",
          files: [
            { path: "src/stats.js", content: stats },
            { path: "test/stats.test.js", content: `${head}${test}` },
          ],
        },
      });
    const weak = await submit('test("stats counts", () => assert.equal(stats([1, 2, 3]).n, 3));\n');
    expect(weak.tests).toMatchObject({ failed: 0 });
    expect(weak.score).toBeLessThan(0.95);
    expect(weak.shouldHalt).toBe(false);
    expect(weak.feedback).toMatch(
      /testStrength: \d+ of \d+ added code lines have a mutant the tests kill \(strength 0\.\d+, weight 0\.5\): score 1\.000 -> 0\.\d+/,
    );
    const strong = await submit('test("stats", () => assert.deepEqual(stats([1, 2, 3]), { n: 3, mean: 2 }));\n');
    expect(strong.score).toBe(1);
    expect(strong.shouldHalt).toBe(true);
    await srv.call("trm_end_session", { sessionId });
  }, 300_000);
});
