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
