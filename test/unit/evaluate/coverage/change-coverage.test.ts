import { symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isTestFile, parseAddedHunks } from "../../../../src/evaluate/coverage/changed-lines.js";
import { appendArgs } from "../../../../src/evaluate/coverage/command-args.js";
import { executableLines, mappedOriginalLines } from "../../../../src/evaluate/coverage/executable-lines.js";
import { readIstanbulJson } from "../../../../src/evaluate/coverage/line-hits.js";
import { crossCoverage } from "../../../../src/evaluate/coverage/uncovered.js";
import { tmpDir } from "../../../helpers/repo.js";

describe("the change's added lines", () => {
  it("reads the new side of -U0 hunks: a count of 0 adds nothing, a missing count is one line", () => {
    const diff = "@@ -3,0 +4,2 @@ f\n+a\n+b\n@@ -10,2 +11,0 @@\n-x\n-y\n@@ -20 +19 @@\n-p\n+q\n";
    expect(parseAddedHunks(diff)).toEqual([
      { start: 4, end: 5 },
      { start: 19, end: 19 },
    ]);
  });

  it("tells test files from the code under test", () => {
    expect(isTestFile("src/a.test.ts")).toBe(true);
    expect(isTestFile("test/helpers/x.js")).toBe(true);
    expect(isTestFile("src/__tests__/x.tsx")).toBe(true);
    expect(isTestFile("src/testing-lib.ts")).toBe(false);
    expect(isTestFile("src/contest.ts")).toBe(false);
    // jshttp/content-type 5f65f1c: src/index.bench.ts (vitest bench) was reported as untested code.
    expect(isTestFile("src/index.bench.ts")).toBe(true);
    expect(isTestFile("benchmarks/parse.js")).toBe(true);
    expect(isTestFile("src/workbench.ts")).toBe(false);
  });

  it("names tests by the one list (evaluate/test-paths.ts), plus fixtures and benchmarks", () => {
    // Gained: the session's names coverage lacked (node --test, AVA, Cypress, tsd, Django) and specs/, Tests/, __snapshots__/.
    for (const f of ["lib/parse-test.js", "lib/parse_test.mjs", "a_spec.js", "a.tests.js", "src/a.cy.ts", "index.test-d.ts", "test-parse.js"])
      expect(isTestFile(f), f).toBe(true);
    for (const f of ["app/tests.py", "test.py", "specs/a.js", "Tests/helpers.py", "src/__snapshots__/a.js"]) expect(isTestFile(f), f).toBe(true);
    // Kept: its own extras, and what it had.
    for (const f of ["fixtures/a.js", "test/fixture/b.py", "bench/a.js", "benchmark/a.go", "src/a.bench.mts", "src/a.e2e.ts", "x/testdata/a.go"])
      expect(isTestFile(f), f).toBe(true);
    // Still code under test: a module about tests below the root, a package's own test helpers.
    for (const f of ["src/evaluate/test-strength.ts", "src/test-runner/test-runner.ts", "mylib/testing/__init__.py", "src/Test/helper.js", "src/spec.ts"])
      expect(isTestFile(f), f).toBe(false);
  });
});

describe("executable lines", () => {
  it("decodes source-map line deltas, including negative ones", () => {
    // AAAA: line 0; AACA: +1; AAEA: +2; AAHA: -3 (back to 0).
    expect([...mappedOriginalLines("AAAA;AACA;AAEA,AAHA")].sort()).toEqual([0, 1, 3]);
  });

  it("leaves out type-only lines, comments and blank lines of TypeScript", async () => {
    const src = ["export interface A {", "  x: number;", "}", "// note", "", "export function f(a: A): number {", "  return a.x + 1;", "}"].join("\n");
    const lines = await executableLines("src/f.ts", src);
    expect(lines).not.toBeNull();
    expect([1, 2, 3, 4, 5].some((l) => lines!.has(l))).toBe(false);
    expect(lines!.has(6) && lines!.has(7)).toBe(true);
  });
});

describe("crossing the added lines with what ran", () => {
  const changed = new Map([
    [
      "src/a.ts",
      [
        { start: 2, end: 4 },
        { start: 8, end: 9 },
      ],
    ],
    ["src/b.ts", [{ start: 1, end: 2 }]],
  ]);
  const hits = new Map([
    [
      "src/a.ts",
      new Map([
        [2, 3],
        [3, 0],
        [4, 0],
        [8, 1],
        [9, 1],
      ]),
    ],
  ]);

  it("makes one finding per hunk with an unrun executable line, and one for a file no test loaded", () => {
    const r = crossCoverage(
      changed,
      hits,
      new Map([
        ["src/a.ts", new Set([2, 3, 4, 8, 9])],
        ["src/b.ts", new Set([2])],
      ]),
    );
    expect(r.uncovered).toEqual([
      { file: "src/a.ts", start: 3, end: 4, lines: [3, 4], loaded: true },
      { file: "src/b.ts", start: 2, end: 2, lines: [2], loaded: false },
    ]);
    expect(r.covered.get("src/a.ts")).toEqual([2, 8, 9]);
    expect([r.added, r.ran]).toEqual([6, 3]);
  });

  it("does not report a line that is not code (a comment added in an unrun block)", () => {
    const r = crossCoverage(new Map([["src/a.ts", [{ start: 3, end: 4 }]]]), hits, new Map([["src/a.ts", new Set([2, 8, 9])]]));
    expect(r.uncovered).toEqual([]);
  });

  it("reads Istanbul's JSON for the wanted files inside the checkout only", () => {
    const dir = tmpDir("trm-cov-");
    const stmt = (line: number) => ({ start: { line, column: 0 }, end: { line, column: 5 } });
    writeFileSync(
      path.join(dir, "c.json"),
      JSON.stringify({
        [path.join(dir, "src/a.ts")]: { statementMap: { 0: stmt(2), 1: stmt(3) }, s: { 0: 1, 1: 0 } },
        "/etc/x.ts": { statementMap: { 0: stmt(1) }, s: { 0: 1 } },
      }),
    );
    const hits = readIstanbulJson(path.join(dir, "c.json"), dir, new Set(["src/a.ts", "../etc/x.ts"]));
    expect([...hits.keys()]).toEqual(["src/a.ts"]);
    expect([...hits.get("src/a.ts")!]).toEqual([
      [2, 1],
      [3, 0],
    ]);
    // A report that is a link to /dev/zero is not read forever.
    symlinkSync("/dev/zero", path.join(dir, "z.json"));
    expect(readIstanbulJson(path.join(dir, "z.json"), dir, new Set(["src/a.ts"])).size).toBe(0);
  });

  it("counts a line inside a multi-line statement as its innermost statement ran (unjs/ufo 47f4070: a call added to a `return (…)` chain)", () => {
    const dir = tmpDir("trm-cov-");
    const span = (start: number, end: number) => ({ start: { line: start, column: 2 }, end: { line: end, column: 1 } });
    writeFileSync(
      path.join(dir, "c.json"),
      JSON.stringify({
        // return ( … ) over lines 10-15, a callback's body on 12-13 that never ran, a 5,000-line statement.
        [path.join(dir, "src/a.ts")]: { statementMap: { 0: span(10, 15), 1: span(12, 13), 2: span(100, 5100) }, s: { 0: 3, 1: 0, 2: 1 } },
      }),
    );
    const lines = readIstanbulJson(path.join(dir, "c.json"), dir, new Set(["src/a.ts"])).get("src/a.ts")!;
    expect([10, 11, 12, 13, 14, 15].map((l) => lines.get(l))).toEqual([3, 3, 0, 0, 3, 3]);
    // Too long to be an expression: its first line only (a hostile report could span millions).
    expect([lines.get(100), lines.get(101), lines.get(5100)]).toEqual([1, undefined, undefined]);
  });
});

describe("runner arguments added to the test command", () => {
  it("passes them through npm with --, as they are elsewhere, and not to a chain", () => {
    expect(appendArgs("npm test", ["--coverage"])).toBe("npm test -- '--coverage'");
    expect(appendArgs("npm run test:unit -- --silent", ["-t", "a b"])).toBe("npm run test:unit -- --silent '-t' 'a b'");
    expect(appendArgs("npx jest", ["--coverage"])).toBe("npx jest '--coverage'");
    expect(appendArgs("npm run build && npx jest", ["--coverage"])).toBeNull();
    expect(appendArgs("npx jest | tee log", ["--coverage"])).toBeNull();
    expect(appendArgs("npx jest -t 'a && b'", ["--coverage"])).toBe("npx jest -t 'a && b' '--coverage'");
  });

  it("not to a package script that is a chain: npm adds them at its end, to its last command", () => {
    // tj/commander.js: "test": "jest && npm run check:type:ts" gave jest's coverage arguments to tsc.
    expect(appendArgs("npm test", ["--coverage"], "jest && npm run check:type:ts")).toBeNull();
    expect(appendArgs("pnpm test", ["--coverage"], "vitest run | tee log")).toBeNull();
    expect(appendArgs("npm test", ["--coverage"], "jest --ci")).toBe("npm test -- '--coverage'");
  });
});

describe("a runner whose tests Node's own coverage cannot see", () => {
  it("reports no line unrun when it wrote no coverage report of its own, and keeps what other processes ran", async () => {
    const { measureChangeCoverage } = await import("../../../../src/evaluate/coverage/run-coverage.js");
    const { mkdirSync } = await import("node:fs");
    const dir = tmpDir("trm-cov-");
    mkdirSync(path.join(dir, "src"));
    mkdirSync(path.join(dir, "tools"));
    writeFileSync(path.join(dir, "src/a.js"), "exports.f = function () {\n  return 1;\n};\nexports.g = function () {\n  return 2;\n};\n");
    // Named as Jest: run in Node's own way, it loads the file (as a child process of a Jest test does) and
    // ignores Jest's coverage arguments, so no coverage-final.json is written.
    writeFileSync(path.join(dir, "tools/jest.js"), "require('../src/a.js').f();\n");
    const changed = new Map([
      [
        "src/a.js",
        [
          { start: 2, end: 2 },
          { start: 5, end: 5 },
        ],
      ],
    ]);
    const r = await measureChangeCoverage({ cwd: dir, testCmd: "node tools/jest.js", changed, timeoutSec: 60 });
    expect(r.measured).toBe(true);
    expect(r.covered.get("src/a.js")).toEqual([2]);
    // Line 5 may be run by tests inside Jest's vm, which V8 does not map: not a fact, so not reported.
    expect(r.uncovered).toEqual([]);
    expect(r.notes.join(" ")).toMatch(/Jest wrote no coverage report/);
  }, 60_000);
});

describe("Vitest's own report, with a failing test", () => {
  it("is written and read: the change's lines are measured though a test fails", async () => {
    const { measureChangeCoverage } = await import("../../../../src/evaluate/coverage/run-coverage.js");
    const { installRunners, RUNNERS } = await import("../../../helpers/real-runners.js");
    const { mkdirSync, symlinkSync } = await import("node:fs");
    installRunners();
    const dir = tmpDir("trm-cov-vitest-");
    mkdirSync(path.join(dir, "src"));
    mkdirSync(path.join(dir, "test"));
    symlinkSync(path.join(RUNNERS, "node_modules"), path.join(dir, "node_modules"));
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module", devDependencies: { vitest: "*", "@vitest/coverage-v8": "*" } }));
    writeFileSync(path.join(dir, "src/a.js"), "export function f(x) {\n  if (x > 0) {\n    return 1;\n  }\n  return 2;\n}\n");
    writeFileSync(
      path.join(dir, "test/a.test.js"),
      'import { expect, test } from "vitest";\nimport { f } from "../src/a.js";\ntest("pos", () => expect(f(1)).toBe(1));\ntest("broken", () => expect(1).toBe(2));\n',
    );
    const changed = new Map([
      [
        "src/a.js",
        [
          { start: 3, end: 3 },
          { start: 5, end: 5 },
        ],
      ],
    ]);
    const r = await measureChangeCoverage({ cwd: dir, testCmd: "npx vitest run", changed, timeoutSec: 120 });
    expect(r.exitCode).not.toBe(0);
    expect(r.notes.join(" ")).not.toMatch(/wrote no coverage report/);
    expect(r.measured).toBe(true);
    expect(r.covered.get("src/a.js")).toEqual([3]);
    expect(r.uncovered.map((u) => u.file)).toEqual(["src/a.js"]);
  }, 180_000);
});

describe("a hostile NODE_V8_COVERAGE folder", () => {
  it("huge files (sparse: nothing on disk) are not read whole one after the other: the folder is read within a total cap", async () => {
    const { readV8Dir } = await import("../../../../src/evaluate/coverage/line-hits.js");
    const { mkdirSync, truncateSync } = await import("node:fs");
    const root = tmpDir();
    const dir = path.join(root, "v8");
    mkdirSync(dir);
    for (let i = 0; i < 60; i++) {
      writeFileSync(path.join(dir, `coverage-${i}.json`), "");
      truncateSync(path.join(dir, `coverage-${i}.json`), 190_000_000);
    }
    const t0 = performance.now();
    const r = await readV8Dir(dir, root, new Set(["src/a.js"]));
    expect(r.projectScripts).toBe(0);
    expect(performance.now() - t0).toBeLessThan(8000);
  }, 240_000);
});

describe("a hostile NODE_V8_COVERAGE report", () => {
  it("thousands of scripts naming one small file of the checkout do not cost a large read each", async () => {
    const { readV8Dir } = await import("../../../../src/evaluate/coverage/line-hits.js");
    const { mkdirSync } = await import("node:fs");
    const root = tmpDir();
    mkdirSync(path.join(root, "v8"));
    writeFileSync(path.join(root, "x.js"), "1;\n");
    const result = Array.from({ length: 20_000 }, () => ({ url: `file://${root}/x.js`, functions: [] }));
    writeFileSync(path.join(root, "v8", "coverage-1.json"), JSON.stringify({ result }));
    const t0 = performance.now();
    await readV8Dir(path.join(root, "v8"), root, new Set(["src/a.js"]));
    expect(performance.now() - t0).toBeLessThan(8000);
  }, 240_000);
});
