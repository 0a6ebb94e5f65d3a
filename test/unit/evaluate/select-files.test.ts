import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Evaluation } from "../../../src/evaluate/evaluate.js";
import { failingFirstPlan } from "../../../src/evaluate/failing-first-plan.js";
import { selectionFor } from "../../../src/evaluate/select-command.js";
import type { TestCounts, TestFailure } from "../../../src/evaluate/types.js";
import { tmpDir } from "../../helpers/repo.js";

/** Failing first runs only the failing tests' files where the reporter names them (vitest's -t alone imports every file). */

const tests = (failures: TestFailure[]): TestCounts => ({
  passed: 3,
  failed: failures.length,
  skipped: 0,
  total: 3 + failures.length,
  format: "vitest",
  failures,
});
const ev = (t: TestCounts): Evaluation => ({
  commands: { test: { cmd: "t", exitCode: 1, timedOut: false, durationMs: 1, output: "", truncated: false } },
  components: {},
  score: 0,
  testsPass: false,
  diagnostics: [],
  notices: [],
  commandsMs: 1,
  tests: t,
});
const dir = tmpDir("trm-select-files-");
const sel = (cmd: string) => {
  const s = selectionFor(cmd, dir);
  if ("off" in s) throw new Error(s.off);
  return s;
};

describe("failing first's test files", () => {
  it("vitest: the files as filters after -t; jest: each file's path as an anchored regex", () => {
    expect(sel("npx vitest run").command(["a > b"], ["test/a.test.ts", "test/-b.test.ts"])).toBe(
      "npx vitest run '-t' '^(?:a b)$' './test/a.test.ts' './test/-b.test.ts'",
    );
    // vitest reads `file:line` as a line filter: names alone.
    expect(sel("npx vitest run").command(["a > b"], ["test/a:1.test.ts"])).toBe("npx vitest run '-t' '^(?:a b)$'");
    expect(sel("npx jest").command(["a > b"], ["test/a.test.js"])).toBe("npx jest '-t' '^(?:a b)$' '(?:^|/)test\\/a\\.test\\.js$'");
    // A runner without file selection: names alone.
    expect(sel("npx mocha").command(["a > b"], ["test/a.test.js"])).toBe("npx mocha '--grep' '^(?:a b)$'");
  });

  it("node --test: the files at the end of its part, only where node discovers the test files itself and would run these", () => {
    const names = `'--test-name-pattern' '^(?:a b|b)$'`;
    const two = ["test/a.test.js", "test/sp ace/it's.test.mjs"];
    const quoted = `'test/a.test.js' 'test/sp ace/it'\\''s.test.mjs'`;
    // Discovery (no file argument, options only): the files restrict the run to them; options before them.
    expect(sel("node --test").command(["a > b"], two)).toBe(`node --test ${names} ${quoted}`);
    expect(sel("npm run gen && node --test --test-reporter=tap --experimental-test-coverage").command(["a > b"], two)).toBe(
      `npm run gen && node --test ${names} --test-reporter=tap --experimental-test-coverage ${quoted}`,
    );
    // Files named by the command (node 20 runs a folder's test files and each file given: one more adds, never
    // restricts), or a word that may be one (the value of `--test-reporter tap`, a quote, a glob): names alone.
    for (const cmd of [
      "node --test test/",
      "node --test test/a.test.js",
      "node --test --test-reporter tap",
      "node --test 'test/*.test.js'",
      "node --test test/*.js",
    ])
      expect(sel(cmd).command(["a > b"], two), cmd).toBe(sel(cmd).command(["a > b"]));
    expect(sel("node --test test/").command(["a > b"], two)).toBe(`node --test ${names} test/`);
    // A file node would not discover (a helper declaring tests for its importers), one node 22 reads as a
    // glob, one read as an option: names alone.
    // A path through `..` (a location a test printed itself: node prints each file's own) may be any file, in
    // the worktree or out of it: names alone.
    for (const f of [
      "support/declare.js",
      "test/a.test.ts",
      "node_modules/x/test/a.js",
      "test/[id].test.js",
      "-a.test.js",
      "test/../lib.js",
      "test/../../elsewhere/x.test.js",
    ])
      expect(sel("node --test").command(["a > b"], ["test/a.test.js", f]), f).toBe(`node --test ${names}`);
    // Any file under a folder named `test`, and test-*, *.test, *-test, *_test names, are discovered.
    expect(sel("node --test").command(["a > b"], ["test/helpers/x.js", "lib/x_test.cjs", "test-y.mjs"])).toBe(
      `node --test ${names} 'test/helpers/x.js' 'lib/x_test.cjs' 'test-y.mjs'`,
    );
  });

  it("node --test through npm: the files after `--`, not when the npm command gives the script a word that is not an option", () => {
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ scripts: { test: "npm run gen && node --test", gen: "true" } }));
    const names = `'--test-name-pattern' '^(?:a)$'`;
    expect(sel("npm test").command(["a"], ["test/a.test.js"])).toBe(`npm test -- ${names} 'test/a.test.js'`);
    expect(sel("npm test -- --test-reporter=spec").command(["a"], ["test/a.test.js"])).toBe(`npm test -- --test-reporter=spec ${names} 'test/a.test.js'`);
    // `node --test test/a.test.js --test-name-pattern …` takes the option for a file: no selection at all.
    expect(selectionFor("npm test -- test/", dir)).toEqual({ off: expect.stringMatching(/arguments after which node --test would not take options/) });
  });

  it("the plan gives the files only when every selected test's file is known, from the full run and the partial steps since", () => {
    let seen: string[] | undefined;
    const spy = {
      ...sel("npx vitest run"),
      command: (_n: string[], files?: string[]) => {
        seen = files;
        return "cmd";
      },
    };
    failingFirstPlan(
      [
        {
          step: 0,
          evaluation: ev(
            tests([
              { name: "a", testFile: "t/a.test.ts" },
              { name: "b", testFile: "t/b.test.ts" },
              { name: "c", testFile: "t/a.test.ts" },
            ]),
          ),
        },
      ],
      spy,
    );
    expect(seen).toEqual(["t/a.test.ts", "t/b.test.ts"]);
    failingFirstPlan([{ step: 0, evaluation: ev(tests([{ name: "a", testFile: "t/a.test.ts" }, { name: "b" }])) }], spy);
    expect(seen).toBeUndefined();
  });
});
