import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { checkoutState, repoFromFiles } from "../helpers/repo.js";

/**
 * testStrength with a weight (docs/scoring.md, "Test strength"): a step passing every test with weak tests
 * does not end the session with success, in a best-of-N batch as for a single candidate, and when a failing
 * step before it scored above passThreshold.
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

describe("testStrength with a weight", () => {
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

  it("a baseline failing 1 of 21 tests (0.952) does not carry the fix's weak tests to success", async () => {
    const many = Array.from({ length: 20 }, (_, i) => `test("t${i}", () => {});`).join("\n");
    const repo = repoFromFiles({
      "package.json": '{"type":"module"}\n',
      "src/stats.js": "export function stats(xs) {\n  return { n: 0 };\n}\n",
      "test/many.test.js": `import { test } from "node:test";\n${many}\n`,
      "test/stats.test.js": `${HEAD}test("stats counts", () => assert.equal(stats([1, 2, 3]).n, 3));\n`,
    });
    const { sessionId, preflight } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", testStrength: 0.5, preflight: true });
    expect(preflight.tests).toMatchObject({ passed: 20, failed: 1 });
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: { mode: "files", files: [{ path: "src/stats.js", content: STATS }] } });
    expect(r.tests).toMatchObject({ passed: 21, failed: 0 });
    expect(r.feedback).toMatch(/testStrength: \d+ of \d+ added code lines have a mutant the tests kill/);
    expect(r.score).toBeGreaterThan(20 / 21);
    expect(r.improved).toBe(true);
    expect(r.shouldHalt, r.feedback).toBe(false);
    expect(r.feedback).toMatch(/held above the failing steps before it, but its test strength gives 0\.\d+ < 0\.95/);
    await srv.call("trm_end_session", { sessionId, discard: true });
  }, 300_000);
});
