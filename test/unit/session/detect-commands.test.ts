import { describe, expect, it } from "vitest";
import { environmentNotices } from "../../../src/evaluate/environment.js";
import { notFoundProgram } from "../../../src/evaluate/missing-program.js";
import { RUNNERS } from "../../../src/evaluate/runners/index.js";
import { foldProgress } from "../../../src/evaluate/score.js";
import { detectCommands, nestedCommands, type RepoView } from "../../../src/session/detect-commands.js";
import { otherPackageHook } from "../../../src/session/detect-js.js";
import { missingToolNotes } from "../../../src/session/missing-tools.js";

/** A repository of `files` (folders implied by their paths) and a PATH holding `path`. */
function view(files: Record<string, string>, path: string[] = ["npm", "npx", "node", "python3", "pytest", "go", "cargo", "make"]): RepoView {
  const all = new Set(Object.keys(files));
  for (const f of Object.keys(files)) for (let i = f.indexOf("/"); i > 0; i = f.indexOf("/", i + 1)) all.add(f.slice(0, i));
  return {
    read: (rel) => files[rel] ?? "",
    has: (rel) => all.has(rel),
    list: (rel) => [
      ...new Set(
        [...all]
          .filter((p) => (rel === "" ? !p.includes("/") : p.startsWith(`${rel}/`) && !p.slice(rel.length + 1).includes("/")))
          .map((p) => p.split("/").pop()!),
      ),
    ],
    onPath: (p) => path.includes(p),
  };
}
const pkg = (o: Record<string, unknown>) => JSON.stringify(o);

describe("hooks of other packages", () => {
  it("finds a workspace's pre or post script, and keeps the hooks of a test script that reaches it (h24)", () => {
    const files = {
      "package.json": pkg({ workspaces: ["packages/*"], scripts: { test: "npm test --workspaces", posttest: "tsc --noEmit" } }),
      "packages/core/package.json": pkg({ scripts: { test: "node --test test/unit/", posttest: "node --test test/extra/" } }),
      "packages/core/test/unit/a.test.js": "",
      "node_modules/x/package.json": pkg({ scripts: { postinstall: "node x.js" } }),
    };
    expect(otherPackageHook(view(files))).toEqual({ hook: "posttest", file: "packages/core/package.json" });
    const d = detectCommands(view({ ...files, "package-lock.json": "{}" }));
    expect(d?.args.testCmd).toBe("npm test");
    // Declared workspaces first: 80 example folders sorted before them, a package named like a file (h27).
    const examples = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`examples/ex${i}/package.json`, pkg({ scripts: { start: "node ." } })]));
    const dotted = {
      ...examples,
      "package.json": pkg({ workspaces: ["packages/*"], scripts: { test: "npm test --workspaces", posttest: "tsc --noEmit" } }),
      "packages/core.js/package.json": pkg({ scripts: { test: "node --test", posttest: "node --test test/extra/" } }),
    };
    expect(otherPackageHook(view(dotted))).toEqual({ hook: "posttest", file: "packages/core.js/package.json" });
    // Undeclared, a dotted folder is still looked into.
    expect(otherPackageHook(view({ ...dotted, "package.json": pkg({ scripts: { test: "cd packages/core.js && npm test" } }) }))).toEqual({
      hook: "posttest",
      file: "packages/core.js/package.json",
    });
    // node_modules and the root's own package.json are not another package's.
    expect(
      otherPackageHook(view({ "package.json": files["package.json"], "node_modules/x/package.json": files["node_modules/x/package.json"] })),
    ).toBeUndefined();
  });
});

describe("command detection (issue 24)", () => {
  it("npm: package.json scripts run by npm, the type check and the lint script", () => {
    const d = detectCommands(
      view({
        "package.json": pkg({
          scripts: { test: "vitest run", lint: "eslint .", typecheck: "tsc --noEmit", build: "tsup" },
          devDependencies: { vitest: "1", typescript: "5" },
        }),
        "package-lock.json": "{}",
        "node_modules/.bin/vitest": "",
      }),
    )!;
    expect(d.args).toEqual({ testCmd: "npm test", buildCmd: "npm run typecheck", lintCmd: "npm run lint" });
    expect(d.why.testCmd).toMatch(/scripts\.test \("vitest run"\) run by npm \(package-lock\.json\)/);
    // Vitest offers JSON and JUnit: said, and the command left as the project runs it.
    expect(d.notes.join("\n")).toMatch(
      /Vitest can also print a report code-trm reads exactly \(Vitest: add --reporter=json.*testCmd is kept as the project runs it/,
    );
  });

  it("pnpm declared (lockfile or packageManager) and installed: pnpm runs the scripts", () => {
    const files = { "package.json": pkg({ scripts: { test: "jest" }, devDependencies: { jest: "29" } }), "pnpm-lock.yaml": "", "node_modules/.bin/jest": "" };
    expect(detectCommands(view(files, ["pnpm", "npm", "npx"]))!.args.testCmd).toBe("pnpm test");
    const field = { "package.json": pkg({ packageManager: "pnpm@9.1.0+sha256.abc", scripts: { test: "jest" } }) };
    expect(detectCommands(view(field, ["pnpm", "npm"]))!.why.testCmd).toMatch(/pnpm \(package\.json packageManager "pnpm@9\.1\.0"\)/);
  });

  it("pnpm declared but missing: the runner part of a script that calls pnpm, run directly, and the fix named", () => {
    const files = {
      "package.json": pkg({
        packageManager: "pnpm@9.0.0",
        scripts: { test: "pnpm lint && pnpm test:types && vitest run --coverage", lint: "eslint . && prettier -c src", "test:types": "tsc --noEmit" },
        devDependencies: { vitest: "1", typescript: "5", eslint: "9" },
      }),
      "pnpm-lock.yaml": "",
      "tsconfig.json": "{}",
      "node_modules/.bin/vitest": "",
    };
    const d = detectCommands(view(files))!;
    expect(d.args.testCmd).toBe("npx vitest run --coverage");
    expect(d.why.testCmd).toMatch(/directly, as pnpm .* is not installed/);
    // The lint and type-check scripts do not call pnpm: npm runs them.
    expect(d.args.lintCmd).toBe("npm run lint");
    expect(d.args.buildCmd).toBe("npm run test:types");
    expect(d.notes[0]).toMatch(
      /^pnpm is not installed .*"pnpm test" would exit 127: `corepack enable` \(or `npm i -g pnpm`\) and pass testCmd: "pnpm test", or keep testCmd: "npx vitest run --coverage"/,
    );
  });

  it("yarn: classic and berry told apart; bun runs scripts with bun run (bun test is its runner)", () => {
    const y = detectCommands(view({ "package.json": pkg({ scripts: { test: "mocha" } }), "yarn.lock": "# yarn lockfile v1\n" }, ["yarn", "npm"]))!;
    expect(y.args.testCmd).toBe("yarn test");
    expect(y.why.testCmd).toMatch(/yarn \(yarn\.lock\)/);
    const berry = detectCommands(view({ "package.json": pkg({ scripts: { test: "mocha" } }), "yarn.lock": "__metadata:\n  version: 6\n" }, ["yarn"]))!;
    expect(berry.why.testCmd).toMatch(/yarn\.lock \(yarn 2\+\)/);
    // Berry may leave no node_modules (Plug'n'Play): npm cannot stand in for it.
    expect(detectCommands(view({ "package.json": pkg({ scripts: { test: "mocha" } }), "yarn.lock": "__metadata:\n" }, ["npm"]))?.args.testCmd).toBeUndefined();
    expect(detectCommands(view({ "package.json": pkg({ scripts: { test: "bun test" } }), "bun.lock": "" }, ["bun"]))!.args.testCmd).toBe("bun run test");
  });

  it("yarn classic missing and a script that does not call it: npm runs the same script", () => {
    const d = detectCommands(view({ "package.json": pkg({ scripts: { test: "mocha test/" } }), "yarn.lock": "" }))!;
    expect(d.args.testCmd).toBe("npm test");
    expect(d.why.testCmd).toMatch(/run by npm, as yarn \(yarn\.lock\) is not installed/);
  });

  it("no test script: the runner its devDependencies name, read from the runner descriptors", () => {
    for (const r of RUNNERS.filter((x) => x.recognise.packages?.length)) {
      const d = detectCommands(
        view({
          "package.json": pkg({ scripts: { test: 'echo "Error: no test specified" && exit 1' }, devDependencies: { [r.recognise.packages![0]!]: "1" } }),
        }),
      )!;
      expect(d.args.testCmd, r.id).toBe(r.command);
      expect(d.why.testCmd).toMatch(new RegExp(`devDependencies ${r.recognise.packages![0]!.replace(/[.*+?^$()|[\]\\/]/g, "\\$&")} names`));
    }
  });

  it("a test script that only prints or exits runs no test: the runner its dependencies name instead, or none", () => {
    for (const test of ['echo "no tests yet"', "exit 0", "true", 'echo "Error: no test specified" && exit 1', "echo skip; exit 0"]) {
      expect(detectCommands(view({ "package.json": pkg({ scripts: { test }, devDependencies: { mocha: "10" } }) }))!.args.testCmd, test).toBe(
        RUNNERS.find((r) => r.id === "mocha")!.command,
      );
      expect(detectCommands(view({ "package.json": pkg({ scripts: { test } }) })), test).toBeUndefined();
    }
  });

  it("a lint script that writes files (-w, --apply) is not a check", () => {
    for (const lint of ["prettier -w .", "biome check --apply .", "eslint --fix ."]) {
      expect(detectCommands(view({ "package.json": pkg({ scripts: { test: "ava", lint } }) }))!.args.lintCmd, lint).toBeUndefined();
    }
  });

  it("type checker and linters from devDependencies with their config", () => {
    const d = detectCommands(
      view({
        "package.json": pkg({ scripts: { test: "node --test" }, devDependencies: { typescript: "5", eslint: "9" } }),
        "tsconfig.json": "{}",
        "eslint.config.js": "",
      }),
    )!;
    expect(d.args).toEqual({ testCmd: "npm test", buildCmd: "npx tsc --noEmit", lintCmd: "npx eslint ." });
    // eslint without any config is not a lint command (it would fail on every step); oxlint and xo need none.
    expect(detectCommands(view({ "package.json": pkg({ scripts: { test: "node --test" }, devDependencies: { eslint: "9" } }) }))!.args.lintCmd).toBeUndefined();
    expect(detectCommands(view({ "package.json": pkg({ scripts: { test: "node --test" }, devDependencies: { oxlint: "1" } }) }))!.args.lintCmd).toBe(
      "npx oxlint",
    );
    expect(detectCommands(view({ "package.json": pkg({ scripts: { test: "ava", lint: "xo --fix" }, devDependencies: { xo: "1" } }) }))!.args.lintCmd).toBe(
      "npx xo",
    );
    expect(
      detectCommands(view({ "package.json": pkg({ scripts: { test: "ava" }, devDependencies: { "@biomejs/biome": "1" } }), "biome.json": "{}" }))!.args.lintCmd,
    ).toBe("npx biome lint .");
  });

  it("Python: pytest from its config, src layout on PYTHONPATH unless pytest's pythonpath covers it, else unittest", () => {
    const src = {
      "pyproject.toml": "[project]\nname='x'\n[tool.pytest.ini_options]\ntestpaths=['tests']\n",
      "src/calc/__init__.py": "",
      "tests/test_calc.py": "",
    };
    const d = detectCommands(view(src))!;
    // -rA, the runner's readable command: no note offers it.
    expect(d.args).toEqual({ testCmd: "PYTHONPATH=src:$PYTHONPATH python3 -m pytest -rA" });
    expect(d.why.testCmd).toMatch(/pytest named in pyproject\.toml; src layout \(src\/calc\), so src goes on PYTHONPATH/);
    expect(d.notes).toEqual([]);
    const covered = detectCommands(view({ ...src, "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n' }))!;
    expect(covered.args.testCmd).toBe("python3 -m pytest -rA");
    expect(covered.why.testCmd).toMatch(/its pytest config sets pythonpath/);
    for (const [file, text] of [
      ["setup.cfg", "[tool:pytest]\naddopts = -q\n"],
      ["tox.ini", "[tox]\n[testenv]\ncommands = pytest\n"],
      ["pytest.ini", "[pytest]\n"],
    ]) {
      expect(detectCommands(view({ [file!]: text!, "tests/test_a.py": "" }))!.args.testCmd, file).toBe("python3 -m pytest -rA");
    }
    const plain = detectCommands(view({ "setup.py": "", "tests/test_a.py": "" }))!;
    expect(plain.args.testCmd).toBe("python3 -m unittest discover -s tests -v");
    expect(detectCommands(view({ "setup.py": "", "tests/__init__.py": "", "tests/test_a.py": "" }))!.args.testCmd).toBe("python3 -m unittest -v");
  });

  it("Python tests written for pytest are run by pytest even where no config names it: unittest would run none of them and pass", () => {
    // setup.py-only projects list pytest in a requirements file, setup.py or Pipfile.
    for (const [file, text] of [
      ["requirements-dev.txt", "pytest>=7\nblack\n"],
      ["setup.py", "setup(name='x', tests_require=['pytest'])\n"],
      ["Pipfile", "[dev-packages]\npytest = '*'\n"],
    ]) {
      expect(detectCommands(view({ "setup.py": "", [file!]: text!, "tests/test_a.py": "" }))!.args.testCmd, file).toBe("python3 -m pytest -rA");
    }
    // Plain test functions (or an import of pytest) are pytest's: unittest finds no TestCase there and exits 0.
    expect(detectCommands(view({ "setup.py": "", "tests/test_a.py": "def test_a():\n    assert f() == 2\n" }))!.args.testCmd).toBe("python3 -m pytest -rA");
    expect(detectCommands(view({ "setup.py": "", "tests/test_a.py": "import pytest\n\n@pytest.mark.x\ndef test_a(): pass\n" }))!.why.testCmd).toMatch(
      /tests\/test_a\.py is written for pytest/,
    );
    // TestCase classes stay unittest's.
    expect(
      detectCommands(view({ "setup.py": "", "tests/test_a.py": "import unittest\nclass T(unittest.TestCase):\n    def test_a(self): pass\n" }))!.args.testCmd,
    ).toBe("python3 -m unittest discover -s tests -v");
  });

  it("Go, Rust, a Makefile's test target; nothing for a repository that declares none", () => {
    expect(detectCommands(view({ "go.mod": "module x\n" }))!.args).toEqual({ testCmd: "go test ./...", buildCmd: "go vet ./..." });
    expect(detectCommands(view({ "Cargo.toml": "[package]\n" }))!.args).toEqual({ testCmd: "cargo test" });
    expect(detectCommands(view({ Makefile: "all:\n\tcc x.c\ntest: all\n\t./run\n" }))!.args).toEqual({ testCmd: "make test" });
    expect(detectCommands(view({ Makefile: "TEST := 1\n", "README.md": "" }))).toBeUndefined();
    // A package.json kept for tooling only (no test script, no runner) does not hide the Python tests.
    expect(detectCommands(view({ "package.json": pkg({ devDependencies: { prettier: "3" } }), "pytest.ini": "[pytest]\n" }))!.args.testCmd).toBe(
      "python3 -m pytest -rA",
    );
  });

  it("nothing at the root: a project one folder down is named as a command to pass (`cd backend && go test ./...`), never detected", () => {
    const repo = view({ "README.md": "", "backend/go.mod": "module x\n", "web/README.md": "" });
    expect(detectCommands(repo)).toBeUndefined();
    expect(nestedCommands(repo)).toEqual({ dir: "backend", args: { testCmd: "cd backend && go test ./...", buildCmd: "cd backend && go vet ./..." } });
    // A folder name a shell would read as syntax is not offered.
    expect(nestedCommands(view({ "$(touch x)/go.mod": "module x\n" }))).toBeUndefined();
    expect(nestedCommands(view({ "node_modules/x/go.mod": "", ".git/go.mod": "" }))).toBeUndefined();
  });

  it("hostile package.json contents are data: not JSON, scripts that are not strings", () => {
    expect(detectCommands(view({ "package.json": "{not json", "go.mod": "module x" }))!.args.testCmd).toBe("go test ./...");
    expect(detectCommands(view({ "package.json": pkg({ scripts: { test: 42 }, devDependencies: ["jest"] }) }))).toBeUndefined();
  });
});

describe("commands that cannot run, found at start (issue 24)", () => {
  const defu = {
    "package.json": pkg({ scripts: { test: "pnpm lint && vitest run", lint: "eslint ." } }),
    "node_modules/.bin/vitest": "",
    "node_modules/.bin/eslint": "",
  };
  it("names a package manager a given command or its script needs, with the fix and a command that works", () => {
    const notes = missingToolNotes({ testCmd: "npm test" }, view(defu), false);
    expect(notes).toEqual([
      expect.stringMatching(
        /^testCmd "npm test" needs pnpm \(in package\.json scripts\.test\), which is not installed .*exit 127: `corepack enable` \(or `npm i -g pnpm`\), or pass testCmd: "npx vitest run"\.$/,
      ),
    ]);
    expect(missingToolNotes({ testCmd: "pnpm test" }, view(defu), false)[0]).toMatch(/^testCmd "pnpm test" needs pnpm, which/);
  });

  it("a tool npx would download, pytest not installed, go missing; nothing for what is there", () => {
    expect(missingToolNotes({ lintCmd: "npx oxlint" }, view(defu), false)[0]).toMatch(/needs oxlint.*install the project's dependencies/);
    expect(missingToolNotes({ lintCmd: "npx oxlint" }, view(defu), true)).toEqual([]);
    expect(missingToolNotes({ testCmd: "PYTHONPATH=src python3 -m pytest -q" }, view({}, ["python3"]), false)[0]).toMatch(/needs pytest.*pip install pytest/);
    expect(missingToolNotes({ testCmd: "go test ./..." }, view({}, []), false)[0]).toMatch(/needs go.*install Go/);
    expect(missingToolNotes({ testCmd: "cd sub && npx vitest run", buildCmd: "./build.sh", lintCmd: "$LINT" }, view(defu), false)).toEqual([]);
  });

  it("after a run, `pnpm: not found` (exit 127) is a program not installed, not missing dependencies", () => {
    expect(notFoundProgram("\n> x@1 test\n> pnpm lint\n\nsh: 1: pnpm: not found\n", 127)).toBe("pnpm");
    expect(notFoundProgram("bash: line 1: yarn: command not found\n", 127)).toBe("yarn");
    expect(notFoundProgram("sh: 1: ./run.sh: not found\n", 127)).toBeUndefined();
    expect(notFoundProgram("sh: 1: pnpm: not found\n", 1)).toBeUndefined();
    const run = {
      cmd: "npm test",
      exitCode: 127,
      timedOut: false,
      durationMs: 1,
      output: { all: "sh: 1: pnpm: not found\n", stdout: "", stderr: "sh: 1: pnpm: not found\n" },
    };
    const notices = environmentNotices("/nonexistent", { test: run as never });
    expect(notices).toEqual([expect.stringMatching(/^pnpm is not installed \("npm test" exited 127, "pnpm: not found"\): `corepack enable`/)]);
  });
});

describe("a baseline is never 'improved' (issue 24)", () => {
  it("step 0 is the reference; a first step without one improves only if it scores", () => {
    expect(foldProgress([{ step: 0, score: 0, testsPass: false }], 0.9)!.improved).toBe(false);
    expect(foldProgress([{ step: 0, score: 0.6, testsPass: false }], 0.9)!.improved).toBe(false);
    expect(
      foldProgress(
        [
          { step: 0, score: 0, testsPass: false },
          { step: 1, score: 0.5, testsPass: false },
        ],
        0.9,
      )!.improved,
    ).toBe(true);
    expect(foldProgress([{ step: 1, score: 0, testsPass: false }], 0.9)!.improved).toBe(false);
    expect(foldProgress([{ step: 1, score: 0.4, testsPass: false }], 0.9)!.improved).toBe(true);
  });
});
