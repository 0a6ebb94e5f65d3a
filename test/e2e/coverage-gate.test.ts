/**
 * A test command whose coverage gate fails after every test passed (real c8 `--check-coverage`, as node-tap's
 * default 100 % gate does on npm/node-semver): the exit code is no test, so no failing test is made up, but the
 * step does not pass. It scored 1.0, became best, and a later step that really passed could not take best from
 * it: the session's best commit was the one whose command failed.
 */
import { symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { filesOf } from "../helpers/fixtures.js";
import { installRunners, RUNNERS } from "../helpers/real-runners.js";
import { checkoutState, repoFromFiles } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
beforeAll(async () => {
  installRunners();
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const LIB = (body: string, extra = "") => `export function clamp(x, lo, hi) {\n  return ${body};\n}\n${extra}`;
const TEST = `import { test } from "node:test";
import assert from "node:assert/strict";
import { clamp } from "../src/clamp.js";

test("inside stays", () => assert.equal(clamp(5, 0, 10), 5));
test("above falls to hi", () => assert.equal(clamp(11, 0, 10), 10));
`;
// A branch no test runs: c8's 100 % line gate fails.
const UNCOVERED = 'export function debug(x) {\n  if (x > 1) {\n    return "big";\n  }\n  return "small";\n}\n';

describe("a coverage gate that fails after every test passed", () => {
  it("scores below a step that passes, so the step that passes becomes best", async () => {
    const repo = repoFromFiles(
      {
        ".gitignore": "node_modules\ncoverage\n",
        "package.json": '{ "type": "module" }\n',
        "src/clamp.js": LIB("Math.max(lo, x)"),
        "test/clamp.test.js": TEST,
      },
      "trm-covgate-",
    );
    symlinkSync(path.join(RUNNERS, "node_modules"), path.join(repo, "node_modules"));
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", {
      repoPath: repo,
      testCmd: "node_modules/.bin/c8 --check-coverage --lines 100 --reporter=text node --test",
      linkPaths: ["node_modules"],
      preflight: true,
      selectTests: false,
    });
    expect(s.preflight.tests).toMatchObject({ passed: 1, failed: 1 });
    const right = LIB("Math.min(hi, Math.max(lo, x))");
    const gated = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesOf({ "src/clamp.js": right + UNCOVERED }) });
    expect(gated.tests).toMatchObject({ passed: 2, failed: 0 });
    expect(gated.feedback).toMatch(/All 2 tests passed, but .* exited 1: its coverage check failed/);
    // Before: 1.000 and best.
    expect(gated.score).toBeLessThan(1);
    expect(gated.shouldHalt).toBe(false);
    const passing = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesOf({ "src/clamp.js": right }) });
    expect(passing.score).toBe(1);
    expect(passing.improved).toBe(true);
    expect(passing.shouldHalt).toBe(true);
    const end = await srv.call<Any>("trm_end_session", { sessionId: s.sessionId });
    expect(end.bestStep).toBe(2);
    expect(checkoutState(repo)).toEqual(before);
  }, 120_000);
});
