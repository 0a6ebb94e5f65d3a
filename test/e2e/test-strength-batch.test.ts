import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { checkoutState, repoFromFiles } from "../helpers/repo.js";

/**
 * testStrength with a weight holds for a best-of-N step as for a single candidate (docs/scoring.md, "Test
 * strength"): a batch's winner that passes every test with weak tests is scored down and does not end the
 * session with success.
 */

type Any = Record<string, any>;

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv?.close();
});

const STATS = "export function stats(xs) {\n  const n = xs.length;\n  const sum = xs.reduce((a, b) => a + b, 0);\n  return { n, mean: sum / n };\n}\n";
const HEAD = 'import { test } from "node:test";\nimport assert from "node:assert";\nimport { stats } from "../src/stats.js";\n';
const candidate = (test: string) => ({
  mode: "files",
  files: [
    { path: "src/stats.js", content: STATS },
    { path: "test/stats.test.js", content: `${HEAD}${test}` },
  ],
});

describe("testStrength in best of N", () => {
  it("a batch's winner passing with weak tests scores as a single submit of it would: below success, and the session goes on", async () => {
    const repo = repoFromFiles({
      "package.json": '{"type":"module"}\n',
      "src/clamp.js": "export function clamp(x, lo, hi) {\n  return x;\n}\n",
      "test/clamp.test.js": 'import { test } from "node:test";\ntest("nothing yet", () => {});\n',
    });
    const before = checkoutState(repo);
    const { sessionId } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", testStrength: 0.5 });
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId,
      candidates: [
        { candidate: candidate('test("stats counts", () => assert.equal(stats([1, 2, 3]).n, 3));\n'), rationale: "weak" },
        { candidate: candidate('test("stats wrong", () => assert.equal(stats([1, 2, 3]).n, 4));\n'), rationale: "failing" },
      ],
      maxParallel: 1,
    });
    expect(
      r.candidates.map((c: Any) => c.verdict),
      r.feedback,
    ).toEqual(["chosen", "kept"]);
    expect(r.tests).toMatchObject({ failed: 0 });
    expect(r.feedback).toMatch(
      /testStrength: \d+ of \d+ added code lines have a mutant the tests kill \(strength 0\.\d+, weight 0\.5\): score 1\.000 -> 0\.\d+/,
    );
    expect(r.score).toBeLessThan(0.95);
    expect(r.shouldHalt).toBe(false);
    await srv.call("trm_end_session", { sessionId, discard: true });
    expect(checkoutState(repo)).toEqual(before);
  }, 300_000);
});
