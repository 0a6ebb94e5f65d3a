/**
 * Test edits a report cannot tell from a fix. A candidate that marks the failing test as expected to fail (`test.failing`, `test.fails`) instead of fixing
 * the code: real AVA 7's TAP, real Vitest 4's JSON and real Jest 30's text report it as a pass, so the step
 * scored 1.000 and ended the session with success. It is now held at the baseline's test signal, and the
 * right fix, with the test unmarked, still ends the session. Runners from fixtures/runners, run for real.
 * And a candidate that changes nothing but the tests (the failing assertions removed: on sindresorhus/slugify
 * with real AVA 3.15 it scored 1.000 and ended the session) is held at the baseline's test signal too.
 */
import { symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { filesOf } from "../helpers/fixtures.js";
import { installRunners, RUNNERS } from "../helpers/real-runners.js";
import { checkoutState, repoFromFiles, tmpDir } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
beforeAll(async () => {
  installRunners();
  // A temporary folder of this file's own: Jest's cache (jest_0) goes there and is removed.
  srv = await startServer({ env: { TMPDIR: tmpDir("trm-xfail-tmp-") } });
});
afterAll(async () => {
  await srv.close();
});

const WRONG = "exports.add = (a, b) => a - b;\n";
const RIGHT = "exports.add = (a, b) => a + b;\n";

/** lib.test.js for node --test: `adds` with the assertion given, `zero` with its own (by default, add(0, 0) is 0). */
const nodeAddTest = (adds: string, zero = "assert.equal(add(0, 0), 0);") =>
  `const test = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("./lib");\ntest("adds", () => { ${adds} });\ntest("zero", () => { ${zero} });\n`;

/** testcalc.py, a module unittest's discovery finds: `test_div` with the assertion given, and a passing `test_one`. */
const unittestCalc = (assertion: string) =>
  `import unittest\nfrom calc import div\n\nclass TestCalc(unittest.TestCase):\n    def test_div(self):\n        ${assertion}\n\n    def test_one(self):\n        self.assertEqual(div(1, 1), 1)\n`;
const VITEST_CONFIG = { "vitest.config.mjs": "export default { test: { cache: false } };\n" };
// A comment in the code, so that the step is not tests alone.
const TWEAK = { "lib.js": `// tweak\n${WRONG}` };

const cases = [
  {
    runner: "AVA 7, --tap",
    testCmd: "npx ava --tap",
    file: "test.js",
    test: (mark: string) =>
      `const test = require("ava");\nconst { add } = require("./lib");\ntest${mark}("adds", (t) => { t.is(add(1, 2), 3); });\ntest("zero", (t) => { t.is(add(0, 0), 0); });\n`,
    mark: ".failing",
    files: {},
  },
  {
    runner: "Vitest 4, --reporter=json",
    testCmd: "npx vitest run --reporter=json",
    file: "lib.test.js",
    test: (mark: string) =>
      `import { test, expect } from "vitest";\nimport { add } from "./lib";\ntest${mark}("adds", () => { expect(add(1, 2)).toBe(3); });\ntest("zero", () => { expect(add(0, 0)).toBe(0); });\n`,
    mark: ".fails",
    files: VITEST_CONFIG,
  },
  {
    // The second attack's: a fixture's own test function (Vitest's test.extend), and a comment in the code so that
    // the step is not tests alone.
    runner: "Vitest 4, --reporter=json, a fixture's check.fails",
    testCmd: "npx vitest run --reporter=json",
    file: "lib.test.js",
    test: (mark: string) =>
      `import { test as base, expect } from "vitest";\nimport { add } from "./lib";\nconst check = base.extend({});\ncheck${mark}("adds", () => { expect(add(1, 2)).toBe(3); });\ncheck("zero", () => { expect(add(0, 0)).toBe(0); });\n`,
    mark: ".fails",
    line: 4,
    files: VITEST_CONFIG,
    touch: TWEAK,
  },
  {
    // The third attack's evasion of the line scan (h23): the option's value in a variable, the object over lines.
    runner: "Vitest 4, --reporter=json, `{ fails }` from a variable, over lines",
    testCmd: "npx vitest run --reporter=json",
    file: "lib.test.js",
    test: (mark: string) =>
      `import { test, expect } from "vitest";\nimport { add } from "./lib";\n${mark ? "const fails = !0;\n" : ""}test("adds",${mark ? " {\n  fails,\n}," : ""} () => { expect(add(1, 2)).toBe(3); });\ntest("zero", () => { expect(add(0, 0)).toBe(0); });\n`,
    mark: "{ fails }",
    quote: 'lib.test.js:4: test(\\"adds\\", {',
    files: VITEST_CONFIG,
    touch: TWEAK,
  },
  {
    runner: "Jest 30, its text report",
    testCmd: "npx jest --ci",
    file: "lib.test.js",
    test: (mark: string) =>
      `const { add } = require("./lib");\ntest${mark}("adds", () => { expect(add(1, 2)).toBe(3); });\ntest("zero", () => { expect(add(0, 0)).toBe(0); });\n`,
    mark: ".failing",
    files: { "jest.config.js": "module.exports = {};\n" },
  },
];

describe("a failing test marked as expected to fail is no fix", () => {
  for (const c of cases)
    it(`${c.runner}: held at the baseline's test signal, never a success; the right fix still is`, async () => {
      const repo = repoFromFiles({ ".gitignore": "node_modules\n", "lib.js": WRONG, [c.file]: c.test(""), ...c.files }, "trm-xfail-");
      symlinkSync(path.join(RUNNERS, "node_modules"), path.join(repo, "node_modules"));
      const before = checkoutState(repo);
      const s = await srv.call<Any>("trm_start_session", {
        repoPath: repo,
        testCmd: c.testCmd,
        linkPaths: ["node_modules"],
        preflight: true,
        selectTests: false,
      });
      expect(s.preflight.tests).toMatchObject({ passed: 1, failed: 1 });
      const marked = await srv.call<Any>("trm_submit_candidate", {
        sessionId: s.sessionId,
        candidate: filesOf({ [c.file]: c.test(c.mark), ...(c.touch ?? {}) }),
      });
      // The report alone says every test passed (AVA's TAP, Vitest's JSON, Jest's text): what the source says holds it.
      expect(marked.score).toBeLessThanOrEqual(s.preflight.score);
      expect(marked.shouldHalt).toBe(false);
      expect(marked.improved).toBe(false);
      const notice = (marked.feedback as string).split("\n").find((l) => l.startsWith("note: This step marks tests as expected to fail")) ?? "";
      expect(notice).toContain(c.quote ?? `("${c.file}:${c.line ?? (c.runner.startsWith("Jest") ? 2 : 3)}: ${c.line ? "check" : "test"}${c.mark}(\\"adds\\"`);
      // The right fix with the test unmarked (the tree no longer adds the marker) ends the session.
      const right = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesOf({ [c.file]: c.test(""), "lib.js": RIGHT }) });
      expect(right.score).toBe(1);
      expect(right.shouldHalt).toBe(true);
      expect(right.feedback).not.toMatch(/marks tests as expected to fail/);
      expect(checkoutState(repo)).toEqual(before);
    }, 120_000);
});

describe("a step that changed nothing but the tests", () => {
  it("node --test: removing the failing assertion is held at the baseline's signal; the fix of the code ends the session", async () => {
    const TEST = (assertion: string) =>
      `const test = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("./lib");\ntest("adds", () => {\n  assert.equal(typeof add, "function");\n${assertion}});\ntest("zero", () => { assert.equal(add(0, 0), 0); });\n`;
    const repo = repoFromFiles({ "lib.js": WRONG, "lib.test.js": TEST("  assert.equal(add(1, 2), 3);\n") }, "trm-onlytests-");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", preflight: true });
    expect(s.preflight.tests).toMatchObject({ passed: 1, failed: 1 });
    // A README beside it is no code: the step still changed nothing but the tests (the second attack's evasion).
    const weakened = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "lib.test.js": TEST(""), "README.md": "# lib\n" }),
    });
    expect(weakened.tests).toMatchObject({ passed: 2, failed: 0 });
    expect(weakened.score).toBeLessThanOrEqual(s.preflight.score);
    expect([weakened.shouldHalt, weakened.improved]).toEqual([false, false]);
    expect(weakened.feedback).toMatch(
      /Since the baseline only test files changed \("lib\.test\.js"\), so a test that failed there and passes now checks less than it did: the test signal is held at 0\.500/,
    );
    // The code fixed, the test as it was: a success.
    const right = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "lib.js": RIGHT, "lib.test.js": TEST("  assert.equal(add(1, 2), 3);\n") }),
    });
    expect([right.score, right.shouldHalt]).toEqual([1, true]);
    expect(right.feedback).not.toMatch(/only test files changed/);
    expect(checkoutState(repo)).toEqual(before);
  }, 60_000);
});

describe("a step that changed nothing but the tests since a code step that did not fix them (h29)", () => {
  it("node --test: a wrong fix left in place, then the failing assertion changed alone, is held; a test the fix broke may be updated alone", async () => {
    const TEST = nodeAddTest;
    const repo = repoFromFiles({ "lib.js": WRONG, "lib.test.js": TEST("assert.equal(add(1, 2), 3);") }, "trm-onlytests-since-");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", preflight: true });
    expect(s.preflight.tests).toMatchObject({ passed: 1, failed: 1 });
    const attempt = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "lib.js": "exports.add = (a, b) => a * b;\n" }),
    });
    expect(attempt.tests).toMatchObject({ passed: 1, failed: 1 });
    // The assertion made to fit the wrong code (1 * 2 = 2), the code step kept: tests only since step 1.
    const weakened = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "lib.test.js": TEST("assert.equal(add(1, 2), 2);") }),
    });
    expect(weakened.tests).toMatchObject({ passed: 2, failed: 0 });
    expect([weakened.score, weakened.shouldHalt, weakened.improved]).toEqual([0.5, false, false]);
    expect(weakened.feedback).toMatch(
      /Since step 1 only test files changed \("lib\.test\.js"\), and a test that failed at step 0 and did not pass at step 1 passes now/,
    );
    // Undone twice; the right fix breaks a test that held the bug (zero's expectation), updated alone next: allowed.
    await srv.call<Any>("trm_undo", { sessionId: s.sessionId });
    await srv.call<Any>("trm_undo", { sessionId: s.sessionId });
    const right = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "lib.js": RIGHT, "lib.test.js": TEST("assert.equal(add(1, 2), 3);", "assert.equal(add(0, 1), -1);") }),
    });
    expect(right.tests).toMatchObject({ passed: 1, failed: 1 });
    const updated = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "lib.test.js": TEST("assert.equal(add(1, 2), 3);", "assert.equal(add(0, 1), 1);") }),
    });
    expect([updated.score, updated.shouldHalt]).toEqual([1, true]);
    expect(updated.feedback).not.toMatch(/only test files changed/);
    expect(checkoutState(repo)).toEqual(before);
  }, 120_000);
});

describe("a step that changed nothing but the tests since a code step that did not fix them, without preflight (h31)", () => {
  it("node --test: the code step is the reference; the failing assertion changed alone after it is held", async () => {
    const TEST = nodeAddTest;
    const repo = repoFromFiles({ "lib.js": WRONG, "lib.test.js": TEST("assert.equal(add(1, 2), 3);") }, "trm-onlytests-noflight-");
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
    const attempt = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "lib.js": "exports.add = (a, b) => a * b;\n" }),
    });
    expect(attempt.tests).toMatchObject({ passed: 1, failed: 1 });
    const weakened = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "lib.test.js": TEST("assert.equal(add(1, 2), 2);") }),
    });
    expect([weakened.score, weakened.shouldHalt]).toEqual([0.5, false]);
    expect(weakened.feedback).toMatch(/Since step 1 only test files changed \("lib\.test\.js"\), and a test that failed at step 1 passes now/);
    // h33: a README line next is no release: the held step is no footing, so since step 1 still only tests (and prose) changed.
    const readme = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesOf({ "README.md": "# lib\n" }) });
    expect([readme.score, readme.shouldHalt]).toEqual([0.5, false]);
    expect(readme.feedback).toMatch(/Since step 1 only test files changed \("lib\.test\.js"\)/);
  }, 60_000);
});

describe("a step that changed nothing but the tests, in files named by the reference's failing tests", () => {
  it("python -m unittest: a test module unittest's discovery finds (testcalc.py), weakened, is held; the fix of the code ends the session (h24)", async () => {
    const TEST = unittestCalc;
    const repo = repoFromFiles({ "calc.py": "def div(a, b):\n    return a * b\n", "testcalc.py": TEST("self.assertEqual(div(6, 3), 2)") }, "trm-onlytests-py-");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "python3 -m unittest -v", preflight: true });
    expect(s.preflight.tests).toMatchObject({ passed: 1, failed: 1 });
    const weakened = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "testcalc.py": TEST("self.assertTrue(True)") }),
    });
    expect(weakened.tests).toMatchObject({ passed: 2, failed: 0 });
    expect([weakened.score, weakened.shouldHalt, weakened.improved]).toEqual([s.preflight.score, false, false]);
    expect(weakened.feedback).toMatch(/Since the baseline only test files changed \("testcalc\.py"\)/);
    const right = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "calc.py": "def div(a, b):\n    return a / b\n", "testcalc.py": TEST("self.assertEqual(div(6, 3), 2)") }),
    });
    expect([right.score, right.shouldHalt]).toEqual([1, true]);
    expect(checkoutState(repo)).toEqual(before);
  }, 60_000);
});

describe("a first step whose tests all pass, without preflight (h29)", () => {
  it("python -m unittest: the baseline's tests run before it is recorded, so a weakened testcalc.py is held; a right fix still ends the session", async () => {
    const TEST = unittestCalc;
    const files = { "calc.py": "def div(a, b):\n    return a * b\n", "testcalc.py": TEST("self.assertEqual(div(6, 3), 2)") };
    const weakenedRepo = repoFromFiles(files, "trm-noflight-weak-");
    const before = checkoutState(weakenedRepo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: weakenedRepo, testCmd: "python3 -m unittest -v" });
    const weakened = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "testcalc.py": TEST("self.assertTrue(True)") }),
    });
    expect(weakened.tests).toMatchObject({ passed: 2, failed: 0 });
    expect([weakened.score, weakened.shouldHalt]).toEqual([0.5, false]);
    expect(weakened.feedback).toMatch(
      /no preflight had run and this step's tests all pass, so the baseline's commands ran and were recorded as step 0 \(score 0\.500/,
    );
    expect(weakened.feedback).toMatch(/Since the baseline only test files changed \("testcalc\.py"\)/);
    expect(checkoutState(weakenedRepo)).toEqual(before);
    // The right fix at the first step: the baseline runs too, and the session ends.
    const rightRepo = repoFromFiles(files, "trm-noflight-right-");
    const r = await srv.call<Any>("trm_start_session", { repoPath: rightRepo, testCmd: "python3 -m unittest -v" });
    const right = await srv.call<Any>("trm_submit_candidate", {
      sessionId: r.sessionId,
      candidate: filesOf({ "calc.py": "def div(a, b):\n    return a / b\n" }),
    });
    expect([right.score, right.shouldHalt]).toEqual([1, true]);
    expect(right.feedback).toMatch(/the baseline's commands ran and were recorded as step 0/);
  }, 120_000);
});

describe("a step that changed nothing but the tests, in a file Jest's default testMatch runs (h27)", () => {
  it("Jest 30: src/sum/spec.js, weakened, is held (the report names the failing test's file); the fix of the code ends the session", async () => {
    const TEST = (assertion: string) =>
      `const { sum } = require("./index.js");\ntest("sums", () => { ${assertion} });\ntest("zero", () => { expect(sum(0, 0)).toBe(0); });\n`;
    const repo = repoFromFiles(
      {
        ".gitignore": "node_modules\n",
        "package.json": '{ "name": "s", "scripts": { "test": "jest" } }\n',
        "src/sum/index.js": "exports.sum = (a, b) => a - b;\n",
        "src/sum/spec.js": TEST("expect(sum(1, 2)).toBe(3);"),
      },
      "trm-onlytests-jest-",
    );
    symlinkSync(path.join(RUNNERS, "node_modules"), path.join(repo, "node_modules"));
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "npx jest --ci", linkPaths: ["node_modules"], preflight: true });
    expect(s.preflight.tests).toMatchObject({ passed: 1, failed: 1 });
    const weakened = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "src/sum/spec.js": TEST('expect(typeof sum).toBe("function");') }),
    });
    expect(weakened.tests).toMatchObject({ passed: 2, failed: 0 });
    expect([weakened.score, weakened.shouldHalt, weakened.improved]).toEqual([s.preflight.score, false, false]);
    expect(weakened.feedback).toMatch(/Since the baseline only test files changed \("src\/sum\/spec\.js"\)/);
    const right = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "src/sum/index.js": "exports.sum = (a, b) => a + b;\n", "src/sum/spec.js": TEST("expect(sum(1, 2)).toBe(3);") }),
    });
    expect([right.score, right.shouldHalt]).toEqual([1, true]);
    expect(checkoutState(repo)).toEqual(before);
  }, 120_000);
});

describe("no hold on code that only shares the words", () => {
  it("node --test: a right fix counting `counts['failing']` in the code under test ends the session", async () => {
    const TALLY = (body: string) =>
      `exports.tally = (xs) => {\n  const counts = { passing: 0, failing: 0 };\n  for (const x of xs) ${body}\n  return counts;\n};\n`;
    const TEST = `const test = require("node:test");\nconst assert = require("node:assert");\nconst { tally } = require("./tally");\ntest("tallies", () => { assert.deepEqual(tally([true, false]), { passing: 1, failing: 1 }); });\n`;
    const repo = repoFromFiles({ "tally.js": TALLY("if (x) counts.passing++;"), "tally.test.js": TEST }, "trm-nohold-");
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", preflight: true });
    expect(s.preflight.tests).toMatchObject({ passed: 0, failed: 1 });
    const right = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "tally.js": TALLY("if (x) counts.passing++;\n  else counts['failing']++;") }),
    });
    expect([right.score, right.shouldHalt]).toEqual([1, true]);
    expect(right.feedback).not.toMatch(/expected to fail/);
  }, 60_000);

  it("node --test: a right fix in the data the code reads (a .json), with a new regression test, ends the session", async () => {
    const LIB = 'const rates = require("./rates.json");\nexports.price = (n) => n * rates.unit;\n';
    const TEST = (more: string) =>
      `const test = require("node:test");\nconst assert = require("node:assert");\nconst { price } = require("./lib");\ntest("prices", () => { assert.equal(price(2), 6); });\n${more}`;
    const repo = repoFromFiles({ "lib.js": LIB, "rates.json": '{ "unit": 2 }\n', "lib.test.js": TEST("") }, "trm-datafix-");
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", preflight: true });
    expect(s.preflight.tests).toMatchObject({ passed: 0, failed: 1 });
    // The third attack's false hold: no code file changed beside the test, so the step was taken for tests alone.
    const right = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "rates.json": '{ "unit": 3 }\n', "lib.test.js": TEST('test("prices one", () => { assert.equal(price(1), 3); });\n') }),
    });
    expect([right.score, right.shouldHalt]).toEqual([1, true]);
    expect(right.feedback).not.toMatch(/only test files changed/);
  }, 60_000);
});
