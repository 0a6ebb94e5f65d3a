/**
 * Real test runners end to end (issue 14). The fixture's `bin/ava.js` REPLAYS real AVA 7 outputs captured
 * in fixtures/outputs/ava (it does not run AVA: CI installs only code-trm's own dependencies), choosing
 * the capture from the state of lib.js, and exits with the code AVA exited with.
 */
import { cpSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { checkoutState, g, makeRepo, ROOT } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

function avaRepo(): string {
  const repo = makeRepo("ava-replay");
  for (const f of ["many-passing", "many-2-failing", "many-18-failing"])
    cpSync(path.join(ROOT, "fixtures/outputs/ava", `${f}.txt`), path.join(repo, "replay", `${f}.txt`));
  g(repo, "add", "-A");
  g(repo, "commit", "-q", "-m", "captured AVA outputs");
  return repo;
}
const bugs = (n: number) =>
  filesCandidate("lib.js", `// How many of double(0..19) come out wrong; a candidate "fixes" the code by changing it.\nexport const BUG_COUNT = ${n};\n`);

describe("AVA in an xo && ava && tsd chain", () => {
  it("scores 2 → 18 failures lower, lists the newly fixed tests, and leaves the checkout alone", async () => {
    const repo = avaRepo();
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node bin/xo.js && node bin/ava.js && node bin/tsd.js", preflight: true });
    expect(s.preflight.tests).toMatchObject({ passed: 18, failed: 2, total: 20, format: "ava" });
    expect(s.preflight.score).toBeCloseTo(0.9, 6);
    // The chain runs one part after another: the start says how to give the checkers apart.
    const advice = s.notes.find((n: string) => /runs xo, ava, tsd one after another/.test(n)) as string;
    const split = JSON.parse(/as (\{.*\}), they run/.exec(advice)![1]!);
    expect(split).toEqual({ testCmd: "node bin/ava.js", lintCmd: "node bin/xo.js", checks: [{ name: "tsd", cmd: "node bin/tsd.js", weight: 0.1 }] });
    // ...arguments a client can send as printed.
    const apart = await srv.call<Any>("trm_start_session", { repoPath: repo, ...split, preflight: true });
    expect(apart.preflight.tests).toMatchObject({ passed: 18, failed: 2, total: 20 });
    expect(apart.notes ?? []).not.toContainEqual(expect.stringMatching(/one after another/));
    await srv.call("trm_end_session", { sessionId: apart.sessionId, discard: true });

    const worse = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: bugs(18), rationale: "wrong fix" });
    expect(worse.tests).toMatchObject({ passed: 2, failed: 18 });
    expect(worse.score).toBeLessThan(s.preflight.score);
    expect(worse.score).toBeCloseTo(0.1, 6);
    expect(Object.keys(worse.commandMs)).toEqual(["test"]);
    expect(worse.commandsMs).toBeGreaterThanOrEqual(worse.commandMs.test);
    expect(worse.feedback).toMatch(/new test failures \(16\):/);
    expect(worse.feedback).toMatch(/double\(5\): Difference \(- actual, \+ expected\): - 11 \+ 10 \(test\/double\.test\.js:5\) \[new\]/);
    expect(worse.feedback).toMatch(/still failing \(2\):/);

    const fixed = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: bugs(0), rationale: "right fix" });
    expect(fixed.tests).toMatchObject({ passed: 20, failed: 0, total: 20 });
    expect(fixed.score).toBe(1);
    // Seen passing by name (AVA's default reporter has a line per test), named after their runner in a chain.
    expect(fixed.feedback).toMatch(/newly fixed \(18\):\n {2}- ava\.js: double\(0\)\n {2}- ava\.js: double\(1\)\n/);
    expect(fixed.feedback).not.toMatch(/no longer reported/);
    expect(fixed.shouldHalt).toBe(true);
    expect(checkoutState(repo)).toEqual(before);
  });

  it("a passing suite whose counts cannot be read scores as passing, with the fix named at preflight and on the step", async () => {
    const repo = avaRepo();
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node bin/ava.js > /dev/null", preflight: true });
    expect(s.preflight.tests).toBeNull();
    expect(s.preflight.score).toBe(0);
    expect(s.preflight.notices.join("\n")).toMatch(/Test output could not be read.*exit code \(1: fail\).*AVA: run it as npx ava/s);
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: bugs(0), rationale: "right fix" });
    expect(r.score).toBe(1);
    expect(r.feedback).toMatch(/tests UNREADABLE \(exit 0: passing\)/);
    expect(r.feedback).toMatch(
      /note: Test output could not be read, so the test score follows the exit code \(0: pass\)\. To get counts and failing tests: AVA: run it as npx ava/,
    );
    expect(checkoutState(repo)).toEqual(before);
  });
});
