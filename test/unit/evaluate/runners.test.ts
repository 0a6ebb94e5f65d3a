import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { countsHint } from "../../../src/evaluate/runner-hint.js";
import { isTestConfigFile, RUNNERS, runnerOfCommand, TEST_CONFIG_FILES } from "../../../src/evaluate/runners/index.js";
import { testConfigChanges } from "../../../src/session/test-files.js";
import { tmpDir } from "../../helpers/repo.js";

const byId = (id: string) => RUNNERS.find((r) => r.id === id)!;
const select = (id: string, names: string[]) => byId(id).selectByName!(names);
/** Names with every character a regex or a shell gives meaning to. */
const NASTY = "adds (a+b) * 2 [x] {y} ^$ | a.b? \\ / c";

describe("runner descriptors", () => {
  it("each is recognised by its own command, and only its own", () => {
    const ids = RUNNERS.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of RUNNERS) {
      expect(runnerOfCommand(r.command)?.id, r.command).toBe(r.id);
      expect(r.readableReport.length).toBeGreaterThan(0);
    }
    // A reporter named tap is not node-tap; node's own runner with the TAP reporter is node's.
    expect(runnerOfCommand("node --test --test-reporter=tap")?.id).toBe("node");
    expect(runnerOfCommand("npx mocha --reporter=tap")?.id).toBe("mocha");
    expect(runnerOfCommand("npx vitest --reporter=tap-flat")?.id).toBe("vitest");
    expect(runnerOfCommand("./node_modules/.bin/tap test")?.id).toBe("tap");
    expect(runnerOfCommand("make check")).toBeUndefined();
  });

  it("the files that choose each runner's tests are test config, a runner's and the generic ones", () => {
    const files = [
      "jest.config.ts",
      "vitest.config.mts",
      "vite.config.js",
      ".mocharc.yml",
      ".taprc",
      "ava.config.js",
      "pytest.ini",
      "pyproject.toml",
      "go.mod",
      "Cargo.toml",
      "package.json",
      "Makefile",
      ".c8rc.json",
      "playwright.config.ts",
      "spec/support/jasmine.json",
      "vitest.workspace.ts",
      "karma.conf.js",
      ".nycrc",
      "tox.ini",
      "setup.cfg",
      "justfile",
      "noxfile.py",
      ".mocharc",
      "cypress.json",
      "wdio.conf.ts",
    ];
    const ops = files.map((p) => ({ op: "write" as const, path: p, content: "" }));
    expect(testConfigChanges(ops as never).map((c) => c.path)).toEqual(files);
    for (const name of ["src/jest.ts", "README.md", "jest.ts", "package-lock.json", "xpytest.ini", "go.sum", "src/config.ts"])
      expect(isTestConfigFile(name), name).toBe(false);
    // Every runner's own files are in the union (it is built from the descriptors).
    for (const r of RUNNERS) for (const g of r.testConfigFiles) expect(TEST_CONFIG_FILES).toContain(g);
  });

  it("selects tests by name in each runner's own syntax, a name's regex characters matched literally", () => {
    // jest, vitest, mocha: a regex over describe titles and the test's joined by spaces.
    for (const id of ["jest", "vitest", "mocha"]) {
      const [flag, pattern] = select(id, ["mul > multiplies", NASTY]);
      expect(flag).toBe(id === "mocha" ? "--grep" : "-t");
      const re = new RegExp(pattern!);
      expect(re.test("mul multiplies")).toBe(true);
      expect(re.test(NASTY)).toBe(true);
      expect(re.test("mul multiplies twice")).toBe(false);
      expect(re.test("adds (a+b) * 2 [x] {y} ^$ | a.b? \\ / cc")).toBe(false);
      // Also under the u flag (a runner may compile with it).
      expect(new RegExp(pattern!, "u").test(NASTY)).toBe(true);
    }
    const [nflag, npat] = select("node", ["mul multiplies"]);
    expect(nflag).toBe("--test-name-pattern");
    expect(new RegExp(npat!).test("mul multiplies")).toBe(true);
    const [jas] = select("jasmine", ["lib mul multiplies"]);
    expect(jas).toMatch(/^--filter=/);
    expect(new RegExp(jas!.slice("--filter=".length)).test("lib mul multiplies")).toBe(true);
    // AVA: titles without the file prefix; a leading ! would negate.
    expect(select("ava", ["lib › mul multiplies", "!negated"])).toEqual(["--match=mul multiplies", "--match=*!negated"]);
    // node-tap: the files, then one --grep per level.
    const tapArgs = select("tap", ["test/a.test.js > mul > x+y", "test/b.test.js > shout"]);
    expect(tapArgs.slice(0, 2)).toEqual(["test/a.test.js", "test/b.test.js"]);
    expect(tapArgs.slice(2)).toEqual(["--grep=^(?:mul|shout)$", "--grep=^(?:x\\+y)$"]);
    // pytest: node ids as arguments, a failed subtest's message dropped, parameters kept.
    expect(select("pytest", ["tests/t.py::C::test_a", "tests/t.py::test_b[1-2]", "tests/t.py::test_c [msg] (i=3)", "tests/t.py::test_c (i=4)"])).toEqual([
      "tests/t.py::C::test_a",
      "tests/t.py::test_b[1-2]",
      "tests/t.py::test_c",
    ]);
    // Parameters holding ` [` are kept whole (hukkin/tomli's data files: `extend defined [aot] ü`); a subtest's
    // message after them is not.
    expect(select("pytest", ["tests/t.py::test_invalid[extend defined [aot] \\xfc]", "tests/t.py::test_d[a b] [msg] (i=1)"])).toEqual([
      "tests/t.py::test_invalid[extend defined [aot] \\xfc]",
      "tests/t.py::test_d[a b]",
    ]);
    // Names from pytest's JUnit report are no node ids: no selection (the whole suite runs once).
    expect(select("pytest", ["tests.test_calc.TestGroup.test_message"])).toBeUndefined();
    // unittest: dotted ids; a failed subtest's (`[msg]`, `(i=3)`) is its test's, once.
    expect(
      select("unittest", [
        "tests.test_calc.CalcTest.test_mul",
        "tests.test_data.TestData.test_valid [spec-float-7]",
        "tests.test_data.TestData.test_valid (i=3)",
      ]),
    ).toEqual(["tests.test_calc.CalcTest.test_mul", "tests.test_data.TestData.test_valid"]);
    // go: the packages, then -run for the top-level tests (a subtest runs with its test).
    const goArgs = select("go", ["example.com/calc.TestMul", "example.com/calc.TestDiv/by_zero", "example.com/x.TestX"]);
    expect(goArgs.slice(0, 2)).toEqual(["example.com/calc", "example.com/x"]);
    expect(goArgs.slice(2)).toEqual(["-run", "^(?:TestMul|TestDiv|TestX)$"]);
    const [bflag, bpat] = select("bun", ["lib > mul multiplies", NASTY]);
    expect(bflag).toBe("-t");
    expect(new RegExp(bpat!).test("lib mul multiplies") && new RegExp(bpat!).test(NASTY)).toBe(true);
    expect(select("cargo", ["tests::adds", "tests::subs"])).toEqual(["--", "--exact", "tests::adds", "tests::subs"]);
    // A name that starts with `-` is never an option: pytest reads a path, libtest's options end at `--`, AVA
    // takes `--match=` as one word, and go (no import path starts with `-`) gets no selection.
    expect(select("pytest", ["-k_test.py::test_a", "tests/t.py::test_b"])).toEqual(["./-k_test.py::test_a", "tests/t.py::test_b"]);
    expect(select("cargo", ["tests::adds", "--include-ignored"])).toEqual(["--", "--exact", "--", "tests::adds", "--include-ignored"]);
    expect(select("ava", ["--watch it"])).toEqual(["--match=--watch it"]);
    expect(select("go", ["example.com/calc.TestMul", "-count=3.TestGolden"])).toBeUndefined();
    expect(select("go", ["example.com/calc.TestMul", "-TestOdd"])).toEqual(["example.com/calc", "-run", "^(?:TestMul|-TestOdd)$"]);
    // Related tests, where the runner knows them.
    expect(byId("jest").related!.args(["src/a.ts"])).toEqual(["--findRelatedTests", "src/a.ts"]);
    expect(byId("vitest").related).toMatchObject({ bin: "vitest", subcommand: { name: "related", replaces: ["run"] } });
    expect(byId("vitest").related!.args(["src/a.ts"])).toEqual(["--run", "src/a.ts"]);
  });

  it("the could-not-read hint finds the runner by the command, the project's files, then package.json's dependencies", () => {
    const dir = tmpDir("trm-runners-");
    expect(countsHint("make test", dir)).toMatch(/^make the runner print TAP/);
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ scripts: { test: "node scripts/test.js" }, devDependencies: { mocha: "12" } }));
    expect(countsHint("npm test", dir)).toBe(byId("mocha").readableReport);
    writeFileSync(path.join(dir, "go.mod"), "module x\n");
    expect(countsHint("make test", dir)).toBe(byId("go").readableReport);
    expect(countsHint("npx jest", dir)).toBe(byId("jest").readableReport);
    // `bun test` is bun's runner, not the package.json script `bun run test` would run.
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ scripts: { test: "jest" } }));
    expect(countsHint("bun test", dir)).toBe(byId("bun").readableReport);
    expect(countsHint("bun run test", dir)).toBe(byId("jest").readableReport);
  });
});
