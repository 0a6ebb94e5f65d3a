import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { relatedVerdict } from "../../../src/evaluate/affected-first.js";
import type { Evaluation } from "../../../src/evaluate/evaluate.js";
import { type FailingFirst, gateVerdict } from "../../../src/evaluate/failing-first.js";
import { affectedFirstPlan, failingFirstPlan } from "../../../src/evaluate/failing-first-plan.js";
import { failingFirstNote, type RelatedSelection, relatedFor, type Selection } from "../../../src/evaluate/select-command.js";
import type { TestCase, TestCounts } from "../../../src/evaluate/types.js";
import { tmpDir } from "../../helpers/repo.js";

const counts = (cases: [string, TestCase["status"]][], named = true): TestCounts => {
  const n = (s: string) => cases.filter((c) => c[1] === s).length;
  return {
    passed: n("passed"),
    failed: n("failed"),
    skipped: n("skipped"),
    total: cases.length,
    format: "vitest",
    failures: cases.filter((c) => c[1] === "failed").map(([name]) => ({ name })),
    ...(named ? { cases: cases.map(([name, status]) => ({ name, status })) } : {}),
  };
};
const ALL_PASS = counts([
  ["a", "passed"],
  ["b", "passed"],
  ["c", "passed"],
  ["d", "passed"],
  ["e", "skipped"],
]);
const ev = (tests: TestCounts | null, extra: Partial<Evaluation> = {}): Evaluation => ({
  commands: { test: { cmd: "t", exitCode: tests?.failed ? 1 : 0, timedOut: false, durationMs: 1, output: "", truncated: false } },
  components: {},
  score: 0,
  testsPass: !tests?.failed,
  diagnostics: [],
  notices: [],
  commandsMs: 1,
  tests,
  ...extra,
});
const REL: RelatedSelection = { runner: { name: "Vitest" } as RelatedSelection["runner"], command: (files) => `related ${files.join(",")}`, example: "" };
const SEL: Selection = { runner: { name: "Vitest" } as Selection["runner"], command: (names) => `run ${names.join(",")}`, example: "" };
const aff = (full = ALL_PASS, over: Partial<FailingFirst> = {}): FailingFirst => ({
  cmd: "npx vitest related --run './src/a.js'",
  names: [],
  since: 3,
  full,
  runner: "Vitest",
  related: ["src/a.js"],
  ...over,
});
const exitOk = { ok: true, timedOut: false, code: 0 };
const exitFail = { ok: false, timedOut: false, code: 1 };

describe("which step runs its related tests first", () => {
  it("after a full run read without failures; never after a failing, partial, skipped or unreadable one", () => {
    expect(affectedFirstPlan([{ step: 3, evaluation: ev(ALL_PASS) }], REL, ["src/a.js", "src/a.js"])).toEqual(aff(ALL_PASS, { cmd: "related src/a.js" }));
    const failing = counts([["a", "failed"]]);
    expect(affectedFirstPlan([{ step: 0, evaluation: ev(failing) }], REL, ["src/a.js"])).toBeUndefined();
    const partial = ev(failing, { partial: { since: 0, ran: 1, of: 5, nowPass: [], stillFail: ["a"] } });
    expect(
      affectedFirstPlan(
        [
          { step: 0, evaluation: ev(ALL_PASS) },
          { step: 1, evaluation: partial },
        ],
        REL,
        ["src/a.js"],
      ),
    ).toBeUndefined();
    const skipped = ev(ALL_PASS, {
      commands: { test: { cmd: "t", exitCode: null, timedOut: false, durationMs: 0, skipped: "build failed", output: "", truncated: false } },
    });
    expect(affectedFirstPlan([{ step: 0, evaluation: skipped }], REL, ["src/a.js"])).toBeUndefined();
    expect(affectedFirstPlan([{ step: 0, evaluation: ev({ ...ALL_PASS, passed: null }) }], REL, ["src/a.js"])).toBeUndefined();
    expect(affectedFirstPlan([], REL, ["src/a.js"])).toBeUndefined();
    expect(affectedFirstPlan([{ step: 0, evaluation: ev(ALL_PASS) }], { ...REL, command: () => undefined }, ["src/a.js"])).toBeUndefined();
  });

  it("after an affected-first partial step, failing first selects the tests that failed there", () => {
    const partial = ev(
      counts([
        ["a", "passed"],
        ["b", "failed"],
        ["c", "passed"],
        ["d", "passed"],
        ["e", "skipped"],
      ]),
      { partial: { since: 0, ran: 2, of: 4, nowPass: [], stillFail: ["b"] } },
    );
    expect(failingFirstPlan([{ step: 0, evaluation: ev(ALL_PASS) }], SEL)).toBeUndefined();
    const ff = failingFirstPlan(
      [
        { step: 0, evaluation: ev(ALL_PASS) },
        { step: 1, evaluation: partial },
      ],
      SEL,
    );
    expect(ff).toMatchObject({ cmd: "run b", names: ["b"], since: 0, full: ALL_PASS });
    // Still failing: partial, said as failing after the full run (not at it).
    const still = gateVerdict(ff!, counts([["b", "failed"]]), exitFail);
    expect("partial" in still && still.tests).toMatchObject({ passed: 3, failed: 1, skipped: 1 });
    expect("partial" in still && still.notice).toMatch(/only the 1 test that failed after step 0 ran/);
    // Counts only: the test that fails now passed at the full run.
    const countsOnly = failingFirstPlan(
      [
        { step: 0, evaluation: ev({ ...ALL_PASS, cases: undefined }) },
        { step: 1, evaluation: ev({ ...partial.tests!, cases: undefined }, { partial: partial.partial! }) },
      ],
      SEL,
    )!;
    const v = gateVerdict(countsOnly, counts([["b", "failed"]], false), exitFail);
    expect("partial" in v && v.tests).toMatchObject({ passed: 3, failed: 1, total: 5 });
  });
});

describe("the related run's verdict", () => {
  it("a related test fails: a partial verdict, the others as at the last full run, the runner's selection named", () => {
    const gate = counts([
      ["b", "failed"],
      ["c", "passed"],
      ["new", "failed"],
    ]);
    const v = relatedVerdict(aff(), gate, exitFail);
    if (!("partial" in v)) throw new Error(v.whole);
    expect(v.partial).toEqual({ since: 3, ran: 3, of: 6, nowPass: [], stillFail: ["b", "new"] });
    expect(v.tests).toMatchObject({ passed: 3, failed: 2, skipped: 1, total: 6 });
    expect(v.notice).toMatch(
      /^Affected first \(partial run, ran 3 of 6\): only the tests Vitest relates to the changed files \(src\/a\.js\) ran, through its own selection \(`npx vitest related --run '\.\/src\/a\.js'`\)\. Failing: b, new\. The other 3 did not run: they count as they were at step 3/,
    );
  });

  it("a test of a file the related run ran or the step changed, no longer reported (deleted, renamed): the whole suite runs", () => {
    // Where the output names each test's file: a in t/a.test.js, b and c in t/b.test.js, d in t/d.test.js.
    const inFiles = (t: TestCounts, files: Record<string, string>): TestCounts => ({
      ...t,
      cases: t.cases!.map((c) => ({ ...c, ...(files[c.name] ? { file: files[c.name] } : {}) })),
    });
    const FILES = { a: "t/a.test.js", b: "t/b.test.js", c: "t/b.test.js", d: "t/d.test.js", "c (renamed)": "t/b.test.js" };
    const full = inFiles(ALL_PASS, FILES);
    const gate = (cases: [string, TestCase["status"]][]) => inFiles(counts(cases), FILES);
    // c deleted from t/b.test.js, whose b fails: kept as it passed at the last full run, it would make 3 of 5 pass.
    expect(relatedVerdict(aff(full), gate([["b", "failed"]]), exitFail)).toEqual({
      whole: "Affected first: c of the files the step changed or Vitest related to them did not run (deleted or renamed), so the whole suite ran.",
    });
    // Renamed: the old name is gone, whatever the new one does.
    const renamed = relatedVerdict(
      aff(full),
      gate([
        ["b", "failed"],
        ["c (renamed)", "passed"],
      ]),
      exitFail,
    );
    expect(renamed).toEqual({ whole: expect.stringMatching(/^Affected first: c of the files/) });
    // A test file the step changed (here deleted) that the related run did not run: its tests are gone too.
    expect(
      relatedVerdict(
        aff(full, { related: ["src/a.js", "t/d.test.js"] }),
        gate([
          ["b", "failed"],
          ["c", "passed"],
        ]),
        exitFail,
      ),
    ).toEqual({
      whole: expect.stringMatching(/^Affected first: d of the files/),
    });
    // Every test of the files it ran reported (a skip counts as reported, and as skipped): a partial verdict.
    const v = relatedVerdict(
      aff(full),
      gate([
        ["b", "failed"],
        ["c", "skipped"],
      ]),
      exitFail,
    );
    if (!("partial" in v)) throw new Error(v.whole);
    expect(v.tests).toMatchObject({ passed: 2, failed: 1, skipped: 2 });
    // Where the full run's output named no file per test, nothing can be told: the estimate as before.
    expect("partial" in relatedVerdict(aff(), gate([["b", "failed"]]), exitFail)).toBe(true);
  });

  it("counts and failing names only: each failing test moves from passed to failed", () => {
    const full = counts(
      [
        ["a", "passed"],
        ["b", "passed"],
        ["c", "passed"],
      ],
      false,
    );
    const v = relatedVerdict(
      aff(full),
      counts(
        [
          ["b", "failed"],
          ["c", "passed"],
        ],
        false,
      ),
      exitFail,
    );
    if (!("partial" in v)) throw new Error(v.whole);
    expect(v.tests).toMatchObject({ passed: 2, failed: 1, skipped: 0, total: 3 });
    expect(v.partial).toMatchObject({ ran: 2, of: 3, stillFail: ["b"] });
  });

  it("the related tests pass, none is related, a timeout, unreadable or differently named output: the whole suite runs", () => {
    const pass = counts([["b", "passed"]]);
    expect(relatedVerdict(aff(), pass, exitOk)).toEqual({
      whole: "Affected first: the 1 test Vitest relates to src/a.js passes, so the whole suite ran.",
      relatedRan: { ran: 1, of: 4 },
    });
    expect(relatedVerdict(aff(), pass, exitFail)).toEqual({ whole: expect.stringMatching(/pass(es)? but the run exited 1, so the whole suite ran/) });
    expect(relatedVerdict(aff(), counts([]), exitOk)).toEqual({ whole: "Affected first: Vitest relates no test to src/a.js, so the whole suite ran." });
    expect(relatedVerdict(aff(), counts([["b", "failed"]]), { ok: false, timedOut: true, code: null })).toEqual({ whole: expect.stringMatching(/timed out/) });
    expect(relatedVerdict(aff(), null, exitFail)).toEqual({ whole: expect.stringMatching(/could not be counted/) });
    expect(relatedVerdict(aff(), { ...counts([["b", "failed"]]), passed: null }, exitFail)).toEqual({ whole: expect.stringMatching(/could not be counted/) });
    expect(relatedVerdict(aff(), counts([["b", "failed"]], false), exitFail)).toEqual({
      whole: expect.stringMatching(/does not name its tests as the full run's/),
    });
  });
});

describe("a runner that relates most of the suite to a change", () => {
  it("stops affected first for the session: each passing step would pay for the suite nearly twice", () => {
    const most = relatedVerdict(
      aff(),
      counts([
        ["a", "passed"],
        ["b", "passed"],
        ["c", "passed"],
      ]),
      exitOk,
    );
    expect(most).toEqual({ whole: expect.stringMatching(/most of the suite's 4, so affected first stops for this session/), relatedRan: { ran: 3, of: 4 } });
    const historyWith = (relatedRan: { ran: number; of: number }) => [
      { step: 2, evaluation: ev(ALL_PASS, { relatedRan }) },
      { step: 3, evaluation: ev(ALL_PASS) },
    ];
    expect(affectedFirstPlan(historyWith({ ran: 3, of: 4 }), REL, ["src/a.js"])).toBeUndefined();
    expect(affectedFirstPlan(historyWith({ ran: 2, of: 4 }), REL, ["src/a.js"])).toEqual(aff(ALL_PASS, { cmd: "related src/a.js" }));
  });
});

describe("how the related tests' command is built", () => {
  const dir = tmpDir("trm-related-");
  const pkg = (scripts: Record<string, string>) => writeFileSync(path.join(dir, "package.json"), JSON.stringify({ scripts }));
  const built = (cmd: string, files = ["src/a.js"]) => {
    const r = relatedFor(cmd, dir);
    return "off" in r ? `OFF: ${r.off}` : r.command(files);
  };

  it("vitest: `related --run` in place of `run` (or after a bare vitest), the files last; jest: --findRelatedTests at the end", () => {
    expect(built("npx vitest run")).toBe("npx vitest related '--run' './src/a.js'");
    expect(built("vitest")).toBe("vitest related '--run' './src/a.js'");
    expect(built("npx vitest --reporter=verbose")).toBe("npx vitest related --reporter=verbose '--run' './src/a.js'");
    expect(built("tsc && npx vitest run --reporter json", ["a.js", "b.ts"])).toBe("tsc && npx vitest related --reporter json '--run' './a.js' './b.ts'");
    expect(built("npx jest --ci")).toBe("npx jest --ci '--findRelatedTests' './src/a.js'");
    expect(built("npx jest --config jest.config.js")).toBe("npx jest --config jest.config.js '--findRelatedTests' './src/a.js'");
  });

  it("npm: jest's options after --; vitest's script rewritten and run by npm exec -c, as npm runs it", () => {
    pkg({ test: "jest --ci", "test:v": "tsc && vitest run --reporter=verbose" });
    expect(built("npm test")).toBe("npm test -- '--findRelatedTests' './src/a.js'");
    expect(built("npm test -- --json")).toBe("npm test -- --json '--findRelatedTests' './src/a.js'");
    expect(built("npm run test:v")).toBe(`npm exec -c 'tsc && vitest related --reporter=verbose '\\''--run'\\'' '\\''./src/a.js'\\'''`);
    pkg({ test: "vitest run", pretest: "node build.js" });
    expect(built("npm test")).toBe('OFF: npm runs the script "pretest" before "test"');
    pkg({ test: "vitest run test/unit" });
    expect(built("npm test")).toMatch(/^OFF: `vitest run test\/unit` names tests to run \(test\/unit\)/);
    pkg({ test: "jest" });
    expect(built("npm test -- test/unit")).toMatch(/^OFF: `jest test\/unit` names tests to run/);
  });

  it("no related run where the runner cannot say, or the command names tests, or is not plain", () => {
    expect(built("npx vitest run test/unit")).toMatch(/^OFF: .*names tests to run \(test\/unit\)/);
    expect(built("npx vitest watch")).toBe("OFF: `vitest watch` cannot run related tests");
    expect(built("npx jest test/")).toMatch(/^OFF: .*names tests to run/);
    expect(built("npx jest -t 'a b'")).toMatch(/^OFF: the arguments of .* hold quotes/);
    expect(built("npx mocha")).toBe("OFF: Mocha cannot say which tests relate to a file");
    expect(built("npx vitest run | cat")).toMatch(/^OFF: the test command is not a plain command/);
    expect(built("make test")).toMatch(/^OFF: the test command does not name a runner/);
    expect(built("npx vitest run", [])).toBeUndefined();
  });

  it("the start result names both selections, or why affected first is not available", () => {
    pkg({});
    expect(failingFirstNote("npx vitest run", dir, true)).toMatch(
      /Affected first: a step after a full run without failures first runs the tests Vitest relates to its changed files \(`npx vitest related '--run' '\.\/<file>'`\), and is judged by them when one fails\. selectTests: false turns it off\.$/,
    );
    expect(failingFirstNote("npx vitest run test/", dir, true)).toMatch(/Affected first: not available \(`npx vitest run test\/` names tests to run/);
    expect(failingFirstNote("npx mocha", dir, true)).not.toMatch(/Affected first/);
  });
});
