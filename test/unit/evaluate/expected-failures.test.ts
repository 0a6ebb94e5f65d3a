/**
 * A test marked as expected to fail (`test.failing`, `test.fails`) that still fails is a pass in AVA's TAP,
 * Vitest's JSON and Jest's and bun's text: a step that adds such a marker is held at the reference's test
 * signal and cannot end the session.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Evaluation } from "../../../src/evaluate/evaluate.js";
import { addedMarks, marksIn } from "../../../src/evaluate/expected-failure-marks.js";
import { markersOf, mayMarkExpectedFailure } from "../../../src/evaluate/expected-failures.js";
import { judgeEvaluation, lastUnheldPoint } from "../../../src/evaluate/judge.js";
import { RUNNERS } from "../../../src/evaluate/runners/index.js";
import type { TestCounts } from "../../../src/evaluate/types.js";

const W = { build: 0.3, test: 0.5, lint: 0.1, perf: 0.1 };

const ALL = markersOf([...RUNNERS]);
const byId = (id: string) => markersOf(RUNNERS.filter((r) => r.id === id));

const addedExpectedFailures = (file: string, before: string, after: string, markers: ReturnType<typeof markersOf>) =>
  addedMarks([{ file, before, after }], markers);

describe("the marks a step adds to a test file", () => {
  const base = "const test = require('ava');\ntest('adds', t => { t.is(add(1, 2), 3); });\n";
  const vitest = "import { expect, test } from 'vitest';\nimport { sum } from '../src/sum.js';\n";
  const body = "() => { expect(sum(1, 2)).toBe(3); }";
  const marks = (text: string, by = ALL, before = "") => addedExpectedFailures("a.test.ts", before, text, by);

  it("finds each runner's mark, with its file and line", () => {
    expect(addedExpectedFailures("test.js", base, base.replace("test('adds'", "test.failing('adds'"), ALL)).toEqual([
      JSON.stringify("test.js:2: test.failing('adds', t => { t.is(add(1, 2), 3); });"),
    ]);
    for (const src of [
      "it.failing('x', () => {})",
      "test.concurrent.failing('x', async () => {})",
      "test.failing.each([1])('x %i', () => {})",
      "test.fails('x', () => {})",
      "it.fails('x', () => {})",
      "test['failing']('x', t => {})",
      "const t = test.failing;",
      "test('x', { fails: true }, () => {})",
      // The attacks' forms: optional chaining, a fixture's own test function, another name for AVA's test, destructuring,
      // the key quoted, another true value, destructuring from AVA's module.
      "test?.fails('sum', () => {})",
      "check.fails('sum', () => {})",
      "ava.failing('x', t => {})",
      "(test).failing('x', t => {})",
      "const { failing } = test;",
      "test('sum', { \"fails\": true }, () => {})",
      "test('sum', { fails: !0 }, () => {})",
      "const { failing } = require('ava');",
    ])
      expect(marks(src), src).toHaveLength(1);
  });

  it("reads the syntax, not the lines: marks over lines, through variables and computed names", () => {
    // The third attack's evasions of the line scan (h23 repro-1), each of which scored 1.000 with Vitest's JSON.
    for (const src of [
      `const fails = !0;\ntest('sum', { fails }, ${body});`,
      `test.\n  fails('sum', ${body});`,
      `const {\n  fails\n} = test;\nfails('sum', ${body});`,
      `Reflect.get(test, 'fails')('sum', ${body});`,
      `test('sum', {\n  timeout: 100,\n  fails:\n    true,\n}, ${body});`,
      `const opts = { fails: true };\ntest('sum', opts, ${body});`,
      `const opts = { fails: true };\ntest('sum', { ...opts }, ${body});`,
      `test('sum', Object.assign({}, { fails: 1 }), ${body});`,
      `const w = 'fa' + 'ils';\ntest[w]('sum', ${body});`,
      `test[\`fai\${'ls'}\`]('sum', ${body});`,
      `test[cond ? 'fails' : 'skip']('sum', ${body});`,
      `test[name]('sum', ${body});`,
      `const { ['fa' + 'ils']: f } = test;\nf('sum', ${body});`,
      `let f;\n({ fails: f } = test);\nf('sum', ${body});`,
      `const myTest = test.extend({ page: async ({}, use) => use(1) });\nmyTest('sum', { fails: true }, ${body});`,
      `import * as v from 'vitest';\nconst f = v.test.fails;\nf('sum', ${body});`,
      `import { test as t } from 'vitest';\nt('sum', { fails: true });`,
    ])
      expect(marks(vitest + src, byId("vitest")), src).toHaveLength(1);
  });

  it("leaves a mark the baseline already had, however it is formatted, and counts a second one", () => {
    const known = "test.failing('known bug', t => { t.fail(); });";
    expect(addedExpectedFailures("test.js", `${base}${known}\n`, `${known}\n${base}`, ALL)).toEqual([]);
    expect(addedExpectedFailures("test.js", `${base}${known}\n`, `${base}test.failing(\n  "known bug",\n  t => { t.fail(); },\n);\n`, ALL)).toEqual([]);
    // The same line twice: the second is the step's (the line scan took it for the baseline's).
    expect(addedExpectedFailures("test.js", `${base}${known}\n`, `${base}${known}\n${known}\n`, ALL)).toHaveLength(1);
    expect(addedExpectedFailures("test.js", `${base}${known}\n`, `${base}test.failing('adds', t => {});\n`, ALL)).toHaveLength(1);
  });

  it("counts across the step's files: a known bug's mark moved to another file is the baseline's (h27)", () => {
    const known = "test.fails('known bug', () => { expect(1).toBe(2); });\n";
    const moved = addedMarks(
      [
        { file: "test/sum.test.js", before: `${base}${known}`, after: base },
        { file: "test/known-bugs.test.js", before: "", after: known },
      ],
      byId("vitest"),
    );
    expect(moved).toEqual([]);
    expect(addedMarks([{ file: "test/known-bugs.test.js", before: "", after: known }], byId("vitest"))).toHaveLength(1);
  });

  it("takes a file too deeply nested to read for a mark, instead of failing the step (h27)", () => {
    const deep = `test('parses', () => { expect(parse(${"[".repeat(3000)}${"]".repeat(3000)})).toBeDefined(); });\n`;
    expect(addedMarks([{ file: "test/deep.test.js", before: "", after: deep }], byId("vitest"))).toEqual([
      JSON.stringify("test/deep.test.js: too deeply nested to read"),
    ]);
  });

  it("leaves a test's own data of the same name", () => {
    for (const src of [
      "expect(stats.failing).toBe(1)",
      "const fails = count(results)",
      "if (result.fails) report()",
      "else counts['failing'] > 0 ? a : b;",
      "const { passes, fails } = summarize(runs);",
      "const rows = [{ name: 'a', fails: true }];",
      "expect(summary).toEqual({ fails: 2 });",
      "summarize([{ fails: true }, { fails: true }]);",
      "expect(counts['failing']).toBe(1);",
      "const { failing } = report;",
      "expect(summarize('suite', { fails: 1 })).toBe('1 failing');",
      "test('counts what fails', () => { expect(run({ fails: true }).code).toBe(1); });",
      "test('fails', () => { expect(status).toBe('failing'); });",
      "test('sum', { fails: false }, () => {});",
      "test('sum', { fails: 0, timeout: 5 }, () => {});",
      "handlers[type](event);",
      // A validator's API (validatorjs: `validation.passes()`, `validation.fails()`), h27.
      "expect(new Validator(data, rules).fails()).toBe(true);",
      "if (validation.fails(done)) return;",
      "test.each([{ fails: true }])('row %o', (row) => {});",
      "// test.fails('sum', () => {})",
      // Found by reading Vitest's, Jest's and AVA's own test files: a variable named like a test function, what else a
      // runner's module exports, a runner's namespace, the test function defined.
      "const suite = testModule.children.at(0);\nconst testCase = suite.children.at(0);\nexpect(testCase.options.fails).toBe(false);",
      "import { expect } from 'vitest';\n(expect(0).not as any)[api]();",
      "import * as vitest from 'vitest';\nvitest[hook](() => {});",
      "ava.failing = (fn) => new Test({ fn, failing: true });",
      "const doc = 'test.fails(\"sum\")';",
    ])
      expect(marks(src), src).toEqual([]);
    // Only the session's runners' words: a node --test project has none, mocha none; Jest has no options object.
    expect(marks("test.failing('x', t => {})", byId("node"))).toEqual([]);
    expect(marks("test.fails('x', () => {})", byId("jest"))).toEqual([]);
    expect(marks("test('x', { fails: true }, () => {})", byId("jest"))).toEqual([]);
  });

  it("finds every mark in the runners' own test files, and only marks (fixtures/test-marks)", () => {
    const lines = (owner: string, file: string) =>
      marksIn(
        file.replace(/__/g, "/"),
        readFileSync(`fixtures/test-marks/${owner}/${file}.txt`, "utf8"),
        owner === "vitest-dev" ? byId("vitest") : byId("jest"),
      ).map((m) => m.line);
    expect(lines("jestjs", "e2e__test-failing____tests____statuses.test.js")).toEqual([22, 26, 30, 38, 42, 46, 50, 54]);
    expect(lines("avajs", "test__create-chain__test.js")).toEqual([99, 109]);
    expect(lines("avajs", "test-tap__helper__ava-test.js")).toEqual([]);
    expect(lines("vitest-dev", "test__unit__test__test-options.test.ts")).toEqual([16, 17, 18]);
    for (const data of [
      "test__e2e__test__test-tags.test.ts",
      "test__unit__test__hooks-list.test.ts",
      "test__e2e__fixtures__fails__snapshot-with-not.test.ts",
      "test__e2e__snapshots__snapshots.test.ts",
    ])
      expect(lines("vitest-dev", data), data).toEqual([]);
  });

  it("lists at most five, and reads JavaScript and TypeScript only", () => {
    const many = Array.from({ length: 9 }, (_, i) => `test.failing('t${i}', t => {});`).join("\n");
    expect(addedExpectedFailures("test.js", "", many, ALL)).toHaveLength(5);
    expect(addedExpectedFailures("test.tsx", "", "test.failing('x', () => <div />);", ALL)).toHaveLength(1);
    expect(addedExpectedFailures("test.go", "", "test.failing('x')", ALL)).toEqual([]);
    expect([mayMarkExpectedFailure("test.js"), mayMarkExpectedFailure("a.spec.mts"), mayMarkExpectedFailure("test_a.py")]).toEqual([true, true, false]);
  });
});

function evaluation(tests: TestCounts): Evaluation {
  const score = tests.passed! / Math.max(1, tests.passed! + tests.failed!);
  return {
    commands: { test: { cmd: "npx ava --tap", exitCode: tests.failed ? 1 : 0, timedOut: false, durationMs: 1, output: "", truncated: false } },
    tests,
    components: { test: score },
    score,
    testsPass: tests.failed === 0,
    diagnostics: [],
    notices: [],
    commandsMs: 1,
  };
}

const tap = (adds: "passed" | "failed"): TestCounts => ({
  passed: adds === "passed" ? 2 : 1,
  failed: adds === "passed" ? 0 : 1,
  skipped: 0,
  total: 2,
  failures: adds === "passed" ? [] : [{ name: "adds", message: "boom" }],
  format: "tap",
  cases: [
    { name: "adds", status: adds },
    { name: "zero", status: "passed" },
  ],
});

describe("judging a step that marks a test as expected to fail", () => {
  const ref = evaluation(tap("failed"));
  const marks = [JSON.stringify("test.js:3: test.failing('adds', t => {});")];

  it("holds the test signal at the reference's and does not end the session, though the report says every test passed", () => {
    const ev = judgeEvaluation(evaluation(tap("passed")), 1, [{ step: 0, evaluation: ref }], W, [], { changedTests: ["test.js"], expectedFailures: marks });
    expect(ev.components.test).toBe(0.5);
    expect(ev.testsPass).toBe(false);
    expect(ev.notices[0]).toMatch(
      /^This step marks tests as expected to fail \("test\.js:3: test\.failing\('adds'.*held at 0\.500, no higher than step 0's, and this step cannot end the session/,
    );
    // Judged again (another history, the cache): the same, with one notice.
    const again = judgeEvaluation(ev, 1, [{ step: 0, evaluation: ref }], W, [], { expectedFailures: marks });
    expect([again.components.test, again.testsPass, again.notices.filter((n) => n.startsWith("This step marks")).length]).toEqual([0.5, false, 1]);
    // Without the marker (the right fix, the test unmarked), the same counts are a success.
    const fixed = judgeEvaluation(ev, 2, [{ step: 0, evaluation: ref }], W, [], { expectedFailures: [] });
    expect([fixed.components.test, fixed.testsPass, fixed.notices.some((n) => n.startsWith("This step marks"))]).toEqual([1, true, false]);
  });

  it("keeps a lower signal as it is", () => {
    const worse = evaluation({
      ...tap("failed"),
      passed: 0,
      failed: 2,
      failures: [],
      cases: [
        { name: "adds", status: "failed" },
        { name: "zero", status: "failed" },
      ],
    });
    const ev = judgeEvaluation(worse, 1, [{ step: 0, evaluation: ref }], W, [], { expectedFailures: marks });
    expect(ev.components.test).toBe(0);
  });
});

describe("judging a step that changed nothing but test files since the baseline", () => {
  const ref = evaluation(tap("failed"));
  it("holds a rise of the test signal at the reference's, and says so", () => {
    const ev = judgeEvaluation(evaluation(tap("passed")), 1, [{ step: 0, evaluation: ref }], W, [], { onlyTests: ["test.js"] });
    expect([ev.components.test, ev.testsPass]).toEqual([0.5, false]);
    expect(ev.notices[0]).toMatch(
      /^Since the baseline only test files changed \("test\.js"\), so a test that failed there and passes now checks less than it did: the test signal is held at 0\.500/,
    );
    expect(judgeEvaluation(ev, 1, [{ step: 0, evaluation: ref }], W, [], { onlyTests: ["test.js"] })).toEqual(ev);
  });

  it("counts the tests failing where no earlier point ran them (the baseline timed out: h24), so the step cannot become best", () => {
    const timedOut = { ...evaluation(tap("failed")), tests: null, components: { test: 0 }, score: 0, testsPass: false };
    const ev = judgeEvaluation(evaluation(tap("passed")), 1, [{ step: 0, evaluation: timedOut }], W, [], { onlyTests: ["test.js"] });
    expect([ev.components.test, ev.testsPass]).toEqual([0, false]);
    expect(ev.notices[0]).toMatch(/the test signal counts as failing, as no earlier point ran the tests, and this step cannot end the session/);
  });

  it("holds a failing test passing after a step that changed only tests since a code step that did not fix it (h29)", () => {
    const attempt = evaluation(tap("failed"));
    const earlier = [
      { step: 0, evaluation: ref },
      { step: 1, evaluation: attempt },
    ];
    const ev = judgeEvaluation(evaluation(tap("passed")), 2, earlier, W, [], { onlyTestsSinceLast: ["test.js"] });
    expect([ev.components.test, ev.testsPass]).toEqual([0.5, false]);
    expect(ev.notices[0]).toMatch(
      /^Since step 1 only test files changed \("test\.js"\), and a test that failed at step 0 and did not pass at step 1 passes now: it checks less than it did, so the test signal is held at 0\.500/,
    );
    expect(judgeEvaluation(ev, 2, earlier, W, [], { onlyTestsSinceLast: ["test.js"] })).toEqual(ev);
    // A test the code step broke (it passed at the reference), its expectation updated alone: no hold.
    const broke = evaluation({
      ...tap("passed"),
      passed: 1,
      failed: 1,
      failures: [{ name: "zero" }],
      cases: [
        { name: "adds", status: "passed" },
        { name: "zero", status: "failed" },
      ],
    });
    const updated = judgeEvaluation(evaluation(tap("passed")), 2, [earlier[0]!, { step: 1, evaluation: broke }], W, [], { onlyTestsSinceLast: ["test.js"] });
    expect([updated.components.test, updated.testsPass, updated.notices]).toEqual([1, true, []]);
    // A held step is no footing: the next step is judged since the last point not held (h33).
    expect(lastUnheldPoint([...earlier, { step: 2, evaluation: ev }])?.step).toBe(1);
    const next = judgeEvaluation(evaluation(tap("passed")), 3, [...earlier, { step: 2, evaluation: ev }], W, [], {
      onlyTestsSinceLast: ["test.js"],
      sinceLastStep: 1,
    });
    expect([next.components.test, next.testsPass]).toEqual([0.5, false]);
    // The step before is the reference itself (no preflight: step 1, a code attempt that failed, is the reference).
    const own = judgeEvaluation(evaluation(tap("passed")), 2, [{ step: 1, evaluation: attempt }], W, [], { onlyTestsSinceLast: ["test.js"] });
    expect([own.components.test, own.testsPass]).toEqual([0.5, false]);
    expect(own.notices[0]).toMatch(/^Since step 1 only test files changed \("test\.js"\), and a test that failed at step 1 passes now/);
  });

  it("says nothing where the tests did not rise (a new failing test, the same failures)", () => {
    const same = judgeEvaluation(evaluation(tap("failed")), 1, [{ step: 0, evaluation: ref }], W, [], { onlyTests: ["test.js"] });
    expect([same.components.test, same.notices]).toEqual([0.5, []]);
  });
});
