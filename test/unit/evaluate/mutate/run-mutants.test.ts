import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runMutants } from "../../../../src/evaluate/mutate/run-mutants.js";
import { ROOT, tmpDir } from "../../../helpers/repo.js";

function checkoutOf(files: Record<string, string>): string {
  const dir = tmpDir("trm-run-mutants-");
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const CLI = 'const x = Number(process.argv[2]);\nprocess.stdout.write(x > 1 ? "big" : "small");\n';

describe("running the mutants of a change", () => {
  it("kills a mutant of code the tests run in a child process with a clean environment (an environment switch would not reach it)", async () => {
    // CLI tests often spawn the program with an environment of their own: a mutant switched on by an
    // environment variable (Stryker's mutant schemata) is never active there and would "survive" every test.
    const cwd = checkoutOf({
      "package.json": '{"type":"module"}\n',
      "src/cli.js": CLI,
      "test/cli.test.js": [
        'import { test } from "node:test";',
        'import assert from "node:assert";',
        'import { spawnSync } from "node:child_process";',
        'const run = (n) => spawnSync(process.execPath, ["src/cli.js", n], { env: {}, encoding: "utf8" }).stdout;',
        'test("2 is big", () => assert.strictEqual(run("2"), "big"));',
        'test("1 is small", () => assert.strictEqual(run("1"), "small"));',
        "",
      ].join("\n"),
    });
    const r = await runMutants({
      checkout: async () => cwd,
      parallel: 1,
      testCmd: "node --test",
      covered: new Map([["src/cli.js", [2]]]),
      budgetMs: 120_000,
      timeoutSec: 60,
    });
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({ file: "src/cli.js", line: 2, status: "killed" });
    expect(readFileSync(path.join(cwd, "src/cli.js"), "utf8")).toBe(CLI);
  }, 120_000);

  it("runs the whole suite when the related run ran no test: Vitest with passWithNoTests relates none to a CLI its tests spawn", async () => {
    // `vitest related --run src/cli.js` finds no test importing the file and, with passWithNoTests (a config's,
    // ts-scripts' default), exits 0: taken as the baseline, it passed every mutant, a false survivor.
    const cwd = checkoutOf({
      "package.json": '{"type":"module"}\n',
      "vitest.config.js": 'export default { cacheDir: ".vite-cache", test: { passWithNoTests: true } };\n',
      "src/cli.js": CLI,
      "test/cli.test.js": [
        'import { expect, test } from "vitest";',
        'import { spawnSync } from "node:child_process";',
        'const run = (n) => spawnSync(process.execPath, ["src/cli.js", n], { encoding: "utf8" }).stdout;',
        'test("2 is big", () => expect(run("2")).toBe("big"));',
        'test("1 is small", () => expect(run("1")).toBe("small"));',
        "",
      ].join("\n"),
    });
    symlinkSync(path.join(ROOT, "node_modules"), path.join(cwd, "node_modules"), "dir");
    const r = await runMutants({
      checkout: async () => cwd,
      parallel: 1,
      testCmd: "npx vitest run",
      covered: new Map([["src/cli.js", [2]]]),
      budgetMs: 120_000,
      timeoutSec: 60,
    });
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({ file: "src/cli.js", line: 2, status: "killed", cmd: "npx vitest run" });
  }, 120_000);

  it("a survivor names the tests that ran, as the output names them", async () => {
    const cwd = checkoutOf({
      "package.json": '{"type":"module"}\n',
      "src/a.js": "export function f(x) {\n  return x + 1;\n}\n",
      "test/a.test.js": [
        'import { test } from "node:test";',
        'import { f } from "../src/a.js";',
        'test("f runs", () => { f(1); });',
        'test("f runs again", () => { f(2); });',
        "",
      ].join("\n"),
    });
    const r = await runMutants({
      checkout: async () => cwd,
      parallel: 1,
      testCmd: "node --test",
      covered: new Map([["src/a.js", [2]]]),
      budgetMs: 120_000,
      timeoutSec: 60,
    });
    expect(r.survived).toHaveLength(1);
    expect(r.survived[0]!.tests).toEqual({ passed: 2, names: ["f runs", "f runs again"] });
  }, 120_000);

  it("a Python mutant runs as written, not as the bytecode Python cached for another of the same size in the same second", async () => {
    // Python reuses __pycache__/*.pyc while the source's mtime (whole seconds) and size match it: `x + 1` → `x - 1`
    // on a checked line and on an unchecked one make files of one size, written a few milliseconds apart.
    const pairs = 4;
    const src = Array.from({ length: pairs }, (_, i) => `def checked${i}(x):\n    return x + 1\n\n\ndef unchecked${i}(x):\n    return x + 1\n`).join("\n\n");
    const tests = [
      "import unittest",
      "from m import *",
      "class T(unittest.TestCase):",
      ...Array.from({ length: pairs }, (_, i) => `    def test_${i}(self):\n        self.assertEqual(checked${i}(1), 2)\n        unchecked${i}(1)`),
      "",
    ].join("\n");
    const cwd = checkoutOf({ "m.py": src, "test_m.py": tests });
    const lines = src.split("\n").flatMap((l, i) => (l.includes("return") ? [i + 1] : []));
    const r = await runMutants({
      checkout: async () => cwd,
      parallel: 1,
      testCmd: "python3 -m unittest -q",
      covered: new Map([["m.py", lines]]),
      budgetMs: 120_000,
      timeoutSec: 60,
      // Bytecode written, as Python does by default (a session's commands write it to PYTHONPYCACHEPREFIX).
      env: { PYTHONDONTWRITEBYTECODE: "" },
    });
    expect(r.results.map((m) => [m.line, m.mutator, m.status])).toEqual(lines.map((l, i) => [l, "ArithmeticOperator", i % 2 === 0 ? "killed" : "survived"]));
    expect(readFileSync(path.join(cwd, "m.py"), "utf8")).toBe(src);
  }, 120_000);

  it("mutates the changed lines of a Python statement that ran beyond its first, which coverage.py does not count", async () => {
    const src = "def f(a, b):\n    return max(\n        a,\n        b + 1,\n    )\n";
    const cwd = checkoutOf({
      "m.py": src,
      "test_m.py": "import unittest\nfrom m import f\nclass T(unittest.TestCase):\n    def test_f(self):\n        f(1, 2)\n",
    });
    const r = await runMutants({
      checkout: async () => cwd,
      parallel: 1,
      testCmd: "python3 -m unittest -q",
      covered: new Map([["m.py", [2]]]),
      changed: new Map([["m.py", [{ start: 1, end: 5 }]]]),
      budgetMs: 120_000,
      timeoutSec: 60,
    });
    expect(r.results.map((m) => [m.line, m.mutator, m.status])).toEqual([
      [2, "ReturnValue", "survived"],
      [4, "ArithmeticOperator", "survived"],
    ]);
  }, 120_000);
});
