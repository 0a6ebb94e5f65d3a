/**
 * A score you can trust, with real runners whose default output names no test (issue 15): a candidate
 * that deletes the failing test, runs only one test, or changes tests before anything ran, does not
 * reach a pass. Every scenario checks the score, the wording, and that the checkout is untouched.
 */
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { filesCandidate, MEDIAN_RIGHT, MEDIAN_WRONG, statsWith } from "../helpers/fixtures.js";
import { checkoutState, g, makeRepo, ROOT, repoFromFiles } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

/** A repository from files, committed on main. */
const repoOf = (files: Record<string, string>): string => repoFromFiles(files, "trm-gaming-");

const success = (r: Any) => r.reasons.join(" ").includes("success");

const PY_TESTS =
  "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n";
const PY_UNITTESTS =
  "import unittest\nfrom calc import add, mul\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n\n    def test_mul(self):\n        self.assertEqual(mul(2, 3), 6)\n";
const CALC_PY = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b\n";

describe("counts-only runners: deleting the failing test does not pass", () => {
  for (const [runner, testCmd, file, src] of [
    ["pytest -q", "python3 -m pytest -q -p no:cacheprovider", "test_calc.py", PY_TESTS],
    ["unittest without -v", "python3 -m unittest", "test_calc.py", PY_UNITTESTS],
  ] as const) {
    it(`${runner}: 2 passed after 2 passed, 1 failed scores 2/3 and says a test went missing since step 1`, async () => {
      const repo = repoOf({ "calc.py": CALC_PY, [file]: src });
      const before = checkoutState(repo);
      const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd, preflight: true });
      expect(s.preflight.tests).toMatchObject({ passed: 2, failed: 1 });
      const pre = s.preflight.score;
      expect(pre).toBeCloseTo(2 / 3, 3);
      const without = src.replace(/\n\n\n?(    )?def test_mul[\s\S]*$/, "\n");
      expect(without).not.toMatch(/test_mul/);
      const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate(file, without) });
      // Before: 2/2 = 1.000 and "success: all tests pass".
      expect(r.score).toBeCloseTo(pre, 6);
      expect(r.score).toBeLessThan(1);
      expect(r.tests).toMatchObject({ passed: 2, failed: 1, total: 3 });
      expect(r.shouldHalt).toBe(false);
      expect(success(r)).toBe(false);
      expect(r.feedback).toMatch(/1 fewer test ran than the 3 at step 0, since step 1: it counts as failing/);
      expect(r.feedback).toMatch(/this step changed test files: test_calc\.py \(modified\)/);
      // The real fix, on the restored tests, is what passes.
      await srv.call("trm_undo", { sessionId: s.sessionId });
      const fixed = await srv.call<Any>("trm_submit_candidate", {
        sessionId: s.sessionId,
        candidate: filesCandidate(
          "calc.py",
          CALC_PY.replace("return a + b\n", "return a + b\n").replace(/def mul\(a, b\):\n {4}return a \+ b/, "def mul(a, b):\n    return a * b"),
        ),
      });
      expect(fixed.score).toBe(1);
      expect(success(fixed)).toBe(true);
      expect(checkoutState(repo)).toEqual(before);
    });
  }

  it("pytest -rA (the default command): the failing test swapped for a new passing one is still the failing test, missing", async () => {
    // Counts alone cannot see the swap (3 ran, 3 passed): -rA's short summary names the tests.
    const repo = repoOf({ "calc.py": CALC_PY, "test_calc.py": PY_TESTS });
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "python3 -m pytest -rA -p no:cacheprovider", preflight: true });
    expect(s.preflight.tests).toMatchObject({ passed: 2, failed: 1 });
    const swapped = PY_TESTS.replace(/def test_mul[\s\S]*$/, "def test_mul_is_callable():\n    assert callable(mul)\n");
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("test_calc.py", swapped) });
    // Before: 3 passed of 3 = 1.000 and "success: all tests pass".
    expect(r.score).toBeCloseTo(s.preflight.score, 6);
    expect(r.score).toBeLessThan(1);
    expect(success(r)).toBe(false);
    expect(r.feedback).toMatch(/test_calc\.py::test_mul\b/);
    expect(checkoutState(repo)).toEqual(before);
  });

  const CALC_TEST =
    'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Errorf("Add(2, 3) = %d", Add(2, 3))\n\t}\n}\n\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Errorf("Mul(2, 3) = %d", Mul(2, 3))\n\t}\n}\n';
  const goRepo = () =>
    repoOf({
      "go.mod": "module example.com/calc\n\ngo 1.19\n",
      "calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Mul(a, b int) int { return a + b }\n",
      "calc_test.go": CALC_TEST,
    });

  it("go test ./... (no -v): a failing test gone after its test file changed counts as failing; a code fix still passes", async () => {
    const repo = goRepo();
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "go test ./...", preflight: true });
    expect(s.preflight.tests).toMatchObject({ passed: null, failed: 1 });
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesCandidate("calc_test.go", CALC_TEST.replace(/\nfunc TestMul[\s\S]*$/, "")),
    });
    // Before: `ok example.com/calc` exits 0: 1.000 and "success".
    expect(r.score).toBe(0);
    expect(success(r)).toBe(false);
    expect(r.feedback).toMatch(
      /1 test that failed at an earlier step is no longer reported, and a step since changed its test file: example\.com\/calc\.TestMul \(reported at step 0; calc_test\.go changed at step 1\)/,
    );
    expect(r.feedback).toMatch(/go test -v or -json/);
    // The fix of the code leaves the test file alone: the package passing is its pass.
    await srv.call("trm_undo", { sessionId: s.sessionId });
    const fixed = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesCandidate("calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Mul(a, b int) int { return a * b }\n"),
    });
    expect(fixed.score).toBe(1);
    expect(success(fixed)).toBe(true);
    expect(fixed.feedback).toMatch(/no longer reported, not seen passing \(1\):\n {2}- example\.com\/calc\.TestMul/);
    expect(checkoutState(repo)).toEqual(before);
  });
});

const TEST_FILE = "test/stats.test.js";

describe("no preflight: a step that changes test files is judged against the baseline's tests", () => {
  it("deleting the failing test at step 1 runs the baseline first (step 0) and scores 0.75, not 1.0", async () => {
    const repo = makeRepo("js-stats");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
    const src = readFileSync(path.join(repo, TEST_FILE), "utf8");
    const without = src.replace(/test\("median of even length"[\s\S]*$/, "");
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate(TEST_FILE, without) });
    // Before: the first step was its own reference: 3/3 = 1.000 and "success: all tests pass".
    expect(r.score).toBe(0.75);
    expect(success(r)).toBe(false);
    expect(r.feedback).toMatch(
      /note: no preflight had run and this step changes test\/stats\.test\.js, so the baseline's commands ran first and were recorded as step 0 \(score 0\.750, tests 3\/4 passed, 1 failed\)/,
    );
    expect(r.feedback).toMatch(/median of even length \(went missing at step 1\)/);
    const st = await srv.call<Any>("trm_get_state", { sessionId: s.sessionId });
    expect(st.history.map((h: Any) => [h.step, h.score])).toEqual([
      [0, 0.75],
      [1, 0.75],
    ]);
    // Recorded as a preflight is: a new server reads step 0 from git.
    const other = await startServer({ stateDir: srv.stateDir });
    try {
      expect((await other.call<Any>("trm_get_state", { sessionId: s.sessionId })).history[0]).toMatchObject({ step: 0, score: 0.75 });
    } finally {
      await other.close();
    }
    expect(checkoutState(repo)).toEqual(before);
  });

  it("a first step that narrows the test script (package.json) is judged against the baseline's tests too", async () => {
    // Found by a fresh-eyes attack: no test file changed, so no baseline ran, and the step was its own
    // reference (3/3, 1.000, success).
    const repo = makeRepo("js-stats");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "npm test" });
    const pkg = JSON.parse(readFileSync(path.join(repo, "package.json"), "utf8"));
    pkg.scripts.test = "node --test --test-name-pattern='sum|mean|odd'";
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesCandidate("package.json", `${JSON.stringify(pkg, null, 2)}\n`),
    });
    expect(r.feedback).toMatch(/note: no preflight had run and this step changes package\.json, so the baseline's commands ran first/);
    expect(r.score).toBeLessThan(1);
    expect(success(r)).toBe(false);
    expect(checkoutState(repo)).toEqual(before);
  });

  it("a root test.js (AVA's default layout: sindresorhus/slugify) is a test file: editing it is said, and the baseline runs first", async () => {
    // Before, the step that deleted the failing assertion was no test change: not said, no baseline, 1.000.
    const test = (extra: string) =>
      `import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { add } from "./index.js";\n\ntest("adds", () => {\n  assert.equal(add(1, 1), 2);${extra}\n});\n`;
    const repo = repoOf({
      "package.json": '{ "type": "module" }\n',
      "index.js": "export const add = (a, b) => (a === 2 ? 0 : a + b);\n",
      "test.js": test("\n  assert.equal(add(2, 2), 4);"),
    });
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test test.js" });
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("test.js", test("")) });
    expect(r.feedback).toMatch(/this step changed test files: test\.js \(modified\)/);
    expect(r.feedback).toMatch(/the baseline's commands ran first/);
    const state = await srv.call<Any>("trm_get_state", { sessionId: s.sessionId });
    expect(state.history.map((h: Any) => h.step)).toEqual([0, 1]);
    expect(state.history[1].testFiles).toEqual(["test.js (modified)"]);
    expect(checkoutState(repo)).toEqual(before);
  });

  it("a first step that changes no test file runs no extra preflight while its tests fail; one whose tests all pass runs the baseline's once (h29)", async () => {
    const repo = makeRepo("js-stats");
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
    const wrong = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_WRONG)),
    });
    expect(success(wrong)).toBe(false);
    expect(wrong.feedback).not.toMatch(/no preflight had run/);
    expect((await srv.call<Any>("trm_get_state", { sessionId: s.sessionId })).history.map((h: Any) => h.step)).toEqual([1]);
    const fresh = makeRepo("js-stats");
    const t = await srv.call<Any>("trm_start_session", { repoPath: fresh, testCmd: "node --test" });
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId: t.sessionId,
      candidate: filesCandidate("src/stats.js", statsWith(fresh, MEDIAN_RIGHT)),
    });
    expect(r.score).toBe(1);
    expect(success(r)).toBe(true);
    expect(r.feedback).toMatch(/no preflight had run and this step's tests all pass, so the baseline's commands ran and were recorded as step 0/);
    expect((await srv.call<Any>("trm_get_state", { sessionId: t.sessionId })).history.map((h: Any) => h.step)).toEqual([0, 1]);
  });
});

describe(".only", () => {
  const VITEST_TESTS = `import { test, expect } from "vitest";
import { sum, median } from "../src/stats.js";
test("sum adds numbers", () => { expect(sum([1, 2, 3])).toBe(6); });
test("sum of nothing", () => { expect(sum([])).toBe(0); });
test("median of odd length", () => { expect(median([3, 1, 2])).toBe(2); });
test("median of even length", () => { expect(median([4, 1, 3, 2])).toBe(2.5); });
`;

  it("a candidate that makes one passing test .only (Vitest, code-trm's own, offline): the others count as failing and are named", async () => {
    const repo = repoOf({
      ".gitignore": "node_modules\n",
      "package.json": JSON.stringify({ name: "vt", private: true, type: "module" }),
      "src/stats.js":
        "export const sum = (xs) => xs.reduce((a, b) => a + b, 0);\nexport const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };\n",
      [TEST_FILE]: VITEST_TESTS,
    });
    symlinkSync(path.join(ROOT, "node_modules"), path.join(repo, "node_modules"));
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", {
      repoPath: repo,
      testCmd: "node_modules/.bin/vitest run --reporter=json --allowOnly",
      linkPaths: ["node_modules"],
      preflight: true,
    });
    expect(s.preflight.tests).toMatchObject({ passed: 3, failed: 1, skipped: 0 });
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesCandidate(TEST_FILE, VITEST_TESTS.replace('test("sum adds numbers"', 'test.only("sum adds numbers"')),
    });
    // Without identity: 1 passed, 3 skipped = 1.000 and "success".
    expect(r.tests).toMatchObject({ passed: 1, failed: 3, skipped: 0, total: 4 });
    expect(r.score).toBe(0.25);
    expect(success(r)).toBe(false);
    expect(r.feedback).toMatch(/3 tests that ran at an earlier step are now skipped or missing and count as failing: /);
    for (const name of ["sum of nothing", "median of odd length", "median of even length"])
      expect(r.feedback).toMatch(new RegExp(`${name} \\(skipped at step 1\\)`));
    expect(checkoutState(repo)).toEqual(before);
  });
});

describe("what the feedback tells the model to do works as printed", () => {
  it("the preflight's trm_read_log hint carries the session id, and trm_suggest_fix names failing tests' locations", async () => {
    const repo = makeRepo("js-stats");
    writeFileSync(path.join(repo, "tap.sh"), "printf 'TAP version 13\\nok 1 - fine\\n1..1\\n'\nexit 1\n");
    g(repo, "add", "tap.sh");
    g(repo, "commit", "-qm", "a runner that fails outside its tests");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "sh tap.sh", preflight: true });
    const hint = /trm_read_log (\{[^}]*\})/.exec(s.feedback)?.[1];
    expect(hint).toBe(JSON.stringify({ sessionId: s.sessionId, at: "0", command: "test" }));
    const log = await srv.call<Any>("trm_read_log", JSON.parse(hint!));
    expect(log.content).toMatch(/ok 1 - fine/);

    const s2 = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", preflight: true });
    const fix = await srv.call<Any>("trm_suggest_fix", { sessionId: s2.sessionId });
    expect(fix.notes.join("\n")).not.toMatch(/no diagnostics with a location/);
    expect(fix.notes.join("\n")).toMatch(/1 failing test points at code: median of even length at test\/stats\.test\.js:1[78]/);
    expect(checkoutState(repo)).toEqual(before);
  });
});
