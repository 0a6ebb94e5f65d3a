import { symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAMP, clampLib as esm, CLAMP_BODIES as JS } from "../helpers/clamp-suite.js";
import { startServer, type TestServer } from "../helpers/client.js";
import { filesOf } from "../helpers/fixtures.js";
import { installRunners, needs, RUNNERS, rustEnv } from "../helpers/real-runners.js";
import { checkoutState, repoFromFiles, tmpDir } from "../helpers/repo.js";

/**
 * Failing first (docs/failing-first.md), each runner run for real through the real server: after a
 * baseline with two failing tests, a step that leaves them failing is judged by those two alone (the
 * selection command, `partial`, `ran 2 of 6`, never best); deleting, skipping or renaming them runs the
 * whole suite, which catches it as at any step; the right fix runs the whole suite and ends the session.
 */

type Any = Record<string, any>;

/** Six tests, two of which (`above …`) fail at the baseline; `SKIP` and `DELETE` mark the first failing one. */
interface Case {
  cmd: string;
  node?: boolean;
  env?: Record<string, string>;
  lib: string;
  source: (body: string) => string;
  bodies: { bug: string; same: string; right: string };
  /** The test file, with the `above falls to hi` test renamed, skipped or deleted when asked. */
  testFile: string;
  tests: (how?: "skip" | "delete" | "rename") => string;
  /** The selection the runner is given (in the command that ran). */
  selection: RegExp;
  /** Every test's name, as the baseline's failures name the failing two. */
  failing: RegExp[];
  other?: Record<string, string>;
}

const TYPE_MODULE = { "package.json": '{ "name": "calc", "private": true, "type": "module" }\n' };

/** A JavaScript suite: `add` and five clamp tests in a describe block (or titled `clamp: …` without one). */
function jsSuite(o: { head: string; test: string; skip: string; describe?: string; eq: (a: string, b: string) => string; end?: string }) {
  return (how?: "skip" | "delete" | "rename") => {
    const one = (fn: string, name: string, a: string, b: string) =>
      `${fn}(${JSON.stringify(name)}, ${o.end === undefined ? `() => { ${o.eq(a, b)}; }` : `(t) => { ${o.eq(a, b)}; ${o.end} }`});`;
    const lines = CLAMP.flatMap(([n, a, b]) => {
      const name = o.describe ? n : `clamp: ${n}`;
      if (n !== "above falls to hi" || !how) return [one(o.test, name, a, b)];
      if (how === "delete") return [];
      return [how === "skip" ? one(o.skip, name, a, b) : one(o.test, `${name} (renamed)`, a, b)];
    });
    const body = o.describe ? `${o.describe}("clamp", () => {\n${lines.map((l) => `  ${l}`).join("\n")}\n});` : lines.join("\n");
    return `${o.head}\n${one(o.test, "add: two and three", "add(2, 3)", "5")}\n${body}\n`;
  };
}
const IMPORT = 'import { add, clamp } from "../lib.js";';
const expectEq = (a: string, b: string) => `expect(${a}).toBe(${b})`;
const assertEq = (a: string, b: string) => `assert.equal(${a}, ${b})`;
const above = [/above falls to hi$/, /far above \(100\) falls to hi$/];

const CASES: Record<string, Case> = {
  vitest: {
    cmd: "npx vitest run",
    node: true,
    lib: "lib.js",
    source: esm,
    bodies: JS,
    testFile: "test/clamp.test.js",
    tests: jsSuite({
      head: `import { describe, expect, test } from "vitest";\n${IMPORT}`,
      test: "test",
      skip: "test.skip",
      describe: "describe",
      eq: expectEq,
    }),
    // The failing tests' file too: only it loads.
    selection: /^npx vitest run '-t' '\^\(\?:clamp above falls to hi\|clamp far above \\\(100\\\) falls to hi\)\$' '\.\/test\/clamp\.test\.js'$/,
    failing: above,
  },
  jest: {
    // Through npm: the arguments follow `--`.
    cmd: "npm test",
    node: true,
    lib: "lib.js",
    source: (b) => `exports.add = (a, b) => a + b;\nexports.clamp = (x, lo, hi) => ${b};\n`,
    bodies: JS,
    testFile: "test/clamp.test.js",
    tests: jsSuite({ head: 'const { add, clamp } = require("../lib.js");', test: "test", skip: "test.skip", describe: "describe", eq: expectEq }),
    selection: /^npm test -- '-t' '\^\(\?:clamp above falls to hi\|clamp far above/,
    failing: above,
    other: { "package.json": '{ "name": "calc", "private": true, "scripts": { "test": "jest" } }\n' },
  },
  mocha: {
    cmd: "npx mocha",
    node: true,
    lib: "lib.js",
    source: esm,
    bodies: JS,
    testFile: "test/clamp.test.js",
    tests: jsSuite({ head: `import assert from "node:assert/strict";\n${IMPORT}`, test: "it", skip: "it.skip", describe: "describe", eq: assertEq }),
    selection: /^npx mocha '--grep' '\^\(\?:clamp above falls to hi\|/,
    failing: above,
  },
  ava: {
    cmd: "npx ava",
    node: true,
    lib: "lib.js",
    source: esm,
    bodies: JS,
    testFile: "test/clamp.test.js",
    tests: jsSuite({ head: `import test from "ava";\n${IMPORT}`, test: "test", skip: "test.skip", eq: (a, b) => `t.is(${a}, ${b})`, end: "" }),
    selection: /^npx ava '--match=clamp: above falls to hi' '--match=clamp: far above \(100\) falls to hi'$/,
    failing: above,
  },
  "node:test": {
    // Its options go before the file arguments.
    cmd: "node --test test/",
    lib: "lib.js",
    source: esm,
    bodies: JS,
    testFile: "test/clamp.test.js",
    tests: jsSuite({
      head: `import { describe, test } from "node:test";\nimport assert from "node:assert/strict";\n${IMPORT}`,
      test: "test",
      skip: "test.skip",
      describe: "describe",
      eq: assertEq,
    }),
    selection: /^node --test '--test-name-pattern' '\^\(\?:clamp above falls to hi\|above falls to hi\|.*' test\/$/,
    failing: above,
  },
  pytest: {
    cmd: "python3 -m pytest -q",
    lib: "calc.py",
    source: (b) => `def clamp(x, lo, hi):\n    return ${b}\n`,
    bodies: { bug: "max(lo, x)", same: "max(lo, x) + 0", right: "min(hi, max(lo, x))" },
    testFile: "tests/test_calc.py",
    tests: (how) => {
      const t = (name: string, a: string, b: string) => `def test_${name}():\n    assert ${a} == ${b}\n`;
      const cases = [
        ["inside", "clamp(5, 0, 10)", "5"],
        ["below", "clamp(-1, 0, 10)", "0"],
        ["above", "clamp(11, 0, 10)", "10"],
        ["far_above", "clamp(100, 0, 10)", "10"],
        ["at_hi", "clamp(10, 0, 10)", "10"],
        ["add", "1 + 1", "2"],
      ];
      return `import pytest\nfrom calc import clamp\n\n${cases
        .flatMap(([n, a, b]) =>
          n !== "above" || !how
            ? [t(n!, a!, b!)]
            : how === "delete"
              ? []
              : how === "skip"
                ? [`@pytest.mark.skip\n${t(n!, a!, b!)}`]
                : [t(`${n}_renamed`, a!, b!)],
        )
        .join("\n")}`;
    },
    selection: /^python3 -m pytest -q 'tests\/test_calc\.py::test_above' 'tests\/test_calc\.py::test_far_above'$/,
    failing: [/test_above$/, /test_far_above$/],
    other: { "pytest.ini": "[pytest]\npythonpath = .\n", ".gitignore": "__pycache__\n.pytest_cache\n" },
  },
};

let srv: TestServer;
beforeAll(async () => {
  installRunners();
  srv = await startServer({ env: { ...rustEnv(), TMPDIR: tmpDir("trm-ff-tmp-") } });
}, 600_000);
afterAll(async () => {
  await srv?.close();
});

function repoOf(c: Case): string {
  const dir = repoFromFiles(
    { ".gitignore": "node_modules\n", ...TYPE_MODULE, ...c.other, [c.lib]: c.source(c.bodies.bug), [c.testFile]: c.tests() },
    "trm-ff-",
  );
  if (c.node) symlinkSync(path.join(RUNNERS, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}

async function start(c: Case, repo: string, extra: Any = {}): Promise<Any> {
  return srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: c.cmd, preflight: true, ...(c.node ? { linkPaths: ["node_modules"] } : {}), ...extra });
}

const submit = (sessionId: string, files: Record<string, string>, rationale: string) =>
  srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesOf(files), rationale });

const commandOf = (r: Any, kind: string) => (r.commandMs ? Object.keys(r.commandMs) : []).includes(kind);

describe.concurrent("failing first, each runner run for real", () => {
  for (const [name, c] of Object.entries(CASES)) {
    const tools = name === "pytest" ? needs(["pytest"]) : { skip: false, why: "" };
    it.skipIf(tools.skip)(
      `${name}: \`${c.cmd}\` judges a step that leaves the failing tests failing by them alone, then runs the whole suite for the fix${tools.why}`,
      async () => {
        const repo = repoOf(c);
        const before = checkoutState(repo);
        const s = await start(c, repo);
        expect(s.notes.join("\n")).toMatch(/failing first: after a step with failing tests/);
        expect(s.preflight.tests).toMatchObject({ passed: 4, failed: 2, total: 6 });
        expect(s.preflight.tests.failures.map((f: Any) => f.name)).toEqual(c.failing.map((re) => expect.stringMatching(re)));

        const same = await submit(s.sessionId, { [c.lib]: c.source(c.bodies.same) }, "a change that fixes nothing");
        const log = await srv.call<Any>("trm_read_log", { sessionId: s.sessionId, at: "1", command: "test", limit: 100_000 });
        expect(same.partial, `${same.feedback}\n${log.content}`).toBe(true);
        expect(same.ran).toBe("2 of 6");
        const state = await srv.call<Any>("trm_get_state", { sessionId: s.sessionId });
        expect(state.last.commands.map((x: Any) => x.cmd)).toEqual([expect.stringMatching(c.selection)]);
        // The two still fail; the four that did not run count as they were at step 0: 4 / 6, as the baseline.
        expect(same.tests).toMatchObject({ passed: 4, failed: 2, total: 6 });
        expect(same.score).toBeCloseTo(4 / 6, 6);
        expect(same.improved).toBe(false);
        expect(same.shouldHalt).toBe(false);
        expect(same.feedback).toMatch(/PARTIAL: ran 2 of 6/);
        expect(same.feedback).toMatch(/Still fail: .*above.*far_? ?above.*\. The other 4 did not run: they count as they were at step 0/);

        const right = await submit(s.sessionId, { [c.lib]: c.source(c.bodies.right) }, "clamp to both bounds");
        expect(right.partial).toBeUndefined();
        expect(commandOf(right, "failingFirst")).toBe(true);
        expect(right.feedback).toMatch(/Failing first: the 2 tests that failed at step 0 pass now, so the whole suite ran/);
        expect(right.tests).toMatchObject({ passed: 6, failed: 0, total: 6 });
        expect(right.score).toBe(1);
        expect(right.shouldHalt).toBe(true);
        expect(checkoutState(repo)).toEqual(before);
        await srv.call("trm_end_session", { sessionId: s.sessionId, discard: true });
      },
      240_000,
    );

    it.skipIf(tools.skip)(
      `${name}: deleting, skipping or renaming a selected test runs the whole suite, which judges it as at any step${tools.why}`,
      async () => {
        const s = await start(c, repoOf(c));
        for (const how of ["delete", "skip", "rename"] as const) {
          // The fix of the other failing test, with the first one gone: never 1, never partial.
          const r = await submit(s.sessionId, { [c.lib]: c.source(c.bodies.right), [c.testFile]: c.tests(how) }, `fix and ${how} a failing test`);
          expect(r.partial, `${how}: ${r.feedback}`).toBeUndefined();
          // Not found by the runner (pytest: "not found", exit 4), or fewer or other tests than selected ran.
          expect(r.feedback).toMatch(/Failing first: .*(did not run among the selected tests|ran for the 2 selected|matched no test)/);
          if (how !== "rename") {
            expect(r.score, `${how}: ${r.feedback}`).toBeLessThan(1);
            expect(r.shouldHalt).toBe(false);
            expect(r.feedback).toMatch(/now (skipped|missing)|went missing|skipped at step|fewer tests? ran|more tests? skipped/);
          } else {
            // A renamed test is judged by the whole suite as at any step: by name where the output names every test
            // (the old name went missing), by count where it names only the failing ones (the same test, passing).
            expect(r.feedback).toMatch(/went missing|tests 6\/6 passed/);
          }
          await srv.call("trm_undo", { sessionId: s.sessionId });
        }
        await srv.call("trm_end_session", { sessionId: s.sessionId, discard: true });
      },
      240_000,
    );
  }
});

describe("failing first, the rules around it", () => {
  const c = CASES.vitest!;
  it("selectTests: false runs the whole suite at every step, and gives the same final verdicts", async () => {
    const s = await start(c, repoOf(c), { selectTests: false });
    expect(s.notes).toContain("failing first: off (selectTests: false); every step runs the whole suite.");
    const same = await submit(s.sessionId, { [c.lib]: c.source(c.bodies.same) }, "fixes nothing");
    expect(same.partial).toBeUndefined();
    expect(same.tests).toMatchObject({ passed: 4, failed: 2, total: 6 });
    expect(same.score).toBeCloseTo(4 / 6, 6);
    const right = await submit(s.sessionId, { [c.lib]: c.source(c.bodies.right) }, "fix");
    expect(right.score).toBe(1);
    expect(right.shouldHalt).toBe(true);
  }, 120_000);

  it("a partial step whose score would beat the best does not become best, and only a full run ends the session", async () => {
    // Fixing one of the two: 5 / 6 on the partial count, above the baseline's 4 / 6, yet not an improvement.
    const s = await start(c, repoOf(c));
    const half = await submit(s.sessionId, { [c.lib]: c.source("x === 11 ? 10 : Math.max(lo, x)") }, "fixes one");
    expect(half.partial).toBe(true);
    expect(half.ran).toBe("2 of 6");
    expect(half.score).toBeCloseTo(5 / 6, 6);
    expect(half.improved).toBe(false);
    expect(half.bestScore).toBeCloseTo(4 / 6, 6);
    expect(half.noImproveStreak).toBe(1);
    expect(half.feedback).toMatch(/Now pass: clamp > above falls to hi\. Still fail: clamp > far above \(100\) falls to hi\./);
    // The next step selects the one still failing and the one fixed at step 1 too (both failed at the last full run).
    const again = await submit(s.sessionId, { [c.lib]: c.source("x === 11 ? 10 : Math.max(lo, x) + 0") }, "same again");
    expect(again.partial).toBe(true);
    expect(again.ran).toBe("2 of 6");
    expect(again.noImproveStreak).toBe(2);
  }, 120_000);

  const py = CASES.pytest!;
  const pyTools = needs(["pytest"]);
  it.skipIf(pyTools.skip)(
    `a command that names its test folder (\`pytest -rA tests\`) runs every test besides the selection: that run is the step's full run${pyTools.why}`,
    async () => {
      const repo = repoOf(py);
      const before = checkoutState(repo);
      const s = await start(py, repo, { testCmd: "python3 -m pytest -rA tests" });
      // Fixing one of the two: 5 / 6, and every test ran, so it improves on the baseline and becomes best.
      const half = await submit(s.sessionId, { [py.lib]: py.source("min(hi, max(lo, x)) if x < 50 else x") }, "fixes one");
      expect(half.partial, half.feedback).toBeUndefined();
      expect(half.tests).toMatchObject({ passed: 5, failed: 1, total: 6 });
      expect(half.improved).toBe(true);
      expect(half.bestScore).toBeCloseTo(5 / 6, 6);
      expect(half.feedback).toMatch(/ran all 6 tests, every one of the last full run's/);
      // One run, not the selection and then the suite again.
      expect(commandOf(half, "failingFirst")).toBe(false);
      const right = await submit(s.sessionId, { [py.lib]: py.source(py.bodies.right) }, "fix");
      expect(right.score).toBe(1);
      expect(right.shouldHalt).toBe(true);
      expect(commandOf(right, "failingFirst")).toBe(false);
      expect(checkoutState(repo)).toEqual(before);
    },
    120_000,
  );

  it.skipIf(pyTools.skip)(
    `pytest with its JUnit report (testReport): no selection of names it cannot take, one run per step, said at the start${pyTools.why}`,
    async () => {
      const repo = repoOf(py);
      const s = await start(py, repo, { testCmd: "python3 -m pytest -q --junitxml=report.xml", testReport: "report.xml" });
      expect(s.notes.join("\n")).toMatch(/failing first: not available with testReport \(pytest: its JUnit report names tests by module and class/);
      const same = await submit(s.sessionId, { [py.lib]: py.source(py.bodies.same) }, "fixes nothing");
      expect(same.partial).toBeUndefined();
      expect(same.tests).toMatchObject({ passed: 4, failed: 2, total: 6 });
      // Before: the report's names (`tests.test_calc.test_above`) given to pytest, "not found", then the suite.
      expect(commandOf(same, "failingFirst")).toBe(false);
      expect(same.feedback).not.toMatch(/Failing first/);
    },
    120_000,
  );

  it("a runner the command does not name, or a pipe, runs the whole suite and says why at the start", async () => {
    const repo = repoOf(c);
    const piped = await start(c, repo, { testCmd: "npx vitest run 2>&1 | cat" });
    expect(piped.notes.join("\n")).toMatch(/failing first: not available \(the test command is not a plain command/);
    const same = await submit(piped.sessionId, { [c.lib]: c.source(c.bodies.same) }, "fixes nothing");
    expect(same.partial).toBeUndefined();
    expect(same.tests).toMatchObject({ passed: 4, failed: 2 });
  }, 120_000);
});

const go = needs(["go"]);
const cargo = needs(["cargo"]);
describe.concurrent("failing first with native runners", () => {
  it.skipIf(go.skip)(
    `go test -v: -run with the failing tests' package${go.why}`,
    async () => {
      const lib = (body: string) => `package calc\n\nfunc Clamp(x, lo, hi int) int {\n\t${body}\n}\n`;
      const bug = "if x < lo {\n\t\treturn lo\n\t}\n\treturn x";
      const repo = repoFromFiles({
        "go.mod": "module example.com/calc\n\ngo 1.19\n",
        "calc.go": lib(bug),
        "calc_test.go": `package calc\n\nimport "testing"\n\nfunc TestInside(t *testing.T) { if Clamp(5, 0, 10) != 5 { t.Fatal("inside") } }\nfunc TestBelow(t *testing.T) { if Clamp(-1, 0, 10) != 0 { t.Fatal("below") } }\nfunc TestAbove(t *testing.T) { if Clamp(11, 0, 10) != 10 { t.Fatal("above") } }\nfunc TestFarAbove(t *testing.T) { if Clamp(100, 0, 10) != 10 { t.Fatal("far") } }\n`,
      });
      const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "go test -v ./...", preflight: true, timeoutSec: 300 });
      expect(s.preflight.tests).toMatchObject({ passed: 2, failed: 2 });
      const same = await submit(s.sessionId, { "calc.go": lib(`${bug} + 0`) }, "nothing");
      const state = await srv.call<Any>("trm_get_state", { sessionId: s.sessionId });
      expect(same.partial, same.feedback).toBe(true);
      expect(same.ran).toBe("2 of 4");
      expect(state.last.commands[0].cmd).toBe("go test -v ./... 'example.com/calc' '-run' '^(?:TestAbove|TestFarAbove)$'");
      const right = await submit(s.sessionId, { "calc.go": lib(`if x < lo {\n\t\treturn lo\n\t}\n\tif x > hi {\n\t\treturn hi\n\t}\n\treturn x`) }, "fix");
      expect(right.score).toBe(1);
      expect(right.shouldHalt).toBe(true);
    },
    300_000,
  );

  it.skipIf(cargo.skip)(
    `cargo test: libtest filters after --, --exact${cargo.why}`,
    async () => {
      const lib = (body: string) =>
        `pub fn clamp(x: i32, lo: i32, hi: i32) -> i32 { let _ = hi; ${body} }\n#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test] fn inside() { assert_eq!(clamp(5, 0, 10), 5); }\n    #[test] fn above() { assert_eq!(clamp(11, 0, 10), 10); }\n    #[test] fn above_far() { assert_eq!(clamp(100, 0, 10), 10); }\n}\n`;
      const repo = repoFromFiles({
        "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/lib.rs": lib("x.max(lo)"),
        ".gitignore": "target\n",
      });
      const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "cargo test --offline", preflight: true, timeoutSec: 300 });
      expect(s.preflight.tests).toMatchObject({ passed: 1, failed: 2 });
      const same = await submit(s.sessionId, { "src/lib.rs": lib("x.max(lo) + 0") }, "nothing");
      expect(same.partial, same.feedback).toBe(true);
      expect(same.ran).toBe("2 of 3");
      const state = await srv.call<Any>("trm_get_state", { sessionId: s.sessionId });
      expect(state.last.commands[0].cmd).toMatch(/^cargo test --offline '--' '--exact' 'tests::above(_far)?' 'tests::above(_far)?'$/);
      const right = await submit(s.sessionId, { "src/lib.rs": lib("x.max(lo).min(hi)") }, "fix");
      expect(right.score).toBe(1);
    },
    300_000,
  );
});
