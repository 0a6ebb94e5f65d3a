import { symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAMP, clampLib as lib } from "../helpers/clamp-suite.js";
import { startServer, type TestServer } from "../helpers/client.js";
import { installRunners, RUNNERS } from "../helpers/real-runners.js";
import { repoFromFiles, tmpDir } from "../helpers/repo.js";

/**
 * Best of N with failing first (docs/failing-first.md, "Best of N"), vitest run for real: a partial
 * candidate's score is an estimate, so it may not beat a full run's exact score until its own whole suite
 * has run; partial candidates compare with each other by their estimates.
 */

type Any = Record<string, any>;

const TESTS = `import { describe, expect, test } from "vitest";
import { add, clamp } from "../lib.js";
test("add: two and three", () => { expect(add(2, 3)).toBe(5); });
describe("clamp", () => {
${CLAMP.map(([n, a, b]) => `  test(${JSON.stringify(n)}, () => { expect(${a}).toBe(${b}); });`).join("\n")}
});
`;
/** Baseline: `above` and `far above` fail (4 of 6 pass). */
const BUG = "Math.max(lo, x)";
/** Fixes both failing tests, breaks `inside` and `at hi`: a full run (its selected tests pass), 4 of 6, exact. */
const FIX_BOTH_BREAK_TWO = "x > hi ? hi : x < lo ? lo : x === 10 ? 9 : x + 1";
/** Fixes `above` only: partial, 5 of 6 counted; its whole suite also gives 5 of 6. */
const FIX_ONE = "x === 11 ? 10 : Math.max(lo, x)";
/** Fixes `above` only and breaks `inside` and `at hi`, which the partial run does not see: 5 of 6 counted, 3 of 6 really. */
const FIX_ONE_BREAK_TWO = "x === 11 ? 10 : x === 5 || x === 10 ? 0 : Math.max(lo, x)";
/** Fixes nothing: partial, 4 of 6. */
const SAME = "Math.max(lo, x) + 0";

let srv: TestServer;
beforeAll(async () => {
  installRunners();
  srv = await startServer({ env: { TMPDIR: tmpDir("trm-ffb-tmp-") } });
}, 600_000);
afterAll(async () => {
  await srv?.close();
});

async function start(): Promise<string> {
  const repo = repoFromFiles(
    {
      ".gitignore": "node_modules\n",
      "package.json": '{ "name": "calc", "private": true, "type": "module" }\n',
      "lib.js": lib(BUG),
      "test/clamp.test.js": TESTS,
    },
    "trm-ffb-",
  );
  symlinkSync(path.join(RUNNERS, "node_modules"), path.join(repo, "node_modules"));
  const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "npx vitest run", preflight: true, linkPaths: ["node_modules"] });
  expect(s.preflight.tests).toMatchObject({ passed: 4, failed: 2, total: 6 });
  return s.sessionId;
}

const chosen = (r: Any) => r.candidates.findIndex((c: Any) => c.verdict === "chosen") + 1;

const batch = (sessionId: string, bodies: string[]) =>
  srv.call<Any>("trm_submit_candidate", {
    sessionId,
    maxParallel: 2,
    candidates: bodies.map((b, i) => ({ candidate: { mode: "files", files: [{ path: "lib.js", content: lib(b) }] }, rationale: `candidate ${i + 1}` })),
  });

describe("best of N with failing first, vitest run for real", () => {
  it("a partial candidate whose estimate beats a full run's score runs its whole suite before it can be chosen", async () => {
    const id = await start();
    // #2's estimate (5/6) beats #1's full run (4/6); its whole suite says 3/6, so #1 is the step.
    const r = await batch(id, [FIX_BOTH_BREAK_TWO, FIX_ONE_BREAK_TWO]);
    expect(chosen(r), JSON.stringify(r.candidates)).toBe(1);
    expect(r.partial).toBeUndefined();
    expect(r.score).toBeCloseTo(4 / 6, 6);
    expect(r.tests).toMatchObject({ passed: 4, failed: 2, total: 6 });
    expect(r.candidates[1].score).toBeCloseTo(3 / 6, 6);
    expect(r.candidates[1].feedback).toMatch(/^tests 3\/6 passed, 3 failed — /);
    expect(r.candidates[1].feedback).not.toMatch(/PARTIAL/);
    // The alternative's record keeps its full run, with the notice saying why it ran.
    const alt = await srv.call<Any>("trm_read_log", { sessionId: id, at: "1.2", command: "test", limit: 100_000 });
    expect(alt.content).toMatch(/Tests\s+3 failed \| 3 passed \(6\)/);
    await srv.call("trm_undo", { sessionId: id });

    // #2's estimate (5/6) holds up in its whole suite: chosen, a full step, the new best.
    const r2 = await batch(id, [FIX_BOTH_BREAK_TWO, FIX_ONE, SAME]);
    expect(chosen(r2), JSON.stringify(r2.candidates)).toBe(2);
    expect(r2.partial).toBeUndefined();
    expect(r2.score).toBeCloseTo(5 / 6, 6);
    expect(r2.improved).toBe(true);
    expect(r2.feedback).toMatch(
      /Best of N: this candidate's selected tests still failed, but its partial score \(0\.83, an estimate\) was above another candidate's full run/,
    );
    // #3 was not contested: it stays partial, and its line says its counts are an estimate.
    expect(r2.candidates[2].score).toBeCloseTo(4 / 6, 6);
    expect(r2.candidates[2].feedback).toMatch(/^tests 4\/6 passed, 2 failed \(PARTIAL: ran 2 of 6\)/);
    await srv.call("trm_end_session", { sessionId: id, discard: true });
  }, 240_000);

  it("partial candidates alone compare by their estimates, and the step they make is partial", async () => {
    const id = await start();
    const r = await batch(id, [SAME, FIX_ONE_BREAK_TWO]);
    expect(chosen(r), JSON.stringify(r.candidates)).toBe(2);
    expect(r.partial).toBe(true);
    expect(r.ran).toBe("2 of 6");
    // The estimate (the whole suite would say 3/6) stands: nothing ran in full to contradict it, and a partial step is never best.
    expect(r.score).toBeCloseTo(5 / 6, 6);
    expect(r.improved).toBe(false);
    expect(r.feedback).not.toMatch(/Best of N: this candidate/);
    expect(r.candidates.map((c: Any) => c.feedback)).toEqual([expect.stringMatching(/PARTIAL: ran 2 of 6/), expect.stringMatching(/PARTIAL: ran 2 of 6/)]);
    await srv.call("trm_end_session", { sessionId: id, discard: true });
  }, 240_000);
});
