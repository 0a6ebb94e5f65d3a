import { execFileSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type Evaluation, expandFiles } from "../../../src/evaluate/evaluate.js";
import { type FailingFirst, gateVerdict, MATCHED_NOTHING } from "../../../src/evaluate/failing-first.js";
import { failingFirstPlan } from "../../../src/evaluate/failing-first-plan.js";
import { foldProgress } from "../../../src/evaluate/score.js";
import { failingFirstNote, MAX_SELECTED, relatedFor, type Selection, selectionFor } from "../../../src/evaluate/select-command.js";
import type { TestCase, TestCounts } from "../../../src/evaluate/types.js";
import { tmpDir } from "../../helpers/repo.js";

const counts = (cases: [string, TestCase["status"]][], format = "tap"): TestCounts => {
  const n = (s: string) => cases.filter((c) => c[1] === s).length;
  return {
    passed: n("passed"),
    failed: n("failed"),
    skipped: n("skipped"),
    total: cases.length,
    format,
    failures: cases.filter((c) => c[1] === "failed").map(([name]) => ({ name })),
    cases: cases.map(([name, status]) => ({ name, status })),
  };
};
const FULL = counts([
  ["a", "passed"],
  ["b", "failed"],
  ["c", "failed"],
  ["d", "passed"],
  ["e", "skipped"],
]);
const ff = (over: Partial<FailingFirst> = {}): FailingFirst => ({
  cmd: "npx vitest run -t x",
  names: ["b", "c"],
  since: 0,
  full: FULL,
  runner: "Vitest",
  ...over,
});
const exitFail = { ok: false, timedOut: false, code: 1 };
const exitOk = { ok: true, timedOut: false, code: 0 };

describe("the selected run's verdict", () => {
  it("still failing: a partial verdict whose other tests keep their status of the last full run", () => {
    // The runner reports the tests its filter left out as skipped: they are not the step's skips.
    const v = gateVerdict(
      ff(),
      counts([
        ["a", "skipped"],
        ["b", "passed"],
        ["c", "failed"],
        ["d", "skipped"],
      ]),
      exitFail,
    );
    if (!("partial" in v)) throw new Error(v.whole);
    expect(v.partial).toEqual({ since: 0, ran: 2, of: 5, nowPass: ["b"], stillFail: ["c"] });
    expect(v.tests).toMatchObject({ passed: 3, failed: 1, skipped: 1, total: 5 });
    expect(v.tests.cases!.map((c) => `${c.name}:${c.status}`)).toEqual(["a:passed", "b:passed", "c:failed", "d:passed", "e:skipped"]);
    expect(v.notice).toMatch(
      /^Failing first \(partial run, ran 2 of 5\).*Now pass: b\. Still fail: c\. The other 3 did not run: they count as they were at step 0/,
    );
  });

  it("tests sharing a name at the last full run are all kept", () => {
    const full = counts([
      ["a", "passed"],
      ["a", "passed"],
      ["b", "failed"],
      ["c", "failed"],
    ]);
    const v = gateVerdict(
      ff({ full }),
      counts([
        ["b", "failed"],
        ["c", "failed"],
      ]),
      exitFail,
    );
    if (!("partial" in v)) throw new Error(v.whole);
    expect(v.tests).toMatchObject({ passed: 2, failed: 2, total: 4 });
    expect(v.partial).toMatchObject({ ran: 2, of: 4 });
  });

  it("a still-failing test is counted failing even when a passing test shares its name", () => {
    // A candidate adds a passing test named as the failing one: by name alone the failure disappeared.
    const added = gateVerdict(
      ff(),
      counts([
        ["b", "failed"],
        ["b", "passed"],
        ["c", "failed"],
      ]),
      exitFail,
    );
    if (!("partial" in added)) throw new Error(added.whole);
    expect(added.partial.stillFail).toEqual(["b", "c"]);
    expect(added.tests).toMatchObject({ passed: 3, failed: 2, skipped: 1, total: 6 });
    expect(added.partial).toMatchObject({ ran: 3, of: 6 });
    // Two tests sharing a name at the last full run, one failing: each keeps its own status.
    const full = counts([
      ["a", "passed"],
      ["b", "passed"],
      ["b", "failed"],
    ]);
    const both = gateVerdict(
      ff({ full, names: ["b"] }),
      counts([
        ["b", "passed"],
        ["b", "failed"],
      ]),
      exitFail,
    );
    if (!("partial" in both)) throw new Error(both.whole);
    expect(both.tests).toMatchObject({ passed: 2, failed: 1, total: 3 });
  });

  it("a test the runner selected beyond the names that fails is a failure of the partial run too", () => {
    const v = gateVerdict(
      ff(),
      counts([
        ["b", "failed"],
        ["c", "failed"],
        ["d", "failed"],
      ]),
      exitFail,
    );
    if (!("partial" in v)) throw new Error(v.whole);
    expect(v.partial.stillFail).toEqual(["b", "c", "d"]);
    expect(v.tests).toMatchObject({ passed: 1, failed: 3 });
  });

  it("a selected run that reported every test of the suite (a command naming test folders) is the step's full run", () => {
    // `pytest -rA tests` with the ids appended: pytest runs the folder besides them.
    const all = counts([
      ["a", "passed"],
      ["b", "failed"],
      ["c", "passed"],
      ["d", "passed"],
      ["e", "skipped"],
      ["new", "passed"],
    ]);
    expect(gateVerdict(ff(), all, exitFail)).toEqual({ full: expect.stringMatching(/ran all 6 tests, every one of the last full run's/) });
    expect(gateVerdict(ff(), { ...all, failed: 0, failures: [], cases: all.cases!.map((c) => ({ ...c, status: "passed" as const })) }, exitOk)).toHaveProperty(
      "full",
    );
    // One test of the suite missing: the selection did select, and what it says is partial.
    const some = counts([
      ["a", "passed"],
      ["b", "failed"],
      ["c", "passed"],
      ["e", "skipped"],
    ]);
    expect(gateVerdict(ff(), some, exitFail)).toHaveProperty("partial");
    // The tests a filter left out, reported skipped (node-tap, node --test), did not run.
    const filtered = counts([
      ["a", "skipped"],
      ["b", "failed"],
      ["c", "failed"],
      ["d", "skipped"],
      ["e", "skipped"],
    ]);
    expect(gateVerdict(ff(), filtered, exitFail)).toHaveProperty("partial");
    // A selection by files runs whole files: where the names carry no file, a test in a selected file could
    // be given every other test's name, so it counts only where each test's file is known, by file and name.
    expect(gateVerdict(ff({ byFiles: true }), all, exitFail)).toHaveProperty("partial");
    const inFile = (t: TestCounts, file: (name: string) => string): TestCounts => ({ ...t, cases: t.cases!.map((c) => ({ ...c, file: file(c.name) })) });
    const fullByFile = inFile(FULL, (n) => (n === "b" || n === "c" ? "t/one.test.js" : "t/two.test.js"));
    expect(
      gateVerdict(
        ff({ byFiles: true, full: fullByFile }),
        inFile(all, () => "t/one.test.js"),
        exitFail,
      ),
    ).toHaveProperty("partial");
    expect(
      gateVerdict(
        ff({ byFiles: true, full: fullByFile }),
        inFile(all, (n) => (n === "b" || n === "c" ? "t/one.test.js" : "t/two.test.js")),
        exitFail,
      ),
    ).toHaveProperty("full");
  });

  it("a selected run named where the full run was only counted (pytest -q names every test when all failed) is read by its counts", () => {
    const { cases: _none, ...counted } = FULL;
    const gate = counts([
      ["b", "failed"],
      ["c", "failed"],
    ]);
    const v = gateVerdict(ff({ full: counted }), gate, exitFail);
    expect(v).toHaveProperty("partial");
    if ("partial" in v) expect(v.tests.cases).toBeUndefined();
  });

  it("the selected tests pass: the whole suite runs", () => {
    expect(
      gateVerdict(
        ff(),
        counts([
          ["b", "passed"],
          ["c", "passed"],
        ]),
        exitOk,
      ),
    ).toEqual({ whole: "Failing first: the 2 tests that failed at step 0 pass now, so the whole suite ran." });
    // Passing, but the run failed (a crash after the tests): the whole suite decides.
    expect(
      gateVerdict(
        ff(),
        counts([
          ["b", "passed"],
          ["c", "passed"],
        ]),
        exitFail,
      ),
    ).toMatchObject({ whole: expect.stringMatching(/pass but the run exited 1/) });
  });

  it("a selected test deleted, skipped or renamed, a filter matching nothing, a timeout, unreadable output: the whole suite runs", () => {
    expect(gateVerdict(ff(), counts([["c", "failed"]]), exitFail)).toMatchObject({
      whole: expect.stringMatching(/^Failing first: b did not run among the selected tests/),
    });
    expect(
      gateVerdict(
        ff(),
        counts([
          ["b", "skipped"],
          ["c", "failed"],
        ]),
        exitFail,
      ),
    ).toMatchObject({ whole: expect.stringMatching(/b did not run/) });
    expect(gateVerdict(ff(), counts([["a", "skipped"]]), exitOk)).toMatchObject({ whole: expect.stringMatching(new RegExp(`^${MATCHED_NOTHING}`)) });
    // The selected tests found but skipped (by the step): said so, not "renamed".
    const skippedBoth = counts([
      ["b", "skipped"],
      ["c", "skipped"],
    ]);
    expect(gateVerdict(ff(), skippedBoth, exitOk)).toEqual({
      whole: "Failing first: b, c did not run among the selected tests (reported skipped), so the whole suite ran.",
    });
    const { cases: _c, ...countedOnly } = skippedBoth;
    expect(gateVerdict(ff({ full: (({ cases: _f, ...r }) => r)(FULL) }), countedOnly, exitOk)).toEqual({
      whole: "Failing first: none of the 2 tests selected ran (2 reported skipped), so the whole suite ran.",
    });
    // No test listed at all (bun's `matched 0 tests`), against a full run that names each test: still nothing matched.
    const none: TestCounts = { passed: 0, failed: 0, skipped: 0, total: 0, format: "bun", failures: [] };
    expect(gateVerdict(ff(), none, exitFail)).toMatchObject({ whole: expect.stringMatching(new RegExp(`^${MATCHED_NOTHING}`)) });
    expect(gateVerdict(ff(), counts([["b", "failed"]]), { ok: false, timedOut: true, code: null })).toMatchObject({
      whole: expect.stringMatching(/timed out/),
    });
    expect(gateVerdict(ff(), null, exitFail)).toMatchObject({ whole: expect.stringMatching(/could not be counted/) });
    // Counted in assertions (tape): the tests are not what the counts count.
    expect(
      gateVerdict(
        ff(),
        {
          ...counts([
            ["b", "failed"],
            ["c", "failed"],
          ]),
          units: "assertions",
        },
        exitFail,
      ),
    ).toHaveProperty("whole");
  });

  it("output naming only the failing tests: partial only when exactly the selected ran and each failure is one of them", () => {
    const full: TestCounts = { passed: 3, failed: 2, skipped: 1, total: 6, format: "vitest", failures: [{ name: "b" }, { name: "c" }] };
    const only = (passed: number, failed: string[], skipped = 4): TestCounts => ({
      passed,
      failed: failed.length,
      skipped,
      total: passed + failed.length + skipped,
      format: "vitest",
      failures: failed.map((name) => ({ name })),
    });
    const v = gateVerdict(ff({ full }), only(1, ["c"]), exitFail);
    if (!("partial" in v)) throw new Error(v.whole);
    expect(v.tests).toMatchObject({ passed: 4, failed: 1, skipped: 1, total: 6 });
    expect(v.partial).toMatchObject({ ran: 2, of: 5, nowPass: ["b"], stillFail: ["c"] });
    // One of the two renamed away: one ran for two selected.
    expect(gateVerdict(ff({ full }), only(0, ["c"]), exitFail)).toMatchObject({ whole: expect.stringMatching(/1 test ran for the 2 selected/) });
    // A failure that is not one of the selected: the output does not say how the selected did.
    expect(gateVerdict(ff({ full }), only(1, ["z"]), exitFail)).toHaveProperty("whole");
  });
});

const ev = (tests: TestCounts | null, extra: Partial<Evaluation> = {}): Evaluation => ({
  commands: { test: { cmd: "t", exitCode: tests?.failed ? 1 : 0, timedOut: false, durationMs: 1, output: "", truncated: false } },
  components: {},
  score: 0,
  testsPass: false,
  diagnostics: [],
  notices: [],
  commandsMs: 1,
  tests,
  ...extra,
});
const SEL: Selection = { runner: { name: "Vitest" } as Selection["runner"], command: (names) => `run ${names.join(",")}`, example: "" };

describe("which tests a step runs first", () => {
  it("the failing tests of the last full run and of the partial steps since, when the step before is one of them", () => {
    expect(failingFirstPlan([{ step: 0, evaluation: ev(FULL) }], SEL)).toMatchObject({ cmd: "run b,c", names: ["b", "c"], since: 0 });
    const partial = ev(
      counts([
        ["a", "passed"],
        ["b", "passed"],
        ["c", "failed"],
        ["d", "failed"],
        ["e", "skipped"],
      ]),
      { partial: { since: 0, ran: 3, of: 5, nowPass: ["b"], stillFail: ["c", "d"] } },
    );
    expect(
      failingFirstPlan(
        [
          { step: 0, evaluation: ev(FULL) },
          { step: 1, evaluation: partial },
        ],
        SEL,
      ),
    ).toMatchObject({ names: ["b", "c", "d"], since: 0, full: FULL });
  });

  it("nothing to select: no failure, a failure without a name, a skipped test run, counts unknown, too many names", () => {
    expect(failingFirstPlan([], SEL)).toBeUndefined();
    expect(failingFirstPlan([{ step: 0, evaluation: ev(counts([["a", "passed"]])) }], SEL)).toBeUndefined();
    const crash: TestCounts = { passed: 3, failed: 1, skipped: 0, total: 4, format: "vitest", failures: [{ name: "(test command exited 1)" }] };
    expect(failingFirstPlan([{ step: 0, evaluation: ev(crash) }], SEL)).toBeUndefined();
    const unnamed: TestCounts = { passed: 3, failed: 2, skipped: 0, total: 5, format: "vitest", failures: [{ name: "b" }] };
    expect(failingFirstPlan([{ step: 0, evaluation: ev(unnamed) }], SEL)).toBeUndefined();
    // A test file that failed to load (Jest's text reporter names it by its file; microsoft/tsyringe's TS2554):
    // run alone again it would hide what its cause broke in the other files.
    const unloaded: TestCounts = {
      passed: 65,
      failed: 1,
      skipped: 0,
      total: 66,
      format: "jest",
      failures: [{ name: "src/__tests__/global-container.test.ts", testFile: "src/__tests__/global-container.test.ts", message: "TS2554" }],
    };
    expect(failingFirstPlan([{ step: 0, evaluation: ev(unloaded) }], SEL)).toBeUndefined();
    const collection: TestCounts = {
      passed: 2,
      failed: 1,
      skipped: 0,
      total: 3,
      format: "pytest",
      failures: [{ name: "tests/test_x.py", file: "tests/test_x.py" }],
    };
    expect(failingFirstPlan([{ step: 0, evaluation: ev(collection) }], SEL)).toBeUndefined();
    // mocha's "Exception during run": no test loaded, and its one failure is no test's (selecting it matched nothing).
    const exception: TestCounts = {
      passed: 0,
      failed: 1,
      skipped: 0,
      total: 1,
      format: "mocha",
      loadFailed: true,
      failures: [{ name: "Exception during run", file: "lib.js" }],
    };
    expect(failingFirstPlan([{ step: 0, evaluation: ev(exception) }], SEL)).toBeUndefined();
    const skippedTest = ev(FULL, {
      commands: { test: { cmd: "t", exitCode: null, timedOut: false, durationMs: 0, skipped: "build failed", output: "", truncated: false } },
    });
    expect(
      failingFirstPlan(
        [
          { step: 0, evaluation: ev(FULL) },
          { step: 1, evaluation: skippedTest },
        ],
        SEL,
      ),
    ).toBeUndefined();
    expect(failingFirstPlan([{ step: 0, evaluation: ev({ ...FULL, passed: null, cases: undefined }) }], SEL)).toBeUndefined();
    expect(failingFirstPlan([{ step: 0, evaluation: ev(FULL) }], { ...SEL, command: () => undefined })).toBeUndefined();
  });

  it("a partial step never improves on the best nor resets the streak", () => {
    const p = foldProgress(
      [
        { step: 0, score: 0.5, testsPass: false },
        { step: 1, score: 0.9, testsPass: false, partial: true },
        { step: 2, score: 0.6, testsPass: false },
      ],
      0.9,
    )!;
    expect(p).toMatchObject({ bestScore: 0.6, bestStep: 2, noImproveStreak: 0 });
    const q = foldProgress(
      [
        { step: 0, score: 0.5, testsPass: false },
        { step: 1, score: 0.9, testsPass: false, partial: true },
      ],
      0.9,
    )!;
    expect(q).toMatchObject({ bestScore: 0.5, bestStep: 0, noImproveStreak: 1, improved: false });
  });
});

describe("how the selection is added to the test command", () => {
  const dir = tmpDir("trm-select-");
  const scripts = (s: Record<string, string>) => writeFileSync(path.join(dir, "package.json"), JSON.stringify({ scripts: s }));
  const built = (cmd: string, names = ["a > b"]) => {
    const s = selectionFor(cmd, dir);
    return "off" in s ? `OFF: ${s.off}` : s.command(names);
  };

  it("appended to a command or the last part of a chain that names the runner; node's options before its files", () => {
    expect(built("npx vitest run")).toBe("npx vitest run '-t' '^(?:a b)$'");
    expect(built("xo && npx ava --tap", ["lib › b"])).toBe("xo && npx ava --tap '--match=b'");
    expect(built("python -m pytest -q", ["t.py::test_x"])).toBe("python -m pytest -q 't.py::test_x'");
    expect(built("tsc && node --test dist/")).toBe("tsc && node --test '--test-name-pattern' '^(?:a b|b)$' dist/");
    // cargo's `--` merged into the one the command has.
    expect(built("cargo test -- --nocapture", ["t::x"])).toBe("cargo test -- --nocapture '--exact' 't::x'");
    expect(built("go test -v ./...", ["m.TestX"])).toBe("go test -v ./... 'm' '-run' '^(?:TestX)$'");
    expect(
      built(
        "npx vitest run",
        Array.from({ length: MAX_SELECTED + 1 }, (_, i) => `t${i}`),
      ),
    ).toBeUndefined();
  });

  it("npm test passes them after --, when the script's last part is the runner and takes them at its end", () => {
    scripts({ test: "xo && jest", unit: "mocha", late: "jest && tsd", node: "node --test test/", plain: "node --test", chained: "npm run unit" });
    expect(built("npm test")).toBe("npm test -- '-t' '^(?:a b)$'");
    expect(built("npm run unit")).toBe("npm run unit -- '--grep' '^(?:a b)$'");
    expect(built("npm test -- --ci")).toBe("npm test -- --ci '-t' '^(?:a b)$'");
    expect(built("npm run plain")).toBe("npm run plain -- '--test-name-pattern' '^(?:a b|b)$'");
    expect(built("npm run node")).toMatch(/^OFF: npm adds arguments at the end of the script "node"/);
    expect(built("npm run late")).toMatch(/^OFF: the last part of the script "late"/);
    expect(built("npm run chained")).toMatch(/^OFF: the last part of the script "chained"/);
    expect(built("npm run missing")).toMatch(/^OFF: package.json has no script "missing"/);
    expect(built("yarn test")).toMatch(/^OFF: only npm's scripts/);
  });

  it("no selection where the arguments would land elsewhere or the runner has none", () => {
    expect(built("npx vitest run | tee out")).toMatch(/^OFF: the test command is not a plain command/);
    expect(built("npx jest; echo done")).toMatch(/^OFF/);
    expect(built("npx jest && xo")).toMatch(/^OFF: Jest is not the last part/);
    expect(built("make test")).toMatch(/^OFF: the test command does not name a runner/);
    expect(built("npx tape test/*.js")).toMatch(/^OFF: tape has no way to run tests by name/);
    expect(built("python -m unittest discover -s tests")).toMatch(/^OFF: `python -m unittest discover -s tests` takes no test names/);
    expect(failingFirstNote("npx vitest run", dir, true)).toMatch(
      /^failing first: after a step with failing tests, the next runs those first through Vitest's own selection \(`npx vitest run '-t' '\^\(\?:<name>\)\$'`\)/,
    );
    expect(failingFirstNote("npx vitest run", dir, false)).toBe("failing first: off (selectTests: false); every step runs the whole suite.");
  });
});

describe("hostile test names and changed files never become shell syntax", () => {
  const dir = tmpDir("trm-select-quote-");
  // Test names come from the repository's own output; file names from the candidate.
  const hostile = [`it's "q" $(touch PWNED1) \`touch PWNED2\`; rm -rf x && y | z > w`, "line one\nline two", "a{files}b", "-p evil \\ $HOME !x *?[a] ${IFS}"];
  const files = ["$(touch PWNED3)", "a'b.ts", "c d.ts"];
  // Each runner's command with a stub in its place that prints its arguments, one per NUL.
  const forms: [string, string, (n: string) => string][] = [
    ["npx vitest run", "npx", (n) => n],
    ["python -m pytest -q", "python", (n) => `t.py::${n}`],
    ["python -m unittest", "python", (n) => `tests.T.${n}`],
    ["npx ava --tap", "npx", (n) => n],
    ["npx mocha", "npx", (n) => n],
    ["node --test test/", "node", (n) => n],
    ["cargo test -- --nocapture", "cargo", (n) => n],
    ["npx vitest run {files}", "npx", (n) => n],
  ];
  const argv = (cmd: string, stub: string) => {
    const out = execFileSync("bash", ["-c", `${stub}() { printf '%s\\0' "$@"; }\n${cmd}`], { cwd: dir, encoding: "utf8" });
    return out.split("\0").slice(0, -1);
  };

  it.each(forms)("%s: the runner gets exactly its selection arguments", (base, stub, name) => {
    // As the session does: `{files}` expanded in the test command first, the selection added to that.
    const cmd = expandFiles(base, files);
    const s = selectionFor(cmd, dir);
    if ("off" in s) throw new Error(s.off);
    const names = hostile.map(name);
    const built = s.command(names)!;
    const got = argv(built, stub);
    const own = argv(cmd, stub);
    // A leading `--` merges into the command's own (cargo's); a second one (names starting with `-`) stays.
    const sel = s.runner.selectByName!(names)!;
    const want = sel[0] === "--" && own.includes("--") ? sel.slice(1) : sel;
    expect(got.filter((a) => !own.includes(a))).toEqual(want.filter((a) => !own.includes(a)));
    expect(got.length).toBe(own.length + want.length);
    expect(readdirSync(dir).filter((f) => f.startsWith("PWNED"))).toEqual([]);
  });

  it.each(["npx vitest run", "npx jest", "npm test"])("%s: the related tests' run gets exactly the changed files, whatever their names", (cmd) => {
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ scripts: { test: "vitest run" } }));
    const changed = [...files, ...hostile];
    const r = relatedFor(cmd, dir);
    if ("off" in r) throw new Error(r.off);
    // npm exec -c takes the rewritten script as one word and runs it in a shell: eval does the same, with the stub.
    const got = argv(r.command(changed)!.replace(/^npm exec -c /, "eval "), cmd === "npm test" ? "vitest" : "npx");
    expect(got.slice(-changed.length)).toEqual(changed.map((f) => `./${f}`));
    expect(readdirSync(dir).filter((f) => f.startsWith("PWNED"))).toEqual([]);
  });
});
