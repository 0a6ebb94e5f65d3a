/** Tests tracked by name across steps: a candidate cannot raise its score by skipping or deleting tests. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Evaluation } from "../../../src/evaluate/evaluate.js";
import { judgeEvaluation } from "../../../src/evaluate/judge.js";
import { parseTests } from "../../../src/evaluate/parsers/index.js";
import { adjustCounts, judgeTests, rawCounts } from "../../../src/evaluate/test-identity.js";
import { identityNotice } from "../../../src/evaluate/test-identity-words.js";
import type { TestCase, TestCounts } from "../../../src/evaluate/types.js";
import { ROOT } from "../../helpers/repo.js";

const W = { build: 0.3, test: 0.5, lint: 0.1, perf: 0.1 };
const OUTPUTS = path.join(ROOT, "fixtures", "outputs");

function counts(cases: [string, TestCase["status"]][] | null, n?: { passed: number; failed: number; skipped: number }): TestCounts {
  const c = cases?.map(([name, status]) => ({ name, status })) ?? [];
  const k = n ?? {
    passed: c.filter((x) => x.status === "passed").length,
    failed: c.filter((x) => x.status === "failed").length,
    skipped: c.filter((x) => x.status === "skipped").length,
  };
  return {
    ...k,
    total: k.passed + k.failed + k.skipped,
    failures: c.filter((x) => x.status === "failed").map((x) => ({ name: x.name, message: "boom" })),
    format: "tap",
    ...(cases ? { cases: c } : {}),
  };
}

function evaluation(tests: TestCounts | null, exit = tests && tests.failed > 0 ? 1 : 0): Evaluation {
  const score = tests ? tests.passed / Math.max(1, tests.passed + tests.failed) : 0;
  return {
    commands: { test: { cmd: "node --test", exitCode: exit, timedOut: false, durationMs: 1, output: "", truncated: false } },
    tests,
    components: { test: score },
    score,
    testsPass: !!tests && tests.failed === 0 && exit === 0,
    diagnostics: [],
    notices: [],
    commandsMs: 1,
  };
}

const BASE = counts([
  ["a", "passed"],
  ["b", "passed"],
  ["c", "failed"],
]);

describe("judgeTests", () => {
  it("names a test that went missing or was skipped, at the step it happened", () => {
    const s1 = counts([
      ["a", "passed"],
      ["b", "passed"],
      ["c", "failed"],
    ]);
    const s2 = counts([
      ["a", "passed"],
      ["b", "skipped"],
    ]);
    const id = judgeTests(s2, 2, [
      { step: 0, tests: BASE },
      { step: 1, tests: s1 },
    ])!;
    expect(id.lost).toEqual([
      { name: "b", how: "skipped", since: 2 },
      { name: "c", how: "missing", since: 2 },
    ]);
    // Still gone a step later: it went missing at step 2, not 3.
    const id3 = judgeTests(counts([["a", "passed"]]), 3, [
      { step: 0, tests: BASE },
      { step: 1, tests: s1 },
      { step: 2, tests: s2 },
    ])!;
    expect(id3.lost).toEqual([
      { name: "c", how: "missing", since: 2 },
      { name: "b", how: "missing", since: 3 },
    ]);
    expect(identityNotice(id3)).toMatch(/c \(went missing at step 2\)/);
  });

  it("does not count a test that was skipped at the baseline and still is (or is gone)", () => {
    const base = counts([
      ["a", "passed"],
      ["s", "skipped"],
    ]);
    expect(
      judgeTests(
        counts([
          ["a", "passed"],
          ["s", "skipped"],
        ]),
        1,
        [{ step: 0, tests: base }],
      ),
    ).toEqual({ lost: [], extraSkipped: 0, reference: 0 });
    expect(judgeTests(counts([["a", "passed"]]), 1, [{ step: 0, tests: base }])!.lost).toEqual([]);
  });

  it("invents nothing without a reference, for unreadable output, or from steps that named no tests", () => {
    expect(judgeTests(null, 1, [{ step: 0, tests: BASE }])).toBeNull();
    expect(judgeTests(counts([["a", "passed"]]), 1, [])).toEqual({ lost: [], extraSkipped: 0 });
    expect(judgeTests(counts([["a", "passed"]]), 1, [{ step: 0, tests: null }])).toEqual({ lost: [], extraSkipped: 0 });
    // Counts only now: more skips than ever before and fewer tests than the reference are both scored.
    const now = counts(null, { passed: 1, failed: 0, skipped: 2 });
    const id = judgeTests(now, 1, [{ step: 0, tests: counts(null, { passed: 3, failed: 1, skipped: 1 }) }])!;
    expect(id).toEqual({ lost: [], extraSkipped: 1, missing: 2, missingSince: 1, referenceRan: 4, reference: 0 });
    expect(identityNotice(id)).toMatch(/1 more test skipped .*; 2 fewer tests ran than the 4 at step 0, since step 1: they count as failing/);
    expect(adjustCounts(now, id)).toMatchObject({ passed: 1, failed: 3, skipped: 1, total: 5 });
    expect(rawCounts(adjustCounts(now, id), id)).toEqual(now);
  });

  it("adjusts the counts and can undo it exactly", () => {
    const now = counts([
      ["a", "passed"],
      ["b", "skipped"],
    ]);
    const id = judgeTests(now, 1, [{ step: 0, tests: BASE }]);
    const adj = adjustCounts(now, id);
    expect(adj).toMatchObject({ passed: 1, failed: 2, skipped: 0, total: 3 });
    expect(adj.failures.map((f) => [f.name, f.message])).toEqual([
      ["b", "[counted as failing] skipped at step 1"],
      ["c", "[counted as failing] went missing at step 1"],
    ]);
    expect(rawCounts(adj, id)).toEqual(now);
  });
});

const pad = (n: number, status: TestCase["status"] = "passed", prefix = "pad"): [string, TestCase["status"]][] =>
  Array.from({ length: n }, (_, i) => [`${prefix} ${i}`, status]);

describe("tests outside the reference (padding)", () => {
  it("leaves new passing and skipped tests out of the counts, keeps new failing ones, and undoes it exactly", () => {
    const now = counts([["a", "passed"], ["b", "passed"], ["c", "failed"], ...pad(97), ["new red", "failed"], ["new skip", "skipped"]]);
    const id = judgeTests(now, 1, [{ step: 0, tests: BASE }])!;
    expect(id).toMatchObject({ lost: [], reference: 0, added: { passed: 97, failed: 1, skipped: 1 } });
    expect(id.added!.names).toEqual(["pad 0", "pad 1", "pad 2", "pad 3", "pad 4"]);
    const adj = adjustCounts(now, id);
    expect(adj).toMatchObject({ passed: 2, failed: 2, skipped: 0, total: 4 });
    expect(rawCounts(adj, id)).toEqual(now);
    expect(identityNotice(id)).toBe(
      "99 new tests since step 0: 97 pass, 1 fails, 1 skipped; tests that did not run at step 0 count toward the score only while they fail (pad 0, pad 1, pad 2, pad 3, pad 4, …)",
    );
  });

  it("the reference stays the first point that ran tests: padding at step 1 does not become the yardstick of step 2", () => {
    const s1 = counts([["a", "passed"], ["b", "passed"], ["c", "failed"], ...pad(97)]);
    const id2 = judgeTests(s1, 2, [
      { step: 0, tests: BASE },
      { step: 1, tests: s1 },
    ])!;
    expect(adjustCounts(s1, id2)).toMatchObject({ passed: 2, failed: 1 });
    // Without preflight the first step is the reference; a baseline that ran no test is not one.
    const empty = counts([]);
    expect(judgeTests(s1, 1, [{ step: 0, tests: empty }])).toEqual({ lost: [], extraSkipped: 0 });
    const id3 = judgeTests(counts([...pad(3, "passed", "x"), ...pad(50)]), 3, [
      { step: 0, tests: empty },
      { step: 1, tests: counts(pad(3, "failed", "x")) },
      { step: 2, tests: counts(pad(3, "passed", "x")) },
    ])!;
    expect(id3).toMatchObject({ reference: 1, added: { passed: 50, failed: 0 } });
  });

  it("only reference tests count as failing when they go missing; a test skipped at the reference and now run counts only if it fails", () => {
    const base = counts([
      ["a", "passed"],
      ["c", "failed"],
      ["s", "skipped"],
    ]);
    const s1 = counts([
      ["a", "passed"],
      ["c", "failed"],
      ["s", "skipped"],
      ["mine", "passed"],
    ]);
    const id = judgeTests(
      counts([
        ["a", "passed"],
        ["s", "passed"],
      ]),
      2,
      [
        { step: 0, tests: base },
        { step: 1, tests: s1 },
      ],
    )!;
    expect(id.lost).toEqual([{ name: "c", how: "missing", since: 2 }]);
    expect(id.added).toMatchObject({ passed: 1, failed: 0, names: ["s"] });
    expect(
      adjustCounts(
        counts([
          ["a", "passed"],
          ["s", "passed"],
        ]),
        id,
      ),
    ).toMatchObject({ passed: 1, failed: 1 });
    const red = judgeTests(
      counts([
        ["a", "passed"],
        ["c", "passed"],
        ["s", "failed"],
      ]),
      1,
      [{ step: 0, tests: base }],
    )!;
    expect(
      adjustCounts(
        counts([
          ["a", "passed"],
          ["c", "passed"],
          ["s", "failed"],
        ]),
        red,
      ),
    ).toMatchObject({ passed: 2, failed: 1 });
  });

  it("counts only: passes beyond the reference's number of tests are not counted, and it says so", () => {
    const base = counts(null, { passed: 97, failed: 3, skipped: 0 });
    const now = counts(null, { passed: 997, failed: 3, skipped: 0 });
    const id = judgeTests(now, 1, [{ step: 0, tests: base }])!;
    expect(id).toEqual({ lost: [], extraSkipped: 0, capped: 900, referenceRan: 100, reference: 0 });
    expect(adjustCounts(now, id)).toMatchObject({ passed: 97, failed: 3, total: 100 });
    expect(rawCounts(adjustCounts(now, id), id)).toEqual(now);
    expect(identityNotice(id)).toMatch(/^900 passes beyond the 100 tests that ran at step 0 are not counted: the output names only the failing tests/);
    // Padding at step 1 is no reference at step 2; new failures still lower the score.
    const id2 = judgeTests(counts(null, { passed: 100, failed: 5, skipped: 0 }), 2, [
      { step: 0, tests: base },
      { step: 1, tests: now },
    ])!;
    expect(adjustCounts(counts(null, { passed: 100, failed: 5, skipped: 0 }), id2)).toMatchObject({ passed: 95, failed: 5 });
    // The real fix of the three is 100/100.
    expect(
      judgeTests(counts(null, { passed: 100, failed: 0, skipped: 0 }), 2, [
        { step: 0, tests: base },
        { step: 1, tests: now },
      ]),
    ).toEqual({ lost: [], extraSkipped: 0, reference: 0 });
  });
});

describe("judgeEvaluation", () => {
  it("scores a deleted failing test as failing: 2/3, not 1.0, and never 'all tests pass'", () => {
    const ev = judgeEvaluation(
      evaluation(
        counts([
          ["a", "passed"],
          ["b", "passed"],
        ]),
      ),
      1,
      [{ step: 0, evaluation: evaluation(BASE) }],
      W,
      [],
    );
    expect(ev.score).toBeCloseTo(2 / 3, 9);
    expect(ev.testsPass).toBe(false);
    expect(ev.notices[0]).toMatch(/^1 test that ran at an earlier step is now skipped or missing and counts as failing: c \(went missing at step 1\)/);
  });

  it("a skip at the baseline does not lower the score (205 passed, 1 skipped scores 1.0)", () => {
    const cases: [string, TestCase["status"]][] = Array.from({ length: 205 }, (_, i) => [`t${i}`, "passed"]);
    cases.push(["skipped one", "skipped"]);
    const base = evaluation(counts(cases));
    const ev = judgeEvaluation(evaluation(counts(cases)), 1, [{ step: 0, evaluation: base }], W, []);
    expect(ev.score).toBe(1);
    expect(ev.testsPass).toBe(true);
  });

  it("is idempotent and re-judges a reused evaluation against another history", () => {
    const now = evaluation(
      counts([
        ["a", "passed"],
        ["b", "passed"],
      ]),
    );
    const once = judgeEvaluation(now, 1, [{ step: 0, evaluation: evaluation(BASE) }], W, []);
    const twice = judgeEvaluation(once, 1, [{ step: 0, evaluation: evaluation(BASE) }], W, []);
    expect(twice).toEqual(once);
    // The same tree reached in a history where c never existed: nothing is lost.
    const other = judgeEvaluation(
      once,
      1,
      [
        {
          step: 0,
          evaluation: evaluation(
            counts([
              ["a", "passed"],
              ["b", "failed"],
            ]),
          ),
        },
      ],
      W,
      [],
    );
    expect(other.score).toBe(1);
    expect(other.testsPass).toBe(true);
    expect(other.notices).toEqual([]);
    expect(other.testIdentity).toBeUndefined();
  });

  it("97 trivial new tests keep the reference's score (0.667, not 0.990), also re-judged from the cache", () => {
    const padded = evaluation(counts([["a", "passed"], ["b", "passed"], ["c", "failed"], ...pad(97)]));
    expect(padded.score).toBeCloseTo(99 / 100, 9);
    const ev = judgeEvaluation(padded, 1, [{ step: 0, evaluation: evaluation(BASE) }], W, []);
    expect(ev.score).toBeCloseTo(2 / 3, 9);
    expect(ev.tests).toMatchObject({ passed: 2, failed: 1, total: 3 });
    expect(ev.notices[0]).toMatch(/^97 new tests since step 0: 97 pass;/);
    expect(judgeEvaluation(ev, 1, [{ step: 0, evaluation: evaluation(BASE) }], W, [])).toEqual(ev);
    // The same tree in a history whose reference already had the padding: it counts there.
    const other = judgeEvaluation(ev, 1, [{ step: 0, evaluation: evaluation(counts([["a", "passed"], ["b", "passed"], ["c", "failed"], ...pad(97)])) }], W, []);
    expect(other.score).toBeCloseTo(99 / 100, 9);
    expect(other.testIdentity).toBeUndefined();
  });

  it("does not call an output unreadable when only its skipped count is unknown (tape after a step that printed a skip)", () => {
    const tape = evaluation({
      ...counts([
        ["a", "passed"],
        ["b", "passed"],
        ["c", "passed"],
      ]),
      skipped: null,
      total: null,
    });
    const ev = judgeEvaluation(
      tape,
      1,
      [
        {
          step: 0,
          evaluation: evaluation(
            counts([
              ["a", "passed"],
              ["b", "passed"],
              ["c", "failed"],
              ["d", "skipped"],
            ]),
          ),
        },
      ],
      W,
      [],
    );
    expect(ev).toEqual(tape); // judged, and left as it was
    expect(ev.testsPass).toBe(true);
  });

  it("judges by name a run whose skipped count is unknown: the failing tape test deleted or test.skip-ed counts as failing, also re-judged", () => {
    const tape = (cases: [string, TestCase["status"]][]) => ({ ...counts(cases), skipped: null, total: null, format: "tape" });
    const base = evaluation(
      tape([
        ["a", "passed"],
        ["b", "passed"],
        ["c", "failed"],
      ]),
    );
    const gone = evaluation(
      tape([
        ["a", "passed"],
        ["b", "passed"],
      ]),
    );
    const ev = judgeEvaluation(gone, 1, [{ step: 0, evaluation: base }], W, []);
    expect(ev.tests).toMatchObject({ passed: 2, failed: 1, skipped: null, total: null });
    expect(ev.testsPass).toBe(false);
    expect(ev.components.test).toBeCloseTo(2 / 3, 6);
    expect(ev.notices.join("\n")).toMatch(/c.*went missing at step 1/);
    expect(judgeEvaluation(ev, 1, [{ step: 0, evaluation: base }], W, [])).toEqual(ev);
    // Against a history without the reference, the same evaluation is judged afresh.
    expect(judgeEvaluation(ev, 1, [], W, []).tests).toMatchObject({ passed: 2, failed: 0 });
  });

  it("does not believe a passing run printed in another runner's format than the reference's (go test -v read as cargo)", () => {
    const base = evaluation({
      ...counts([
        ["TestAdd", "passed"],
        ["TestMul", "failed"],
      ]),
      format: "go-test",
    });
    // A cargo summary line alone ("test result: ok. 2 passed; ..."): counts, no names.
    const fake = evaluation({ ...counts(null, { passed: 2, failed: 0, skipped: 0 }), format: "cargo" });
    const ev = judgeEvaluation(fake, 1, [{ step: 0, evaluation: base }], W, []);
    expect(ev.testsPass).toBe(false);
    expect(ev.components.test).toBe(0);
    expect(ev.notices[0]).toMatch(/^The test output changed format: step 0 printed go-test, this step cargo/);
    expect(judgeEvaluation(ev, 1, [{ step: 0, evaluation: base }], W, [])).toEqual(ev);
    // The same format passes as before; a failing run in another format is left to its own counts.
    expect(
      judgeEvaluation(
        evaluation({
          ...counts([
            ["TestAdd", "passed"],
            ["TestMul", "passed"],
          ]),
          format: "go-test",
        }),
        1,
        [{ step: 0, evaluation: base }],
        W,
        [],
      ).testsPass,
    ).toBe(true);
    expect(
      judgeEvaluation(evaluation({ ...counts([["x", "failed"]]), format: "pytest" }), 1, [{ step: 0, evaluation: base }], W, []).notices.join(),
    ).not.toMatch(/changed format/);
  });

  it("takes the report of a step after a reference that loaded no test, in whatever format (mocha --reporter json, h24)", () => {
    const crash = evaluation({ ...counts(null, { passed: 0, failed: 1, skipped: 0 }), format: "mocha", loadFailed: true });
    const fixed = evaluation({
      ...counts([
        ["join joins", "passed"],
        ["join keeps", "passed"],
      ]),
      format: "mocha-json",
    });
    const ev = judgeEvaluation(fixed, 1, [{ step: 0, evaluation: crash }], W, []);
    expect([ev.testsPass, ev.components.test]).toEqual([true, 1]);
    expect(ev.notices.join()).not.toMatch(/changed format/);
    // A reference that ran its tests still binds.
    const ran = evaluation({ ...counts([["join joins", "failed"]]), format: "mocha" });
    expect(judgeEvaluation(fixed, 1, [{ step: 0, evaluation: ran }], W, []).testsPass).toBe(false);
  });

  it("binds the format the command's reporter names after a reference that loaded no test (mocha --reporter json, h27)", () => {
    const crash = (cmd: string) => {
      const e = evaluation({ ...counts(null, { passed: 0, failed: 1, skipped: 0 }), format: "mocha", loadFailed: true });
      return { ...e, commands: { test: { ...e.commands.test!, cmd } } };
    };
    const judged = (cmd: string, format: string) => {
      const e = evaluation({
        ...counts([
          ["a adds", "passed"],
          ["a adds0", "passed"],
        ]),
        format,
      });
      return judgeEvaluation({ ...e, commands: { test: { ...e.commands.test!, cmd } } }, 1, [{ step: 0, evaluation: crash(cmd) }], W, []);
    };
    // The code under test printed a TAP report and exited 0: mocha's JSON reporter prints JSON.
    const forged = judged("npx mocha --reporter json", "tap");
    expect([forged.testsPass, forged.components.test]).toEqual([false, 0]);
    expect(forged.notices[0]).toMatch(/^The test output changed format: step 0 loaded no test, and the command's reporter prints mocha-json, this step tap/);
    for (const cmd of ["npx mocha --reporter=json", "mocha -R json test/", "mocha --reporter 'json'"]) expect(judged(cmd, "tap").testsPass).toBe(false);
    // Its own report, and commands whose words name no reporter (or two, or one read elsewhere) bind nothing.
    expect(judged("npx mocha --reporter json", "mocha-json").testsPass).toBe(true);
    expect(judged("npx mocha --reporter tap", "tap").testsPass).toBe(true);
    for (const cmd of [
      "npx mocha",
      "npm test",
      "mocha --reporter spec",
      "mocha --reporter json --reporter tap",
      "mocha --reporter-option output=x --reporter json",
    ])
      expect([cmd, judged(cmd, cmd.includes("reporter-option") ? "mocha-json" : "tap").testsPass]).toEqual([cmd, true]);
  });

  it("holds a failing run in another format at the reference's signal (a JSON report printed at exit, all but one test passing)", () => {
    const base = evaluation({
      ...counts([
        ["t.py::a", "passed"],
        ["t.py::b", "failed"],
        ["t.py::c", "failed"],
        ["t.py::d", "passed"],
      ]),
      format: "pytest",
    });
    // The reference's four names, all passing, and a made-up failing one: 0.8 by its counts, above an honest 0.75.
    const forged = evaluation({
      ...counts([
        ["t.py::a", "passed"],
        ["t.py::b", "passed"],
        ["t.py::c", "passed"],
        ["t.py::d", "passed"],
        ["zz", "failed"],
      ]),
      format: "vitest-json",
    });
    const ev = judgeEvaluation(forged, 1, [{ step: 0, evaluation: base }], W, []);
    expect(ev.components.test).toBe(0.5);
    expect(ev.testsPass).toBe(false);
    expect(ev.notices[0]).toMatch(/^The test output changed format: step 0 printed pytest, this step vitest-json.*held at 0\.500, no higher than step 0's/);
    expect(judgeEvaluation(ev, 1, [{ step: 0, evaluation: base }], W, [])).toEqual(ev);
  });

  it("leaves a step whose tests did not run (cascade) alone", () => {
    const skipped = { ...evaluation(null), tests: null };
    skipped.commands.test!.skipped = "build failed";
    expect(judgeEvaluation(skipped, 1, [{ step: 0, evaluation: evaluation(BASE) }], W, [])).toBe(skipped);
  });
});

// python3 -m unittest -v (Python 3.11.7), paths rewritten to /work/proj.
const UNITTEST_V =
  'test_doc (tests.test_a.T.test_doc)\nDocstring here. ... ok\ntest_err (tests.test_a.T.test_err) ... ERROR\ntest_fail (tests.test_a.T.test_fail) ... FAIL\ntest_ok (tests.test_a.T.test_ok) ... ok\ntest_skip (tests.test_a.T.test_skip) ... skipped \'why\'\n\n======================================================================\nERROR: test_err (tests.test_a.T.test_err)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File "/work/proj/tests/test_a.py", line 10, in test_err\n    def test_err(self): raise ValueError("x")\n                        ^^^^^^^^^^^^^^^^^^^^^\nValueError: x\n\n======================================================================\nFAIL: test_fail (tests.test_a.T.test_fail)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File "/work/proj/tests/test_a.py", line 7, in test_fail\n    def test_fail(self): self.assertEqual(1, 2)\n                         ^^^^^^^^^^^^^^^^^^^^^^\nAssertionError: 1 != 2\n\n----------------------------------------------------------------------\nRan 5 tests in 0.001s\n\nFAILED (failures=1, errors=1, skipped=1)\n';

describe("unittest -v names every test", () => {
  it("reads the outcome lines, docstring lines included", () => {
    const r = parseTests({ stdout: "", stderr: UNITTEST_V, all: UNITTEST_V }, { cwd: "/work/proj" })!;
    expect(r.cases).toEqual([
      { name: "tests.test_a.T.test_doc", status: "passed" },
      { name: "tests.test_a.T.test_err", status: "failed" },
      { name: "tests.test_a.T.test_fail", status: "failed" },
      { name: "tests.test_a.T.test_ok", status: "passed" },
      { name: "tests.test_a.T.test_skip", status: "skipped" },
    ]);
    expect(r.failures.map((f) => f.name).sort()).toEqual(["tests.test_a.T.test_err", "tests.test_a.T.test_fail"]);
  });

  it("names none when the lines do not account for every test that ran", () => {
    // Printed by the test after its dots, and no outcome of its own after it.
    const cut = UNITTEST_V.replace("test_ok (tests.test_a.T.test_ok) ... ok\n", "test_ok (tests.test_a.T.test_ok) ... printed by the test\n");
    expect(parseTests({ stdout: "", stderr: cut, all: cut })!.cases).toBeUndefined();
    // Outcome lines a test printed itself: the failing test_fail says ok after its dots (unittest's FAIL then
    // stands alone), and test_ok prints FAIL (unittest's ok then stands alone). The counts add up, but test_fail's
    // FAIL block is not among the failed names: no names.
    const swap = UNITTEST_V.replace("test_fail (tests.test_a.T.test_fail) ... FAIL\n", "test_fail (tests.test_a.T.test_fail) ... x\nok\nFAIL\n").replace(
      "test_ok (tests.test_a.T.test_ok) ... ok\n",
      "test_ok (tests.test_a.T.test_ok) ... x\nFAIL\nok\n",
    );
    expect(parseTests({ stdout: "", stderr: swap, all: swap })!.cases).toBeUndefined();
  });

  it("takes an outcome on a line of its own after what the test wrote behind its dots (a logged warning)", () => {
    const logged = UNITTEST_V.replace("test_ok (tests.test_a.T.test_ok) ... ok\n", "test_ok (tests.test_a.T.test_ok) ... printed by the test\nok\n");
    expect(parseTests({ stdout: "", stderr: logged, all: logged })!.cases).toContainEqual({ name: "tests.test_a.T.test_ok", status: "passed" });
  });
});

describe("a test file that failed to load at the reference (h31)", () => {
  const ref = () => {
    const t = counts([["test/sum.test.js", "failed"]]);
    return evaluation({ ...t, cases: t.cases!.map((c) => ({ ...c, load: true as const })) });
  };
  const judged = (now: [string, TestCase["status"]][]) => judgeEvaluation(evaluation(counts(now)), 1, [{ step: 0, evaluation: ref() }], W, []);
  /** The reference with a test of another file beside it that passes (TAP names neither's file). */
  const withOther = () => {
    const t = counts([
      ["works", "passed"],
      ["test/sum.test.js", "failed"],
    ]);
    return evaluation({ ...t, cases: t.cases!.map((c) => (c.name.endsWith(".js") ? { ...c, load: true as const } : c)) });
  };
  type Named = [string, TestCase["status"]][];
  /** The reference: `tests` named in `format` (the parsers' label) and `loads`, files that failed to load (one failure each). */
  const refWithLoads = (format: string, tests: Named, loads: TestCase[]) => {
    const t = { ...counts(tests), format };
    return evaluation({ ...t, failed: t.failed + loads.length, total: t.total + loads.length, cases: [...t.cases!, ...loads] });
  };
  /** `cases` named in `format`, judged as step 1 against `ref` as step 0. */
  const judgedIn = (format: string, ref: Evaluation, cases: Named) =>
    judgeEvaluation(evaluation({ ...counts(cases), format }), 1, [{ step: 0, evaluation: ref }], W, []);

  it("is replaced by its tests once it loads: the right fix of the require scores 1", () => {
    const ev = judged([
      ["adds", "passed"],
      ["zero", "passed"],
    ]);
    expect([ev.testsPass, ev.components.test, ev.notices.join()]).toEqual([true, 1, ""]);
    const half = judged([
      ["adds", "passed"],
      ["zero", "failed"],
    ]);
    expect([half.testsPass, half.components.test]).toEqual([false, 0.5]);
  });

  it("is replaced when its tests share their names with another file's (TAP names tests without their file, h33)", () => {
    const refEv = withOther();
    const now = evaluation(
      counts([
        ["works", "passed"],
        ["works", "passed"],
      ]),
    );
    expect(judgeEvaluation(now, 1, [{ step: 0, evaluation: refEv }], W, []).testsPass).toBe(true);
  });

  it("is missing when no test takes its place (the file deleted), and failing while it still fails to load", () => {
    expect(judged([]).testsPass).toBe(false);
    expect(judged([["test/sum.test.js", "failed"]]).components.test).toBe(0);
    // A skipped test is no test that runs in its place.
    expect(judged([["adds", "skipped"]]).testsPass).toBe(false);
  });

  it("is marked by the parsers: node --test's point named by its file, unittest's _FailedTest", () => {
    const tap = parseTests(
      {
        stdout:
          "TAP version 13\n# Subtest: /W/test/sum.test.js\nnot ok 1 - /W/test/sum.test.js\n  ---\n  duration_ms: 40\n  location: '/W/test/sum.test.js:1:1'\n  failureType: 'testCodeFailure'\n  exitCode: 1\n  error: 'test failed'\n  code: 'ERR_TEST_FAILURE'\n  ...\n1..1\n# tests 1\n# suites 0\n# pass 0\n# fail 1\n# cancelled 0\n# skipped 0\n# todo 0\n",
        stderr: "",
      },
      { cwd: "/W" },
    );
    expect(tap?.cases).toEqual([{ name: "test/sum.test.js", status: "failed", load: true }]);
    const sep = "-".repeat(70);
    const ut = parseTests(
      {
        stdout: "",
        stderr: `test_calc (unittest.loader._FailedTest.test_calc) ... ERROR\n\n${"=".repeat(70)}\nERROR: test_calc (unittest.loader._FailedTest.test_calc)\n${sep}\nImportError: cannot import name 'sqroot'\n\n${sep}\nRan 1 test in 0.000s\n\nFAILED (errors=1)\n`,
      },
      { cwd: "/W" },
    );
    expect(ut?.cases).toEqual([{ name: "test_calc", status: "failed", load: true }]);
  });

  it("is marked for pytest's collection error: alone when collection was interrupted, beside the named tests when it went on", () => {
    const read = (id: string) => {
      const all = readFileSync(path.join(OUTPUTS, `pytest/${id}.txt`), "utf8");
      return parseTests({ stdout: all, stderr: "", all }, { cwd: "/WORKTREE" });
    };
    // `pytest -q tests broken`: "Interrupted: 1 error during collection", no test ran.
    expect(read("pytest9-collection-error")?.cases).toEqual([{ name: "broken/test_broken.py", status: "failed", load: "collect" }]);
    // -rA --continue-on-collection-errors: the tests of the modules that loaded are named, the module that did not is marked.
    const going = read("pytest9-rA-collection-error-continue")?.cases ?? [];
    expect(going.filter((c) => c.load)).toEqual([{ name: "broken/test_broken.py", status: "failed", load: "collect" }]);
    expect(going.filter((c) => c.status === "passed")).toHaveLength(5);
  });

  it("is marked in Jest's and Vitest's JSON reports (a test file that failed to run)", () => {
    for (const id of ["jest/json-failing", "vitest/json-failing"]) {
      const out = readFileSync(path.join(OUTPUTS, `${id}.${id.startsWith("jest") ? "stdout." : ""}txt`), "utf8");
      const r = parseTests({ stdout: out, stderr: "", all: out }, { cwd: "/WORKTREE" });
      expect(
        r?.cases?.filter((c) => c.load),
        id,
      ).toEqual([{ name: "test/broken.test.js", status: "failed", file: "test/broken.test.js", load: true }]);
    }
  });

  it("is marked by Vitest's verbose reporter and in JUnit reports: node's file point by its path, pytest's collection failure by its module (h36)", () => {
    const text = (id: string) => readFileSync(path.join(OUTPUTS, id), "utf8");
    const verbose = text("vitest/verbose-failing.txt");
    const v = parseTests({ stdout: "", stderr: verbose, all: verbose }, { cwd: "/WORKTREE" });
    expect(v?.cases?.filter((c) => c.load)).toEqual([{ name: "test/broken.test.js", status: "failed", file: "test/broken.test.js", load: true }]);
    const node = text("node-test/node20-junit-load-error.txt");
    const n = parseTests({ stdout: node, stderr: "", all: node }, { cwd: "/WORKTREE" });
    // The worktree's absolute path named the file before, and the name changed with every session.
    expect(n?.cases).toEqual([
      { name: "test.helper", status: "passed" },
      { name: "test/sum.test.js", status: "failed", load: true },
    ]);
    const py = text("pytest/pytest9-junit-collection-error.txt");
    const junitXml = text("pytest/pytest9-junit-collection-error.xml");
    const j = parseTests({ stdout: py, stderr: "", all: py }, { cwd: "/WORKTREE", junitXml });
    expect(j?.cases).toEqual([{ name: "broken.test_broken", status: "failed", load: "collect" }]);
  });

  it("pytest: not taken as loaded beside a new skip (a module-level skip in the code), nor when it was not found where it failed (h37)", () => {
    const judge = (load: true | "collect", cases: Named) =>
      judgedIn("pytest", refWithLoads("pytest", [], [{ name: "tests/test_a.py", status: "failed", load }]), cases);
    // `SKIPPED [1] calc/__init__.py:2` under -rA: the file no longer errors, and none of its tests runs.
    expect(judge("collect", [["skipped at calc/__init__.py:2 #1", "skipped"]]).testsPass).toBe(false);
    expect(judge("collect", [["tests/test_b.py::test_b", "passed"]]).testsPass).toBe(true);
    // Not found in the tree where it failed (`cd pkg && pytest`), the session marks it a plain load point: its own
    // tests must run.
    expect(judge(true, [["tests/test_b.py::test_b", "passed"]]).testsPass).toBe(false);
    expect(judge(true, [["tests/test_a.py::test_a", "passed"]]).testsPass).toBe(true);
  });

  it("JUnit: node's file point passing is named as when it failed; pytest's collection failure is one, however many errors it holds (h37)", () => {
    const junit = (cases: string) => `<?xml version="1.0" encoding="utf-8"?>\n<testsuites>\n${cases}\n</testsuites>\n`;
    const parse = (xml: string) => parseTests({ stdout: xml, stderr: "", all: xml }, { cwd: "/W" });
    const exited = parse(
      junit('\t<testcase name="helper" time="0.001" classname="test"/>\n\t<testcase name="/W/test/sum.test.js" time="0.07" classname="test"/>'),
    );
    expect(exited?.cases?.map((c) => c.name)).toEqual(["test.helper", "test/sum.test.js"]);
    const twice = parse(
      junit(
        '<testsuite name="pytest" errors="2" failures="0" skipped="0" tests="2"><testcase classname="" name="tests.test_calc"><error message="collection failure">ImportError</error><error message="collection failure">ImportError</error></testcase></testsuite>',
      ),
    );
    expect([twice?.failed, twice?.cases]).toEqual([1, [{ name: "tests.test_calc", status: "failed", load: "collect" }]]);
  });

  it("is replaced only by its own tests where the output says each test's file (h34: any test elsewhere did)", () => {
    const refEv = refWithLoads("unittest", [["tests.test_a.T.test_x", "passed"]], [{ name: "tests.test_b", status: "failed", load: true }]);
    const judge = (cases: Named) => judgedIn("unittest", refEv, cases);
    const elsewhere = judge([
      ["tests.test_a.T.test_x", "passed"],
      ["tests.test_a.T.test_new", "passed"],
    ]);
    expect([elsewhere.testsPass, elsewhere.components.test]).toEqual([false, 0.5]);
    const own = judge([
      ["tests.test_a.T.test_x", "passed"],
      ["tests.test_b.T.test_y", "passed"],
    ]);
    expect([own.testsPass, own.components.test]).toEqual([true, 1]);
  });

  it("pytest: replaced once it is no longer reported, with or without a test of its own; tests added elsewhere stay new (h36)", () => {
    const refEv = refWithLoads("pytest", [["tests/test_f.py::test_mul", "failed"]], [{ name: "calc/__init__.py", status: "failed", load: "collect" }]);
    const judge = (cases: Named) => judgedIn("pytest", refEv, cases);
    // A code module under --doctest-modules that now collects, holding no doctest: loaded.
    expect(judge([["tests/test_f.py::test_mul", "passed"]]).testsPass).toBe(true);
    // Padding beside the import's fix, with the other test still failing: the new tests' passes are left out.
    const padded = judge([
      ["tests/test_f.py::test_mul", "failed"],
      ...Array.from({ length: 30 }, (_, i): Named[number] => [`tests/test_pad.py::test_${i}`, "passed"]),
    ]);
    expect(padded.components.test).toBe(0);
    // A run that stopped at the file that failed to load ran no other test: every test now takes its place.
    const alone = refWithLoads("pytest", [], [{ name: "tests/test_calc.py", status: "failed", load: "collect" }]);
    const right = judgedIn("pytest", alone, [["tests/test_other.py::test_add", "passed"]]);
    expect([right.testsPass, right.components.test]).toEqual([true, 1]);
  });

  it("is not replaced by the file reported passing under its own name, whose pass is left out (h34: code exiting 0 as it loads)", () => {
    const refEv = withOther();
    const now = evaluation(
      counts([
        ["works", "passed"],
        ["test/sum.test.js", "passed"],
      ]),
    );
    const ev = judgeEvaluation(now, 1, [{ step: 0, evaluation: refEv }], W, []);
    expect([ev.testsPass, ev.components.test]).toEqual([false, 0.5]);
  });

  it("holds a step that changed only tests since the step before, when a test of the file that failed to load passes now (h34)", () => {
    // Step 1 made the file load (a wrong fix: `adds` fails by name); step 2 changed the test alone to fit it.
    const refEv = ref();
    const step1 = evaluation(
      counts([
        ["adds", "failed"],
        ["zero", "passed"],
      ]),
    );
    const earlier = [
      { step: 0, evaluation: refEv },
      { step: 1, evaluation: judgeEvaluation(step1, 1, [{ step: 0, evaluation: refEv }], W, []) },
    ];
    const now = evaluation(
      counts([
        ["adds", "passed"],
        ["zero", "passed"],
      ]),
    );
    expect(judgeEvaluation(now, 2, earlier, W, []).testsPass).toBe(true);
    const held = judgeEvaluation(now, 2, earlier, W, [], { onlyTestsSinceLast: ["test/sum.test.js"], sinceLastStep: 1 });
    expect([held.testsPass, held.components.test]).toEqual([false, 0]);
  });

  it("is the test file mocha was loading when it ran nothing: the require chain's outermost frame, or an ES module's importer that is a test", () => {
    const read = (id: string) => {
      const err = readFileSync(path.join(OUTPUTS, `mocha/${id}.stderr.txt`), "utf8");
      return parseTests({ stdout: "", stderr: err, all: err }, { cwd: "/WORKTREE" });
    };
    // src.js threw as test/sum.spec.js required it (real mocha 12): the failure is src.js's, the file loading is the test.
    expect(read("require-error-json")?.failures.map((f) => [f.file, f.testFile])).toEqual([["src.js", "test/sum.spec.js"]]);
    expect(read("import-error")?.failures.map((f) => f.testFile)).toEqual(["broken/broken.spec.js"]);
  });

  it("by counts only (Jest's text reporter), a file that failed to load and is gone counts as missing, whatever runs in its place (h34)", () => {
    const refTests: TestCounts = {
      ...counts(null, { passed: 1, failed: 1, skipped: 0 }),
      failures: [{ name: "test/sum.test.js", message: "Cannot find module" }],
      format: "jest",
    };
    const now = { ...counts(null, { passed: 2, failed: 0, skipped: 0 }), format: "jest" };
    // Present (the session left no filesGone): a trivial test in its place passes by counts, as before.
    expect(judgeTests(now, 1, [{ step: 0, tests: refTests }])).toMatchObject({ lost: [] });
    const id = judgeTests(now, 1, [{ step: 0, tests: { ...refTests, filesGone: ["test/sum.test.js"] } }]);
    expect(id).toMatchObject({ missing: 1, capped: 1, filesGone: ["test/sum.test.js"] });
    expect(adjustCounts(now as Parameters<typeof adjustCounts>[0], id)).toMatchObject({ passed: 1, failed: 1 });
    expect(identityNotice(id)).toMatch(/`test\/sum\.test\.js`, which failed to load at step 0, is gone since step 1: 1 test of the 2 then count as missing/);
  });

  it("by counts only (pytest without -rA), a reference that named only a file that did not load takes more tests as its replacement", () => {
    // The tests the step names are too few to be read by name: the right fix of the import scores 1, not held.
    const refEv = evaluation({ ...counts([["test_calc.py", "failed"]]), format: "pytest" });
    refEv.tests!.cases = [{ name: "test_calc.py", status: "failed", load: true }];
    const right = evaluation({ ...counts(null, { passed: 3, failed: 0, skipped: 0 }), format: "pytest" });
    const ev = judgeEvaluation(right, 1, [{ step: 0, evaluation: refEv }], W, []);
    expect([ev.testsPass, ev.components.test]).toEqual([true, 1]);
    // Once the file is gone (the session takes its mark off), it is a test the reference named: held by counts.
    const gone = evaluation({ ...counts([["test_calc.py", "failed"]]), format: "pytest" });
    const held = judgeEvaluation(right, 1, [{ step: 0, evaluation: gone }], W, []);
    expect(held.testsPass).toBe(false);
  });
});
