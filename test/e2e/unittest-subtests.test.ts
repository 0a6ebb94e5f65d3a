import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { commandsRan, filesCandidate } from "../helpers/fixtures.js";
import { needs } from "../helpers/real-runners.js";
import { checkoutState, repoFromFiles, tmpDir } from "../helpers/repo.js";

/**
 * unittest's subTest through the real server (hukkin/tomli: `Ran 13 tests`, `FAILED (failures=15)`, all 15
 * subtests of test_valid, scored 0 of 13, and failing first gave the subtests' titles back to unittest,
 * which imported them as modules): the failed subtests are one failed test of those that ran, failing first
 * selects that test by its id, and the right fix scores 1 and halts.
 */

type Any = Record<string, any>;

const calcPy = (body: string) => `def add(a, b):\n    return a + b\n\n\ndef clamp(x, lo, hi):\n    return ${body}\n`;
const BODIES = { bug: "max(lo, x)", wrong: "min(hi, x)", right: "min(hi, max(lo, x))" };
// Four tests; the bug fails three subtests of test_clamp_cases (x=11, x=100 and the one named by a message).
const TESTS = `import unittest

from calc import add, clamp


class CalcTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)

    def test_zero(self):
        self.assertEqual(add(0, 0), 0)

    def test_clamp_inside(self):
        self.assertEqual(clamp(5, 0, 10), 5)

    def test_clamp_cases(self):
        for x, want in [(-1, 0), (5, 5), (11, 10), (100, 10)]:
            with self.subTest(x=x):
                self.assertEqual(clamp(x, 0, 10), want)
        with self.subTest("far above"):
            self.assertEqual(clamp(1000, 0, 10), 10)
`;
const CASES_TEST = "test_calc.CalcTest.test_clamp_cases";

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ env: { TMPDIR: tmpDir("trm-subtests-tmp-") } });
});
afterAll(async () => {
  await srv?.close();
});

const need = needs(["python3"]);
describe.concurrent("unittest subTest failures, run for real", () => {
  for (const cmd of ["python3 -m unittest -v", "python3 -m unittest"]) {
    it.skipIf(need.skip)(
      `\`${cmd}\`: 3 failed subtests of one test are 1 failed test of 4, failing first runs that test by its id, the right fix scores 1${need.why}`,
      async () => {
        const repo = repoFromFiles({ ".gitignore": "__pycache__\n", "calc.py": calcPy(BODIES.bug), "test_calc.py": TESTS }, "trm-subtests-");
        const before = checkoutState(repo);
        const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: cmd, preflight: true });
        const id = s.sessionId as string;
        const log = async (at: string) => (await srv.call<Any>("trm_read_log", { sessionId: id, at, command: "test", limit: 100_000 })).content as string;
        const baseLog = await log("baseline");
        // unittest's own summary counts the subtests; code-trm counts the tests.
        expect(baseLog).toMatch(/Ran 4 tests in [\d.]+s\n\nFAILED \(failures=3\)/);
        expect(s.preflight.tests, baseLog).toMatchObject({ passed: 3, failed: 1, total: 4 });
        expect(s.preflight.score).toBeCloseTo(3 / 4, 6);
        expect(s.preflight.tests.failures.map((f: Any) => f.name).sort()).toEqual(
          [`${CASES_TEST} (x=100)`, `${CASES_TEST} (x=11)`, `${CASES_TEST} [far above]`].sort(),
        );

        // The wrong fix: the selection is the test's id, once, and unittest runs it (no import error).
        const wrong = await srv.call<Any>("trm_submit_candidate", {
          sessionId: id,
          candidate: filesCandidate("calc.py", calcPy(BODIES.wrong)),
          rationale: "clamp to hi",
        });
        const wrongLog = await log("1");
        const state = await srv.call<Any>("trm_get_state", { sessionId: id });
        expect(state.last.commands.map((x: Any) => x.cmd)).toEqual([`${cmd} '${CASES_TEST}'`]);
        expect(wrongLog).toMatch(/Ran 1 test in [\d.]+s\n\nFAILED \(failures=1\)/);
        expect(wrongLog).not.toMatch(/ImportError|ModuleNotFoundError|_FailedTest/);
        expect(wrong.partial, `${wrong.feedback}\n${wrongLog}`).toBe(true);
        expect(wrong.ran).toBe("1 of 4");
        expect(wrong.tests).toMatchObject({ passed: 3, failed: 1, total: 4 });
        expect(wrong.tests.failures.map((f: Any) => f.name)).toEqual([`${CASES_TEST} (x=-1)`]);
        expect(wrong.score).toBeCloseTo(3 / 4, 6);
        expect(wrong.shouldHalt).toBe(false);

        const right = await srv.call<Any>("trm_submit_candidate", {
          sessionId: id,
          candidate: filesCandidate("calc.py", calcPy(BODIES.right)),
          rationale: "both bounds",
        });
        expect(commandsRan(right)).toEqual(expect.arrayContaining(["failingFirst", "test"]));
        expect(right.feedback).toMatch(/Failing first: the 1 tests? that failed at step 0 pass(es)? now, so the whole suite ran/);
        expect(right.tests).toMatchObject({ passed: 4, failed: 0, total: 4, failures: [] });
        expect(right.score).toBe(1);
        expect(right.shouldHalt).toBe(true);
        expect(right.reasons[0]).toMatch(/^success: all tests pass/);
        expect(checkoutState(repo)).toEqual(before);
        await srv.call("trm_end_session", { sessionId: id, discard: true });
      },
      300_000,
    );
  }
});
