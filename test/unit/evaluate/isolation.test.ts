/** The checkout-leak detector and the missing-path explanation, on real outputs. */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkoutLeakNotice, checkoutPathsIn } from "../../../src/evaluate/checkout-leak.js";
import { missingPathNotice, pathsInCommand } from "../../../src/evaluate/missing-paths.js";
import { editableSources, pythonIsolation } from "../../../src/session/python-env.js";
import { workspacePatterns } from "../../../src/session/workspaces.js";
import { matchesGlobExactly } from "../../../src/util/glob.js";

const CHECKOUT = "/work/proj";
const WT = "/work/proj/.git/trm/worktrees/s1";

/**
 * Captured on this machine (Python 3.11.7, Node v20.20.2, tsc 6.0.3) from a worktree at
 * <checkout>/.git/trm/worktrees/s1 importing code of the checkout (an absolute sys.path entry, an
 * absolute require / import, a node_modules link into the checkout's packages); the checkout's path
 * was then rewritten to /work/proj.
 */
const REAL = {
  py: 'Traceback (most recent call last):\n  File "/work/proj/.git/trm/worktrees/s1/tests/t.py", line 4, in <module>\n    add(1, 2)\n  File "/work/proj/src/pkg/core.py", line 2, in add\n    return a + c\n               ^\nNameError: name \'c\' is not defined\n',
  "node-cjs":
    '/work/proj/packages/a/index.js:1\nexports.f = () => { throw new Error("boom from a"); };\n                    ^\n\nError: boom from a\n    at exports.f (/work/proj/packages/a/index.js:1:27)\n    at module.exports (/work/proj/node_modules/dep/index.js:1:25)\n    at Object.<anonymous> (/work/proj/.git/trm/worktrees/s1/packages/b/t.js:3:1)\n    at Module._compile (node:internal/modules/cjs/loader:1521:14)\n    at Module._extensions..js (node:internal/modules/cjs/loader:1623:10)\n    at Module.load (node:internal/modules/cjs/loader:1266:32)\n    at Module._load (node:internal/modules/cjs/loader:1091:12)\n    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12)\n    at node:internal/main/run_main_module:28:49\n\nNode.js v20.20.2\n',
  "node-esm":
    'file:///work/proj/packages/a/m.mjs:1\nexport const f = () => { throw new Error("esm boom"); };\n                               ^\n\nError: esm boom\n    at f (file:///work/proj/packages/a/m.mjs:1:32)\n    at file:///work/proj/.git/trm/worktrees/s1/packages/b/t.mjs:2:1\n    at ModuleJob.run (node:internal/modules/esm/module_job:325:25)\n    at async ModuleLoader.import (node:internal/modules/esm/loader:606:24)\n    at async asyncRunEntryPointWithESMLoader (node:internal/modules/run_main:117:5)\n\nNode.js v20.20.2\n',
  tsc: "../../../../packages/t/index.ts(1,14): error TS2322: Type 'string' is not assignable to type 'number'.\n",
};

describe("checkoutPathsIn", () => {
  it("finds the checkout's files in a Python traceback, but not the worktree's", () => {
    expect(checkoutPathsIn(REAL.py, CHECKOUT, WT)).toEqual(["src/pkg/core.py"]);
  });

  it("finds them in Node stack traces (CommonJS paths and ESM file:// URLs), passing over node_modules", () => {
    expect(checkoutPathsIn(REAL["node-cjs"], CHECKOUT, WT)).toEqual(["packages/a/index.js"]);
    expect(checkoutPathsIn(REAL["node-esm"], CHECKOUT, WT)).toEqual(["packages/a/m.mjs"]);
  });

  it("finds a tsc path that climbs out of the worktree into the checkout", () => {
    expect(checkoutPathsIn(REAL.tsc, CHECKOUT, WT)).toEqual(["packages/t/index.ts"]);
  });

  it("reports nothing for output of the worktree alone, other folders, or linked paths", () => {
    expect(checkoutPathsIn(`  File "${WT}/src/pkg/core.py", line 2\n../x.js:1`, CHECKOUT, WT)).toEqual([]);
    expect(checkoutPathsIn("at f (/work/project2/a.js:1:1) /other/work/proj/a.js", CHECKOUT, WT)).toEqual([]);
    expect(checkoutPathsIn(`${CHECKOUT}/.venv/bin/python: error; ${CHECKOUT}/.git/config`, CHECKOUT, WT, [".venv"])).toEqual([]);
  });

  it("knows the worktree in each form it may be printed in (a linked /tmp and its real path)", () => {
    const out = "at /private/tmp/r/.wt/a.js:1:1\nat /private/tmp/r/src/b.js:2:2";
    expect(checkoutPathsIn(out, "/private/tmp/r", ["/tmp/r/.wt", "/private/tmp/r/.wt"])).toEqual(["src/b.js"]);
  });

  it("is linear on hostile output", () => {
    const big = `${CHECKOUT}/`.repeat(200_000) + "../".repeat(200_000);
    const t = performance.now();
    checkoutPathsIn(big, CHECKOUT, WT);
    expect(performance.now() - t).toBeLessThan(2000);
  });

  it("says it prominently, naming the commands and files", () => {
    expect(checkoutLeakNotice({ test: ["src/pkg/core.py"], build: [] })).toMatch(
      /^THESE RESULTS CAME PARTLY FROM YOUR CHECKOUT, NOT FROM THE CANDIDATE: the test output names files of your checkout outside the worktree \(src\/pkg\/core.py\)/,
    );
    expect(checkoutLeakNotice({ test: [] })).toBeUndefined();
  });
});

describe("missing ignored paths", () => {
  it("reads the relative paths a command names", () => {
    expect(pathsInCommand("PYTHONPATH=src/lib .venv/bin/python -m pytest tests/ && ./node_modules/.bin/jest --ci > out/log.txt")).toEqual([
      "src/lib",
      ".venv/bin/python",
      "tests/",
      "node_modules/.bin/jest",
      "out/log.txt",
    ]);
    expect(pathsInCommand("/usr/bin/python3 -m x --flag=a/b $HOME/x https://x/y")).toEqual([]);
  });

  it("reads them against the folder a cd went to, and drops what leaves the worktree or follows a cd it cannot follow", () => {
    expect(pathsInCommand("cd tests && ../.venv/bin/python -m pytest ./unit")).toEqual([".venv/bin/python", "tests/unit"]);
    expect(pathsInCommand("cd packages/a; ../../node_modules/.bin/jest && cd .. && ./run.sh")).toEqual(["node_modules/.bin/jest", "packages/run.sh"]);
    expect(pathsInCommand("../outside/bin/x && cd .. && .venv/bin/python")).toEqual([]);
    expect(pathsInCommand("cd $DIR && .venv/bin/python")).toEqual([]);
  });

  it("explains exit 127 after a cd, naming the path to link from the worktree's root", () => {
    const inWt = (p: string) => ["tests", "tests/unit"].includes(p);
    const inCheckout = (p: string) => p.startsWith(".venv") || p.startsWith("tests");
    const n = missingPathNotice(
      "cd tests && ../.venv/bin/python -m pytest",
      127,
      "bash: line 1: ../.venv/bin/python: No such file or directory",
      inWt,
      inCheckout,
    );
    expect(n).toMatch(/uses \.venv\/bin\/python, which your checkout has but the worktree does not .*linkPaths: \["\.venv"\]/);
  });

  it("explains exit 127 for a path the checkout has and the worktree lacks", () => {
    const inWt = (p: string) => ["tests", "tests/"].includes(p);
    const inCheckout = (p: string) => p.startsWith(".venv") || p.startsWith("tests");
    const n = missingPathNotice(".venv/bin/python -m unittest", 127, "/bin/bash: line 1: .venv/bin/python: No such file or directory", inWt, inCheckout);
    expect(n).toMatch(
      /uses \.venv\/bin\/python, which your checkout has but the worktree does not \(\.venv is not tracked by git.*linkPaths: \["\.venv"\] or create it with setupCmd/,
    );
    expect(missingPathNotice(".venv/bin/python -m unittest", 0, "", inWt, inCheckout)).toBeUndefined();
    expect(missingPathNotice(".venv/bin/python -m unittest", 1, "AssertionError", inWt, inCheckout)).toBeUndefined();
    // Missing in the checkout too: not a dependency to link (the candidate's or the command's problem).
    expect(missingPathNotice("build/run.sh", 127, "", inWt, () => false)).toBeUndefined();
  });
});

describe("workspace and editable-install detection", () => {
  it("reads npm/yarn workspaces and pnpm-workspace.yaml", () => {
    expect(workspacePatterns(JSON.stringify({ workspaces: ["packages/*", "apps/web"] }), undefined)).toEqual(["packages/*", "apps/web"]);
    expect(workspacePatterns(JSON.stringify({ workspaces: { packages: ["libs/**"] } }), undefined)).toEqual(["libs/**"]);
    expect(workspacePatterns("{not json", "packages:\n  - 'packages/*'\n  - \"apps/*\" # apps\n  - '!**/test/**'\ncatalog:\n  - x\n")).toEqual([
      "packages/*",
      "apps/*",
      "!**/test/**",
    ]);
    expect(workspacePatterns(JSON.stringify({ name: "x" }), undefined)).toEqual([]);
    expect(matchesGlobExactly("packages/a", "packages/*")).toBe(true);
    expect(matchesGlobExactly("packages/a/src", "packages/*")).toBe(false);
  });

  const tmp = mkdtempSync(path.join(os.tmpdir(), "trm-editable-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("finds the checkout folders of .pth files and setuptools editable finders", async () => {
    const sp = path.join(tmp, "site-packages");
    mkdirSync(path.join(sp, "proj-0.1.dist-info"), { recursive: true });
    // As pip / hatchling write a src-layout editable install, and as setuptools >= 64 writes its finder.
    writeFileSync(path.join(sp, "_proj.pth"), "/work/proj/src\n");
    writeFileSync(path.join(sp, "__editable__.other-0.1.pth"), "import __editable___other_0_1_finder; __editable___other_0_1_finder.install()\n");
    // The MAPPING line as setuptools 66.1.1 wrote it (pip install -e . of a flat layout, Debian python 3.11).
    writeFileSync(path.join(sp, "__editable___other_0_1_finder.py"), "import sys\nMAPPING = {'other': '/work/proj/lib/other'}\nNAMESPACES = {}\n");
    writeFileSync(
      path.join(sp, "__editable___typed_0_1_finder.py"),
      "MAPPING: dict[str, str] = {'typed': '/work/proj/typed/typed', 'two': '/work/proj/typed/two'}\n",
    );
    writeFileSync(path.join(sp, "distutils-precedence.pth"), "import os; var = 'SETUPTOOLS_USE_DISTUTILS'\n# comment\n");
    writeFileSync(path.join(sp, "proj-0.1.dist-info/direct_url.json"), JSON.stringify({ url: "file:///work/proj", dir_info: { editable: true } }));
    const r = await editableSources(sp);
    expect(r.dirs.sort()).toEqual(["/work/proj/lib", "/work/proj/src", "/work/proj/typed", "/work/proj/typed"]);
    expect(r.editableDists).toEqual([{ name: "proj", url: "file:///work/proj" }]);
  });

  it("reads only regular files, and only their start: a FIFO or a link to /dev/zero named .pth neither hangs nor fills memory", async () => {
    const sp = path.join(tmp, "hostile-site-packages");
    mkdirSync(sp, { recursive: true });
    execFileSync("mkfifo", [path.join(sp, "a.pth")]);
    symlinkSync("/dev/zero", path.join(sp, "b.pth"));
    writeFileSync(path.join(sp, "c.pth"), `/work/proj/src\n${"#".repeat(2_000_000)}\n/work/proj/late\n`);
    // Before: the FIFO's read never returned (the test's timeout is what fails it).
    const r = await editableSources(sp);
    expect(r.dirs).toEqual(["/work/proj/src"]);
  });

  it("lets Python write its bytecode into the session's prefix when the server's environment forbids it (else every run compiles the standard library again)", async () => {
    const top = path.join(tmp, "bytecode");
    const pyc = path.join(tmp, "bytecode-pycache");
    mkdirSync(top, { recursive: true });
    writeFileSync(path.join(top, "mod.py"), "X = 1\n");
    const procEnv = { PATH: process.env.PATH, PYTHONDONTWRITEBYTECODE: "1" };
    const r = await pythonIsolation(top, top, [], pyc, ["python3 -m pytest -q"], procEnv);
    execFileSync("python3", ["-c", "import mod, json.decoder"], { cwd: top, env: { ...procEnv, ...r.env } });
    const written = execFileSync("find", [pyc, "-name", "*.pyc"], { encoding: "utf8" });
    expect(written).toMatch(/\/mod\.cpython-\d+\.pyc$/m);
    expect(written).toMatch(/\/json\/decoder\.cpython-\d+\.pyc$/m);
    expect(readdirSync(top)).toEqual(["mod.py"]);
    // A server environment without the variable: nothing is added to it.
    expect((await pythonIsolation(top, top, [], pyc, [], { PATH: process.env.PATH })).env).toEqual({ PYTHONPYCACHEPREFIX: pyc });
  });

  it("redirects an editable install in an environment outside linkPaths: the server's VIRTUAL_ENV, the python on its PATH, or one a command names", async () => {
    // A real venv (python3 -m venv, no pip: nothing is downloaded) outside the checkout, holding a
    // src-layout editable install of the checkout as pip writes it.
    const venv = path.join(tmp, "venvs", "proj");
    execFileSync("python3", ["-m", "venv", "--without-pip", venv]);
    const lib = readdirSync(path.join(venv, "lib")).find((d) => d.startsWith("python"))!;
    const top = path.join(tmp, "checkout");
    const wt = path.join(tmp, "worktree");
    for (const d of [top, wt]) mkdirSync(path.join(d, "src", "pkg"), { recursive: true });
    writeFileSync(path.join(venv, "lib", lib, "site-packages", "_proj.pth"), `${path.join(top, "src")}\n`);
    const bare = { PATH: "/usr/bin:/bin" };
    const none = await pythonIsolation(top, wt, [], path.join(tmp, "pycache"), ["python3 -m pytest -q"], bare);
    expect(none.env.PYTHONPATH).toBeUndefined();
    for (const [commands, env, label] of [
      [["python3 -m pytest -q"], { ...bare, VIRTUAL_ENV: venv }, /the server's VIRTUAL_ENV/],
      [["python3 -m pytest -q"], { PATH: `${path.join(venv, "bin")}:/usr/bin:/bin` }, /the python on the server's PATH/],
      [[`cd tests && ${path.join(venv, "bin", "python")} -m pytest -q`], bare, /named by "cd tests && /],
    ] as const) {
      const r = await pythonIsolation(top, wt, [], path.join(tmp, "pycache"), [...commands], env);
      expect(r.env.PYTHONPATH).toBe(path.join(wt, "src"));
      expect(r.redirected).toEqual(["src"]);
      expect(r.notices.join("\n")).toMatch(label);
      expect(r.notices.join("\n")).toMatch(/points into your checkout \(src\): the worktree's copy is put first on PYTHONPATH/);
    }
  });
});
