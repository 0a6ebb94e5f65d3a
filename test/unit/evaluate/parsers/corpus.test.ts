/**
 * Every real output in fixtures/outputs parses exactly to its reviewed expectation, and outputs of the
 * same run printed in different formats agree with each other.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseBenchValue, parseDiagnostics, parseTests } from "../../../../src/evaluate/parsers/index.js";
import { type TestCounts, unitsOf } from "../../../../src/evaluate/types.js";
import { CORPUS_DIR, type CorpusCase, CWD, listCases, listOutputCaseIds, loadCase } from "./corpus.js";

function run(c: CorpusCase): unknown {
  if (c.parse === "tests")
    return withoutCases(
      parseTests(c.output, {
        cwd: CWD,
        ...(c.junitXml !== undefined ? { junitXml: c.junitXml } : {}),
        ...(c.goModule !== undefined ? { goModule: c.goModule } : {}),
      }),
    );
  if (c.parse === "diagnostics") return parseDiagnostics(c.output.all, { cwd: CWD });
  return parseBenchValue(c.output.all);
}

/** The list of every test's name and each failure's test file are checked on their own (below), not in each expectation. */
function withoutCases(r: TestCounts | null): TestCounts | null {
  if (!r) return r;
  const { cases: _cases, ...rest } = r;
  return { ...rest, failures: r.failures.map(({ testFile: _file, ...f }) => f) };
}

const ids = listCases();

describe("corpus of real outputs", () => {
  it("covers every captured output with an expectation", () => {
    const outputs = listOutputCaseIds();
    expect(outputs.filter((id) => !ids.includes(id))).toEqual([]);
    // Expectations without a captured output are report files alone.
    for (const id of ids.filter((i) => !outputs.includes(i))) expect(loadCase(id).junitXml, id).toBeDefined();
    expect(ids.length).toBeGreaterThanOrEqual(70);
    // Every tool the parsers claim to read is represented.
    const tools = new Set(ids.map((id) => id.split("/")[0]));
    for (const t of [
      "node-test",
      "ava",
      "tape",
      "uvu",
      "jasmine",
      "tap21",
      "vitest",
      "jest",
      "mocha",
      "pytest",
      "unittest",
      "go-test",
      "cargo",
      "junit",
      "tsc",
      "eslint",
      "xo",
      "python",
      "flake8",
      "pylint",
      "mypy",
      "go",
      "rustc",
      "bench",
    ]) {
      expect(tools.has(t), t).toBe(true);
    }
  });

  it.each(ids)("%s", (id) => {
    const c = loadCase(id);
    expect(run(c)).toEqual(c.expected);
  });

  it("names every test with its outcome where the format lists them all, agreeing with the counts", () => {
    const named: string[] = [];
    for (const id of ids) {
      const c = loadCase(id);
      if (c.parse !== "tests") continue;
      const r = parseTests(c.output, { cwd: CWD, ...(c.junitXml !== undefined ? { junitXml: c.junitXml } : {}) });
      if (!r?.cases) continue;
      named.push(id);
      // Each test stands for its units in the counts (tape's assertions, pytest's failed subtests), else one.
      const n = (s: "passed" | "failed" | "skipped") => r.cases!.reduce((k, x) => k + unitsOf(x)[s], 0);
      expect(n("passed"), id).toBe(r.passed);
      // tape prints nothing for test.skip: its skipped count can be unknown while its other tests are named.
      if (r.skipped !== null) expect(n("skipped"), id).toBe(r.skipped);
      // A failure of a whole file or suite has no test case of its own.
      expect(n("failed"), id).toBeLessThanOrEqual(r.failed);
      if (r.units) expect(r.cases.filter((x) => x.status !== "skipped").length, id).toBe(r.testsRan);
      // A failure is its test's, or one of its test's subtests: pytest's `node::id [msg] (i=3)` (counted in
      // units), unittest's `pkg.C.test_x [msg] (i=3)` (its test failed, counted once).
      const ofCase = (f: { name: string; test?: string }) =>
        r.cases!.some((x) => (x.name === (f.test ?? f.name) && x.status === "failed") || (r.units === "subtests" && f.name.startsWith(`${x.name} `)));
      for (const f of r.failures) if (n("failed") === r.failed) expect(ofCase(f), `${id}: ${f.name}`).toBe(true);
    }
    for (const t of [
      "node-test/node20-tap-failing",
      "vitest/json-failing",
      "jest/json-failing",
      "vitest/junit-failing",
      "tape/finished-failing",
      "tape/skip-forms-passing",
      "tape/qs-bug",
      "pytest/tomli-bug-junit",
      "unittest/py3117-verbose-logged",
      "unittest/py3117-verbose-docstring-logged",
      "unittest/py3117-verbose-inner-run",
      "unittest/py3117-verbose-glued",
      "unittest/py3117-verbose-inner-run-docstring",
    ])
      expect(named, t).toContain(t);
    const runners = [
      "ava/default-failing",
      "ava/ava4-default-failing",
      "ava/ava5-default-failing",
      "ava/many-2-failing",
      "ava/query-string-known-failures",
      "ava/query-string-unexpected-pass",
      "ava/known-failing",
      "pytest/pytest9-v-failing",
      "pytest/pytest9-subtests-v",
      "pytest/pytest9-rA-failing",
      "pytest/pytest9-rA-names",
      "pytest/pytest9-doctest-rA",
      "pytest/pytest9-doctest-v",
      "pytest/pytest9-subtests-rA",
      "pytest/tomli-bug-v",
      "unittest/verbose-failing",
      "unittest/py3117-verbose-failing",
      "unittest/subtests-verbose",
      "unittest/py3112-subtests-verbose",
      // A print of the code under test between a test's name and its outcome: stderr alone names them.
      "unittest/py3117-verbose-print",
      // A warning logged to stderr after a test's dots, its outcome on the next line.
      "unittest/py3117-verbose-logged",
      // A progress line written with `\r` and no newline: the outcome glued to it.
      "unittest/py3117-verbose-glued",
      "go-test/verbose-failing",
      "go-test/json-failing",
      "go-test/errorf-verbose",
      "go-test/errorf-json",
      "cargo/test-failing",
      "cargo/test-failing-color",
      "mocha/spec-failing",
      "mocha/spec-passing-color",
      "mocha/picomatch-bug-spec",
      "vitest/defu-bug-verbose",
      "vitest/defu-wrong-verbose",
      "vitest/defu-fixed-verbose",
      "vitest/traps-verbose-failing",
      "vitest/verbose-failing",
      "bun/default-failing",
      "bun/traps-failing",
    ];
    for (const t of runners) expect(named, t).toContain(t);
  });

  it("recognises every test output and finds the failures of every failing run", () => {
    for (const id of ids) {
      const c = loadCase(id);
      if (c.parse !== "tests") continue;
      const r = run(c) as TestCounts | null;
      // A run that printed nothing (pytest/more-iter-q-os-exit: a conftest.py calling os._exit(0)) has no counts,
      // nor one that could not start (pytest's usage error, exit 4: runners/pytest.ts `stopped` reads it).
      if ((c.output.all === "" && c.junitXml === undefined) || id === "pytest/pytest9-usage-error-rA") {
        expect(r, id).toBeNull();
        continue;
      }
      expect(r, id).not.toBeNull();
      // A count the output does not show is null, and then so is the total; never a made-up 0.
      if (r!.passed !== null && r!.failed !== null && r!.skipped !== null) expect(r!.total, id).toBe(r!.passed + r!.failed + r!.skipped);
      else expect(r!.total, id).toBeNull();
      // Each failure the counts report is named (the list is capped, these runs are small); counted in
      // units, each failing test is (tape: its first failing assertion, with how many failed), and pytest's
      // subtests printed alike (three data files named `bool`) are one. A unittest test is named once
      // however many of its subtests failed.
      if (r!.units) expect(r!.failures.length > 0 || r!.failed === 0, id).toBe(true);
      else expect(new Set(r!.failures.map((f) => f.test ?? f.name)).size, id).toBe(r!.failed);
      if (r!.units) expect(r!.failures.length, id).toBeLessThanOrEqual(r!.failed!);
      for (const f of r!.failures) {
        expect(f.name.length, id).toBeGreaterThan(0);
        expect(f.message, `${id}: ${f.name}`).toBeTruthy();
        // A reporter's rule (AVA's ─ before its summary) is not part of the message.
        expect(f.message, `${id}: ${f.name}`).not.toMatch(/[─━]\s*$/);
        // Paths are relative to the worktree once cwd is known.
        if (f.file) expect(f.file.startsWith(CWD), `${id}: ${f.file}`).toBe(false);
      }
    }
  });
});

/** Runs that were printed by several reporters of one tool: all must give the same counts. */
const SAME_RUN: Record<string, string[]> = {
  "node --test": ["node-test/node20-tap-failing", "node-test/node20-spec-failing", "node-test/node22-tap-failing", "node-test/node22-spec-failing-color"],
  vitest: ["vitest/default-failing", "vitest/verbose-failing", "vitest/json-failing", "vitest/junit-failing"],
  jest: ["jest/default-failing", "jest/ci-color-failing", "jest/json-failing"],
  mocha: ["mocha/spec-failing", "mocha/json-failing", "mocha/tap-failing", "mocha/xunit-failing"],
  pytest: [
    "pytest/pytest7-failing",
    "pytest/pytest7-q-failing",
    "pytest/pytest7-junit-failing",
    "pytest/pytest9-failing-color",
    "pytest/pytest9-q-failing",
    "pytest/pytest9-rA-failing",
    "pytest/pytest9-tb-short",
    "pytest/pytest9-tb-line",
  ],
  // The same projects, new runners and reporters (issue 14): 3 pass, 3 fail (wrong value, thrown in the
  // code under test, rejected promise), 1 skipped, unless said otherwise.
  // AVA 4, 5 and 7 on the same project (the order of the test lines varies from run to run).
  ava: ["ava/default-failing", "ava/tap-failing", "ava/ava4-default-failing", "ava/ava5-default-failing"],
  "ava passing": ["ava/default-passing", "ava/tap-passing"],
  "same 7 tests, 3 runners": ["uvu/default-failing", "jasmine/default-failing", "tap21/default-failing"],
  // One tape file run by tape's CLI and by node: 7 tests printed, a test.skip that prints nothing.
  "tape, finished": ["tape/finished-failing", "tape/node-finished-failing"],
  "node 20 timeout (cancelled)": ["node-test/node20-tap-cancelled", "node-test/node20-junit-cancelled"],
  "jest test.each": ["jest/each-default-failing", "jest/each-verbose-failing", "jest/each-json-failing"],
  "vitest nested suites": [
    "vitest/traps-default-failing",
    "vitest/traps-verbose-failing",
    "vitest/traps-json-failing",
    "vitest/traps-junit-failing",
    "vitest/traps-tap-failing",
    "vitest/traps-tap-flat-failing",
  ],
  "pytest 9 subtests": [
    "pytest/pytest9-subtests-q",
    "pytest/pytest9-subtests-default",
    "pytest/pytest9-subtests-rA",
    "pytest/pytest9-subtests-junit",
    "pytest/pytest9-cd-tests",
  ],
  "go t.Errorf": ["go-test/errorf-verbose", "go-test/errorf-json"],
  "pytest collection error": ["pytest/pytest7-collection-error", "pytest/pytest9-collection-error"],
  unittest: ["unittest/default-failing", "unittest/verbose-failing", "unittest/py3117-verbose-failing"],
  // subTest failures counted by test: 3.11.7 without and with -v, 3.11.2 (3.12.1's `Ran` leaves out the test
  // skipped by a decorator: its counts are its own).
  "unittest subTest": ["unittest/subtests-default", "unittest/subtests-verbose", "unittest/py3112-subtests-verbose"],
  "more-iter (field trial)": ["pytest/more-iter-q-failing", "unittest/more-iter-default-failing"],
  bun: ["bun/default-failing", "bun/junit-failing"],
};

/** Diagnostics printed by one tool in several styles: all must give the same list. */
const SAME_DIAGNOSTICS: Record<string, string[]> = {
  tsc: ["tsc/plain-errors", "tsc/pretty-errors", "tsc/pretty-false-errors"],
  eslint: ["eslint/stylish", "eslint/stylish-color", "eslint/json"],
  "xo 0.54": ["xo/xo054-default", "xo/xo054-color"],
  flake8: ["flake8/default", "flake8/via-python-m"],
  mypy: ["mypy/default", "mypy/pretty"],
  rustc: ["rustc/cargo-build-errors", "rustc/cargo-build-errors-color", "rustc/rustc-direct-errors", "rustc/cargo-build-short"],
};

describe("formats of the same run agree", () => {
  it.each(Object.entries(SAME_RUN))("%s", (_name, group) => {
    const results = group.map((id) => run(loadCase(id)) as TestCounts);
    const countsOf = (r: TestCounts) => ({ passed: r.passed, failed: r.failed, skipped: r.skipped, total: r.total });
    for (const r of results) expect(countsOf(r)).toEqual(countsOf(results[0]!));
  });

  it("every reporter of one run gives each failure the same location", () => {
    const groups = [
      ["ava/default-failing", "ava/tap-failing", "ava/ava4-default-failing", "ava/ava5-default-failing"],
      ["vitest/traps-default-failing", "vitest/traps-json-failing", "vitest/traps-junit-failing", "vitest/traps-tap-flat-failing"],
      ["pytest/pytest9-subtests-q", "pytest/pytest9-subtests-rA", "pytest/pytest9-subtests-junit"],
      ["go-test/errorf-text", "go-test/errorf-verbose", "go-test/errorf-json"],
    ];
    for (const g of groups) {
      // ava --tap gives the assertion's frame only when it is in the project (not for t.is in ava itself).
      const lists = g.map((id) => (run(loadCase(id)) as TestCounts).failures.filter((f) => f.file !== undefined).map((f) => `${f.file}:${f.line}`));
      for (const l of lists.slice(1))
        expect(
          l.every((x) => lists[0]!.includes(x)),
          g.join(" "),
        ).toBe(true);
      expect(lists[0]!.length, g[0]).toBeGreaterThan(0);
    }
  });

  it("ava's default and TAP reporters say a thrown error and a rejection the same way", () => {
    const [text, tap] = ["ava/default-failing", "ava/tap-failing"].map((id) =>
      (run(loadCase(id)) as TestCounts).failures.filter((f) => f.name !== "lib › mul multiplies").map((f) => `${f.name}: ${f.message}`),
    );
    expect(tap).toEqual(text);
    expect(tap![0]).toBe("lib › shout without name: Error thrown in test: TypeError: Cannot read properties of undefined (reading 'toUpperCase')");
  });

  it("vitest's, jest's and node's reporters name each failing test's file alike (failing first runs only those files)", () => {
    const files = (id: string) =>
      (run(loadCase(id)) as TestCounts).failures.map((f) => {
        // What `run` strips for the expectations, read again here.
        const raw = parseTests(loadCase(id).output, { cwd: CWD }).failures.find((g) => g.name === f.name && g.message === f.message);
        return `${f.name} @ ${raw?.testFile}`;
      });
    for (const g of [
      ["vitest/default-failing", "vitest/json-failing", "vitest/verbose-failing"],
      ["vitest/defu-bug-default", "vitest/defu-bug-json", "vitest/defu-bug-verbose"],
      ["vitest/defu-file-errors-default", "vitest/defu-file-errors-json"],
      ["jest/default-failing", "jest/json-failing"],
      // node --test: where each failing test was declared (TAP's `location`, spec's `test at`), even where its error is elsewhere.
      ["node-test/node20-tap-failing", "node-test/node20-spec-failing", "node-test/node22-tap-failing", "node-test/node22-spec-failing-color"],
    ]) {
      const [first, ...rest] = g.map((id) => files(id).sort());
      for (const l of rest) expect(l, g.join(" ")).toEqual(first);
      for (const x of first!) expect(x, g[0]).toMatch(/ @ (?!undefined)\S+\.(test|spec)\.[cm]?[jt]s$/);
    }
    expect(files("node-test/node20-tap-failing").sort()).toEqual([
      "broken.spec.mjs @ broken.spec.mjs",
      "mul multiplies @ math.spec.mjs",
      "value reads nested field @ math.spec.mjs",
    ]);
  });

  it("vitest's text, JSON and JUnit reports name the same failing tests", () => {
    const names = ["vitest/default-failing", "vitest/json-failing", "vitest/junit-failing"].map((id) =>
      (run(loadCase(id)) as TestCounts).failures.map((f) => f.name).sort(),
    );
    expect(names[1]).toEqual(names[0]);
    expect(names[2]).toEqual(names[0]);
  });

  it("pytest's text styles give the same failures with their locations", () => {
    const lists = ["pytest/pytest7-failing", "pytest/pytest9-failing-color", "pytest/pytest9-tb-short"].map((id) =>
      (run(loadCase(id)) as TestCounts).failures.map((f) => `${f.name}@${f.file}:${f.line}`),
    );
    expect(lists[1]).toEqual(lists[0]);
    expect(lists[2]).toEqual(lists[0]);
  });

  it.each(Object.entries(SAME_DIAGNOSTICS))("%s diagnostics", (_name, group) => {
    const results = group.map((id) => run(loadCase(id)));
    for (const r of results) expect(r).toEqual(results[0]);
    expect((results[0] as unknown[]).length).toBeGreaterThan(0);
  });

  it("xo 0.54 and 1.x report the same problems at the same places on the same project", () => {
    const places = (id: string) =>
      (run(loadCase(id)) as { file?: string; line?: number; column?: number; severity: string }[]).map((d) => `${d.file}:${d.line}:${d.column} ${d.severity}`);
    expect(places("xo/xo1-default")).toEqual(places("xo/xo054-default"));
    // A parsing error has no rule; xo 1 names its stylistic rules with their plugin.
    const codes = (id: string) => (run(loadCase(id)) as { code?: string }[]).map((d) => d.code);
    expect(codes("xo/xo054-default")).toEqual(["no-warning-comments", "no-var", "no-unused-vars", "no-eq-null", "eqeqeq", undefined, "semi"]);
    expect(codes("xo/xo1-default").at(-1)).toBe("@stylistic/semi");
  });

  it("pylint's 0-based columns line up with flake8 and mypy on the same file", () => {
    const pylint = parseDiagnostics(loadCase("pylint/default").output.all, { cwd: CWD });
    const flake8 = parseDiagnostics(loadCase("flake8/default").output.all, { cwd: CWD });
    const mypy = parseDiagnostics(loadCase("mypy/strict-columns").output.all, { cwd: CWD });
    // The misspelled `mesage` on line 15 is found by all three at the same column.
    const at = (ds: typeof pylint) => ds.find((d) => d.line === 15)?.column;
    expect(at(pylint)).toBe(at(flake8));
    expect(at(mypy)).toBe(at(flake8));
  });
});

describe("a summary line printed by something besides the runner", () => {
  it("pytest: of several summary lines the one with the most failures counts (code under test printed '11 passed' at exit)", () => {
    for (const id of ["pytest/pytest9-v-failing", "pytest/pytest9-q-failing"]) {
      const text = `${readFileSync(path.join(CORPUS_DIR, `${id}.txt`), "utf8")}========== 11 passed in 0.01s ==========\n`;
      const r = parseTests({ stdout: text, stderr: "", all: text }, { cwd: "/x" })!;
      expect(r, id).toMatchObject({ passed: 5, failed: 4, skipped: 2, total: 11 });
      expect(r.note).toMatch(/2 summary lines/);
    }
  });
});

describe("a unittest summary printed by something besides unittest", () => {
  it("counts the FAIL and ERROR blocks when the last summary counts fewer (code under test printed 'Ran 6 tests ... OK' at exit)", () => {
    const id = "unittest/more-iter-default-failing";
    const text = `${readFileSync(path.join(CORPUS_DIR, `${id}.stderr.txt`), "utf8")}\n----------------------------------------------------------------------\nRan 6 tests in 0.001s\n\nOK\n`;
    const r = parseTests({ stdout: "", stderr: text, all: text }, { cwd: "/x" })!;
    expect(r).toMatchObject({ passed: 4, failed: 2, total: 6 });
    expect(r.note).toMatch(/names 2 failing tests but its last summary counts 0/);
  });
});
