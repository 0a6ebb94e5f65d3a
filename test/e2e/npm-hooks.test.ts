import { symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, textOf } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { installRunners, RUNNERS } from "../helpers/real-runners.js";
import { checkoutState, repoFromFiles } from "../helpers/repo.js";

/**
 * npm runs `posttest` after `npm test` (npm/node-semver: `"posttest": "npm run lint"`): a failing hook
 * failed the test command after every test passed, so the right fix scored below 1 and never halted, and
 * nothing at start said why. Detection now runs the test script without its hooks and says what they ran;
 * a given `npm test` gets the same word at start. node --test needs no install.
 */

type Any = Record<string, any>;
const lib = (body: string) => `exports.clamp = (x, lo, hi) => ${body};\n`;
const suite = `const test = require("node:test");
const assert = require("node:assert");
const { clamp } = require("../lib.js");
test("inside stays", () => assert.strictEqual(clamp(5, 0, 10), 5));
test("below rises to lo", () => assert.strictEqual(clamp(-1, 0, 10), 0));
test("above falls to hi", () => assert.strictEqual(clamp(11, 0, 10), 10));
`;
// A checker (eslint as a package runs it: `node node_modules/eslint/bin/eslint.js`) that fails on this machine whatever
// the candidate does, as template-oss-check did. A project's own `node eslint.js` is no known checker: it runs what it likes.
const ESLINT = "node node_modules/eslint/bin/eslint.js";
const lintJs = `console.log("eslint.js: 1 problem (the package's metadata needs updating)");\nprocess.exit(1);\n`;

function hookedRepo(scripts: Record<string, string>, extra: Record<string, string> = {}): string {
  return repoFromFiles(
    {
      // The package is committed where a script runs it; the tests that link node_modules run the root eslint.js.
      ".gitignore": Object.values(scripts).some((v) => v.includes(ESLINT)) ? "" : "node_modules\n",
      ...(Object.values(scripts).some((v) => v.includes(ESLINT)) ? { "node_modules/eslint/bin/eslint.js": lintJs } : {}),
      ...extra,
      "package.json": JSON.stringify({ name: "calc", private: true, scripts }),
      "package-lock.json": '{ "lockfileVersion": 3 }\n',
      "lib.js": lib("Math.min(hi, x)"),
      "test/clamp.test.js": suite,
      "eslint.js": lintJs,
    },
    "trm-hooks-",
  );
}

let srv: TestServer;
beforeAll(async () => {
  installRunners();
  srv = await startServer();
}, 120_000);
afterAll(async () => {
  await srv?.close();
});

/** Starts (preflight) with `args`, submits the right fix, ends; returns the start and the step. */
async function rightFix(repo: string, args: Any): Promise<{ start: Any; text: string; step: Any }> {
  const before = checkoutState(repo);
  const raw = await srv.raw("trm_start_session", { repoPath: repo, preflight: true, ...args });
  expect(raw.isError, textOf(raw)).toBeFalsy();
  const start = raw.structuredContent as Any;
  const step = await srv.call<Any>("trm_submit_candidate", {
    sessionId: start.sessionId,
    candidate: filesCandidate("lib.js", lib("Math.max(lo, Math.min(hi, x))")),
    rationale: "clamp to lo as well",
  });
  await srv.call("trm_end_session", { sessionId: start.sessionId, discard: true });
  expect(checkoutState(repo)).toEqual(before);
  return { start, text: textOf(raw), step };
}

describe.concurrent("npm's pre and post hooks of the test script", () => {
  it("detected: a failing posttest no longer fails the tests; the start says what it ran and how to judge it", async () => {
    const repo = hookedRepo({ test: "node --test", posttest: ESLINT });
    const { start, step } = await rightFix(repo, {});
    expect(start.detected.commands).toEqual({ testCmd: "npm test --ignore-scripts" });
    expect(start.detected.why.testCmd).toMatch(/scripts\.test \("node --test"\) run by npm \(package-lock\.json\), without its hooks \(--ignore-scripts\)/);
    const notes = start.notes.join("\n");
    expect(notes).toContain(`npm runs scripts.posttest ("${ESLINT}") after scripts.test, and a failing hook fails "npm test"`);
    expect(notes).toContain(
      'To judge what posttest checks too, pass {"testCmd":"npm test --ignore-scripts","checks":[{"name":"posttest","cmd":"npm run posttest","weight":0.1}]}',
    );
    // Failing first still selects through npm with the flag.
    expect(notes).toMatch(/failing first: after a step with failing tests/);
    expect(start.preflight.tests).toMatchObject({ passed: 2, failed: 1 });
    expect(step.tests, step.feedback).toMatchObject({ passed: 3, failed: 0, total: 3 });
    expect(step.score).toBe(1);
    expect(step.shouldHalt, step.reasons.join("; ")).toBe(true);
  }, 180_000);

  it("detected: a lint pretest is left out (lintCmd judges it), a building pretest is kept and run first", async () => {
    const lintPre = hookedRepo({ test: "node --test", pretest: "npm run lint", lint: "eslint ." });
    const a = await rightFix(lintPre, {});
    expect(a.start.detected.commands).toEqual({ testCmd: "npm test --ignore-scripts", lintCmd: "npm run lint" });
    expect(a.start.notes.join("\n")).toContain('lintCmd "npm run lint" runs what pretest checks.');

    const buildPre = hookedRepo({ test: "node --test", pretest: "node -e \"require('fs').writeFileSync('built.txt','')\"", posttest: ESLINT });
    const b = await rightFix(buildPre, {});
    expect(b.start.detected.commands).toEqual({ testCmd: "npm run pretest && npm test --ignore-scripts" });
    expect(b.step.score).toBe(1);
    expect(b.step.shouldHalt).toBe(true);
  }, 180_000);

  it("given npm test: the start names the posttest and the command without hooks", async () => {
    const repo = hookedRepo({ test: "node --test", posttest: ESLINT });
    const { start, step } = await rightFix(repo, { testCmd: "npm test" });
    expect(start.notes.join("\n")).toContain(
      `testCmd "npm test": npm runs scripts.posttest ("${ESLINT}") after scripts.test, and a failing hook fails the test command however the tests went (after all of them passed, for a post hook). {"testCmd":"npm test --ignore-scripts"} runs the tests without the hooks`,
    );
    // As given, the hook still runs: every test passed, the command failed (one failure counted for its exit), no halt.
    expect(step.tests).toMatchObject({ passed: 3, failed: 1 });
    expect(step.tests.failures.map((f: Any) => f.name)).toEqual(["(test command exited 1)"]);
    expect(step.shouldHalt).toBe(false);
  }, 180_000);

  it("a command that exits 1 after every test passed is not called a coverage failure unless a figure is short", async () => {
    // c8's table at 100%, then the posttest fails: the exit is the hook's (npm/node-semver said "its coverage check failed").
    const full = hookedRepo({ test: "c8 --reporter=text node --test", posttest: "node eslint.js" });
    symlinkSync(path.join(RUNNERS, "node_modules"), path.join(full, "node_modules"));
    const a = await rightFix(full, { testCmd: "npm test", selectTests: false });
    const said = `${(a.step.notices ?? []).join("\n")}\n${a.step.feedback}`;
    expect(said).not.toContain("coverage check failed");
    expect(said).toMatch(
      /All 3 tests passed, but "npm test" exited 1 after them, with no coverage figure short: its output ends .*"eslint\.js: 1 problem \(the package's metadata needs updating\)"/,
    );

    // A figure short of c8's threshold: still its coverage check.
    const short = hookedRepo(
      { test: "c8 --check-coverage --functions 100 --reporter=text node --test" },
      { "extra.js": "exports.unused = () => 1;\n", "test/extra.test.js": 'require("../extra.js");\nrequire("node:test")("loads", () => {});\n' },
    );
    symlinkSync(path.join(RUNNERS, "node_modules"), path.join(short, "node_modules"));
    const b = await rightFix(short, { testCmd: "npm test --ignore-scripts", selectTests: false });
    expect(`${(b.step.notices ?? []).join("\n")}\n${b.step.feedback}`).toContain(
      'All 4 tests passed, but "npm test --ignore-scripts" exited 1: its coverage check failed',
    );
  }, 180_000);
});
