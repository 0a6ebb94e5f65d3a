import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isTestFile, languageOf } from "../../../../src/evaluate/coverage/changed-lines.js";
import { goCodeLines, modulePath, parseGoProfile, profileNames } from "../../../../src/evaluate/coverage/go-profile.js";
import { addPythonReport, findCoveragePy, type PythonCoverage, preparePython, readPythonDir } from "../../../../src/evaluate/coverage/python.js";
import { withGoProfile } from "../../../../src/evaluate/coverage/run-coverage.js";
import { crossCoverage } from "../../../../src/evaluate/coverage/uncovered.js";
import { tmpDir } from "../../../helpers/repo.js";

const empty = (): PythonCoverage => ({ hits: new Map(), executable: new Map(), reports: 0, testReports: 0 });

describe("which changed files are measured, in which language", () => {
  it("knows Python and Go sources and leaves out their tests", () => {
    expect(["a.py", "x/b.go", "c.ts", "d.d.ts", "e.rs"].map(languageOf)).toEqual(["py", "go", "js", null, null]);
    for (const f of ["pkg/test_calc.py", "pkg/calc_test.py", "conftest.py", "calc_test.go", "x/testdata/a.go", "tests/helpers.py"])
      expect(isTestFile(f), f).toBe(true);
    for (const f of ["pkg/calc.py", "pkg/testing.py", "latest.py", "calc.go", "contest.go"]) expect(isTestFile(f), f).toBe(false);
  });
});

describe("coverage.py's reports, one per Python process", () => {
  const wanted = new Set(["calc/clamp.py", "calc/stats.py"]);

  it("a statement ran when some process ran it; a file no process loaded has its statements, none run", () => {
    const into = empty();
    addPythonReport(into, { tests: true, files: { "calc/clamp.py": { statements: [1, 3, 4, 5, 7], missing: [7, 4], loaded: true } } }, wanted);
    addPythonReport(into, { tests: false, files: { "calc/clamp.py": { statements: [1, 3, 4, 5, 7], missing: [7], loaded: true } } }, wanted);
    addPythonReport(into, { tests: true, files: { "calc/stats.py": { statements: [1, 2], missing: [1, 2], loaded: false } } }, wanted);
    expect(into.reports).toBe(3);
    expect(into.testReports).toBe(2);
    expect([...into.hits.get("calc/clamp.py")!]).toEqual([
      [1, 1],
      [3, 1],
      [4, 1],
      [5, 1],
      [7, 0],
    ]);
    expect(into.hits.has("calc/stats.py")).toBe(false);
    const changed = new Map([
      ["calc/clamp.py", [{ start: 2, end: 7 }]],
      ["calc/stats.py", [{ start: 1, end: 2 }]],
    ]);
    const c = crossCoverage(changed, into.hits, into.executable);
    expect(c.uncovered).toEqual([
      { file: "calc/clamp.py", start: 7, end: 7, lines: [7], loaded: true },
      { file: "calc/stats.py", start: 1, end: 2, lines: [1, 2], loaded: false },
    ]);
    // Line 2 (a docstring, line 6 a comment) are no statements: neither run nor unrun.
    expect(c.added).toBe(6);
  });

  it("reads only the changed files' keys, and only line numbers, whatever the tests wrote", () => {
    const into = empty();
    const hostile = JSON.parse(
      '{"tests": true, "files": {"__proto__": {"statements": [1]}, "../../etc/passwd": {"statements": [1], "missing": [], "loaded": true}, "calc/clamp.py": {"statements": [1, -4, 2.5, "7", 99999999, 3], "missing": "all", "loaded": "yes"}}}',
    );
    addPythonReport(into, hostile, wanted);
    addPythonReport(into, ["not", "a", "report"], wanted);
    addPythonReport(into, { tests: true, files: null }, wanted);
    expect([...into.executable.keys()]).toEqual(["calc/clamp.py"]);
    expect([...into.executable.get("calc/clamp.py")!]).toEqual([1, 3]);
    // `loaded` must be true itself: the file's lines are not counted as run or unrun by a process that did not load it.
    expect(into.hits.size).toBe(0);
    expect(into.reports).toBe(1);
  });

  it("reads the reports folder bounded: a link (to /dev/zero) or a torn file is no report", () => {
    const dir = tmpDir("trm-pycov-");
    writeFileSync(path.join(dir, "1-a.json"), JSON.stringify({ tests: true, files: { "calc/clamp.py": { statements: [1], missing: [], loaded: true } } }));
    writeFileSync(path.join(dir, "2-b.json"), '{"tests": true, "files": {"calc/clamp.py": {"statem');
    symlinkSync("/dev/zero", path.join(dir, "3-c.json"));
    const elsewhere = path.join(tmpDir("trm-pycov-out-"), "r.json");
    writeFileSync(elsewhere, JSON.stringify({ tests: true, files: { "calc/clamp.py": { statements: [9], missing: [9], loaded: true } } }));
    symlinkSync(elsewhere, path.join(dir, "4-d.json"));
    const t0 = performance.now();
    const r = readPythonDir(dir, wanted);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(r.reports).toBe(1);
    expect([...r.hits.get("calc/clamp.py")!]).toEqual([[1, 1]]);
  });

  it("does not follow the reports folder when the tests swapped it for a link", () => {
    const real = tmpDir("trm-pycov-real-");
    writeFileSync(path.join(real, "1.json"), JSON.stringify({ tests: true, files: { "calc/clamp.py": { statements: [1], missing: [], loaded: true } } }));
    const link = path.join(tmpDir("trm-pycov-link-"), "out");
    symlinkSync(real, link);
    expect(readPythonDir(link, wanted).reports).toBe(0);
    expect(readPythonDir(real, wanted).reports).toBe(1);
  });

  it("the sitecustomize measures a Python process, hands over to the next sitecustomize and never breaks the process", async () => {
    if (!(await findCoveragePy())) {
      if (process.env.CI) throw new Error("coverage.py is not installed (apt-get install python3-coverage)");
      return;
    }
    const root = tmpDir("trm-pycov-run-");
    mkdirSync(path.join(root, "calc"));
    writeFileSync(path.join(root, "calc/__init__.py"), "");
    writeFileSync(path.join(root, "calc/clamp.py"), "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    return x\n");
    writeFileSync(path.join(root, "calc/stats.py"), "def mean(xs):\n    return sum(xs) / len(xs)\n");
    // Another sitecustomize further along PYTHONPATH: it still runs.
    const other = tmpDir("trm-pycov-other-");
    writeFileSync(path.join(other, "sitecustomize.py"), "import os\nos.environ['OTHER_SITE'] = '1'\n");
    const setup = await preparePython(path.join(root, ".cov"), root, ["calc/clamp.py", "calc/stats.py"], other);
    const run = (code: string, extraEnv: Record<string, string> = {}) =>
      execFileSync("python3", ["-c", code], { cwd: root, encoding: "utf8", env: { ...process.env, ...setup.env, ...extraEnv } });
    expect(run("import unittest, os; from calc.clamp import clamp; clamp(3, 0, 5); print(os.environ.get('OTHER_SITE'))").trim()).toBe("1");
    // A configuration that cannot be read: the process runs as ever.
    expect(run("print('fine')", { TRM_PYCOV_CONF: path.join(root, "missing.json") }).trim()).toBe("fine");
    const reports = readdirSync(setup.outDir);
    expect(reports).toHaveLength(1);
    const r = readPythonDir(setup.outDir, new Set(["calc/clamp.py", "calc/stats.py"]));
    expect(r.testReports).toBe(1);
    expect([...r.hits.get("calc/clamp.py")!]).toEqual([
      [1, 1],
      [2, 1],
      [3, 0],
      [4, 1],
    ]);
    expect([...r.executable.get("calc/stats.py")!]).toEqual([1, 2]);
    expect(r.hits.has("calc/stats.py")).toBe(false);
    expect(JSON.parse(readFileSync(path.join(setup.outDir, reports[0]!), "utf8")).files["calc/stats.py"].loaded).toBe(false);
  }, 60_000);
});

describe("Go cover profiles", () => {
  it("names each changed file as the profile does, from its nearest go.mod", () => {
    const root = tmpDir("trm-gomod-");
    writeFileSync(path.join(root, "go.mod"), "// c\nmodule example.com/top\n\ngo 1.21\n");
    mkdirSync(path.join(root, "sub/inner"), { recursive: true });
    writeFileSync(path.join(root, "sub/go.mod"), 'module "example.com/sub"\n');
    expect(modulePath("go 1.21\n")).toBeNull();
    expect(profileNames(root, ["a.go", "pkg/b.go", "sub/inner/c.go", "sub/d.go"])).toEqual(
      new Map([
        ["example.com/top/a.go", "a.go"],
        ["example.com/top/pkg/b.go", "pkg/b.go"],
        ["example.com/sub/inner/c.go", "sub/inner/c.go"],
        ["example.com/sub/d.go", "sub/d.go"],
      ]),
    );
    expect(profileNames(tmpDir("trm-nomod-"), ["a.go"]).size).toBe(0);
  });

  it("a line ran when a block of statements holding it ran; names not asked for are ignored", () => {
    const profile = [
      "mode: set",
      "example.com/top/clamp.go:4.30,5.12 1 1",
      "example.com/top/clamp.go:5.12,7.3 1 1",
      "example.com/top/clamp.go:8.2,8.12 1 1",
      "example.com/top/clamp.go:8.12,11.3 1 0",
      "example.com/top/clamp.go:12.2,12.10 1 1",
      "example.com/top/clamp.go:20.1,20.2 0 0",
      "/etc/passwd.go:1.1,2.2 1 0",
      "example.com/top/clamp.go:30.1,2.2 1 0",
      "garbage",
    ].join("\n");
    const g = parseGoProfile(profile, new Map([["example.com/top/clamp.go", "clamp.go"]]));
    expect([...g.hits.keys()]).toEqual(["clamp.go"]);
    const h = g.hits.get("clamp.go")!;
    expect([4, 5, 6, 7, 8, 9, 10, 11, 12].map((l) => h.get(l))).toEqual([1, 1, 1, 1, 1, 0, 0, 0, 1]);
    expect(g.executable.get("clamp.go")!.has(20)).toBe(false);
    expect(g.executable.get("clamp.go")!.has(30)).toBe(false);
  });

  it("counts code lines only: no blank, comment or lone brace lines", () => {
    const src = 'package x\n\n// doc\nfunc F() {\n\t/* a\n\tb */\n\ts := "// not a comment"\n\t}\n\t} else {\n\tx := `/*`\n\treturn\n})\n';
    expect([...goCodeLines(src)]).toEqual([1, 4, 7, 9, 10, 11]);
  });

  it("asks go test for the profile where its descriptor places the flag, else through GOFLAGS", () => {
    const cwd = tmpDir("trm-goargs-");
    const env: Record<string, string> = {};
    expect(withGoProfile("go test ./...", cwd, "/w/c.out", env).cmd).toBe("go test ./... '-coverprofile=/w/c.out'");
    expect(withGoProfile("cd sub && go test -json ./... 2>&1", cwd, "/w/c.out", env).cmd).toBe("cd sub && go test -json ./... 2>&1 '-coverprofile=/w/c.out'");
    expect(env.GOFLAGS).toBeUndefined();
    // After -args the flag would reach the test binary; `make test` names no runner: GOFLAGS asks every go test.
    for (const cmd of ["go test ./... -args -v", "make test"]) {
      const e: Record<string, string> = { GOFLAGS: "-mod=mod" };
      expect(withGoProfile(cmd, cwd, "/w/c.out", e)).toEqual({ cmd });
      expect(e.GOFLAGS).toBe("-mod=mod -coverprofile=/w/c.out");
    }
    const e: Record<string, string> = {};
    expect(withGoProfile("make test", cwd, "/my dir/c.out", e).note).toMatch(/Go's cover profile could not be asked for/);
    expect(e.GOFLAGS).toBeUndefined();
  });
});
