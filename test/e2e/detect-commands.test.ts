import { existsSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, textOf } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { installRunners, needs, RUNNERS, rustEnv } from "../helpers/real-runners.js";
import { checkoutState, repoFromFiles, tmpDir } from "../helpers/repo.js";

/**
 * A start with only `repoPath` (issue 24): the repository's commands are detected from what it declares,
 * per ecosystem, and the first step (a wrong fix of clamp: 4 of 5 tests pass) gets the score the
 * runner's own counts give. The runners are real (fixtures/runners, and pytest/go/cargo of the machine).
 */

type Any = Record<string, any>;
const esm = (body: string) => `export const add = (a, b) => a + b;\nexport const clamp = (x, lo, hi) => ${body};\n`;
const BUG = "Math.max(lo, x)";
const WRONG = "Math.min(hi, x)";
const CASES = [
  ["add two and three", "add(2, 3)", "5"],
  ["inside stays", "clamp(5, 0, 10)", "5"],
  ["below rises to lo", "clamp(-1, 0, 10)", "0"],
  ["above falls to hi", "clamp(11, 0, 10)", "10"],
  ["far above falls to hi", "clamp(100, 0, 10)", "10"],
] as const;
const vitestSuite = `import { expect, test } from "vitest";\nimport { add, clamp } from "../lib.js";\n${CASES.map(([n, a, b]) => `test(${JSON.stringify(n)}, () => expect(${a}).toBe(${b}));`).join("\n")}\n`;
const mochaSuite = `import assert from "node:assert/strict";\nimport { add, clamp } from "../lib.js";\n${CASES.map(([n, a, b]) => `it(${JSON.stringify(n)}, () => assert.equal(${a}, ${b}));`).join("\n")}\n`;

/** A JavaScript repository of `files` with the bug, fixtures/runners' node_modules linked in (ignored). */
function jsRepo(files: Record<string, string>): string {
  const dir = repoFromFiles({ ".gitignore": "node_modules\n", "lib.js": esm(BUG), ...files }, "trm-detect-");
  symlinkSync(path.join(RUNNERS, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}

/** The server's PATH without the folders that hold `program` (pnpm is then "not installed"). */
const pathWithout = (program: string) =>
  (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((d) => d && !existsSync(path.join(d, program)))
    .join(path.delimiter);
const onPath = (program: string) => (process.env.PATH ?? "").split(path.delimiter).some((d) => d && existsSync(path.join(d, program)));

let srv: TestServer;
let noPnpm: TestServer;
beforeAll(async () => {
  installRunners();
  srv = await startServer({ env: { ...rustEnv(), TMPDIR: tmpDir("trm-detect-tmp-") } });
  noPnpm = await startServer({ env: { PATH: pathWithout("pnpm") } });
}, 600_000);
afterAll(async () => {
  await srv?.close();
  await noPnpm?.close();
});

/** Starts with repoPath alone, submits the wrong fix, and returns what start detected and the step's result. */
async function firstStep(server: TestServer, repo: string, lib: string, wrong: string): Promise<{ start: Any; text: string; step: Any }> {
  const before = checkoutState(repo);
  const raw = await server.raw("trm_start_session", { repoPath: repo });
  expect(raw.isError, textOf(raw)).toBeFalsy();
  const start = raw.structuredContent as Any;
  const step = await server.call<Any>("trm_submit_candidate", {
    sessionId: start.sessionId,
    candidate: filesCandidate(lib, wrong),
    rationale: "clamp to hi (forgets lo)",
  });
  await server.call("trm_end_session", { sessionId: start.sessionId, discard: true });
  expect(checkoutState(repo)).toEqual(before);
  return { start, text: textOf(raw), step };
}

/** 4 of 5 tests pass, the one the wrong fix breaks named, and the score the counts give. */
function expectWrongFix(step: Any, below: RegExp): void {
  expect(step.tests, step.feedback).toMatchObject({ passed: 4, failed: 1, total: 5 });
  expect(step.tests.failures.map((f: Any) => f.name)).toEqual([expect.stringMatching(below)]);
  expect(step.score).toBeCloseTo(0.8, 6);
}

describe.concurrent("a start with only repoPath", () => {
  it("npm: package.json's test script, run by npm (package-lock.json)", async () => {
    const repo = jsRepo({
      "package.json": JSON.stringify({ name: "calc", private: true, type: "module", scripts: { test: "vitest run" } }),
      "package-lock.json": '{ "lockfileVersion": 3 }\n',
      "test/clamp.test.js": vitestSuite,
    });
    const { start, text, step } = await firstStep(srv, repo, "lib.js", esm(WRONG));
    expect(start.detected).toEqual({
      commands: { testCmd: "npm test" },
      why: { testCmd: expect.stringMatching(/scripts\.test \("vitest run"\) run by npm \(package-lock\.json\)/) },
    });
    expect(text).toContain('commands detected (none given), as you would pass them: {"testCmd":"npm test"}');
    expect(start.notes.join("\n")).toMatch(/Vitest can also print a report code-trm reads exactly .* testCmd is kept as the project runs it/);
    expectWrongFix(step, /below rises to lo/);
  }, 180_000);

  it("pnpm declared but not installed: the script's runner run directly, and the fix named", async () => {
    const repo = jsRepo({
      "package.json": JSON.stringify({
        name: "calc",
        private: true,
        type: "module",
        packageManager: "pnpm@9.0.0",
        scripts: { test: "pnpm test:unit", "test:unit": "vitest run" },
      }),
      "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
      "test/clamp.test.js": vitestSuite,
    });
    const { start, step } = await firstStep(noPnpm, repo, "lib.js", esm(WRONG));
    expect(start.detected.commands).toEqual({ testCmd: "npx vitest run" });
    expect(start.detected.why.testCmd).toMatch(/directly, as pnpm \(package\.json packageManager "pnpm@9\.0\.0"\) is not installed/);
    expect(start.notes[0]).toMatch(/^pnpm is not installed .*"pnpm test" would exit 127: `corepack enable`/);
    expectWrongFix(step, /below rises to lo/);
  }, 180_000);

  it("yarn (yarn.lock): yarn runs the script, or npm when yarn is not installed", async () => {
    const repo = jsRepo({
      "package.json": JSON.stringify({ name: "calc", private: true, type: "module", scripts: { test: "mocha" } }),
      "yarn.lock": "# yarn lockfile v1\n",
      "test/clamp.test.js": mochaSuite,
    });
    const { start, step } = await firstStep(srv, repo, "lib.js", esm(WRONG));
    expect(start.detected.commands).toEqual({ testCmd: onPath("yarn") ? "yarn test" : "npm test" });
    expect(start.detected.why.testCmd).toMatch(/yarn\.lock/);
    expectWrongFix(step, /below rises to lo/);
  }, 180_000);

  const py = needs(["python3", "pytest"]);
  it.skipIf(py.skip)(
    `Python src layout with pytest: src on PYTHONPATH, no install needed${py.why}`,
    async () => {
      const calc = (body: string) => `def add(a, b):\n    return a + b\n\n\ndef clamp(x, lo, hi):\n    return ${body}\n`;
      const repo = repoFromFiles(
        {
          ".gitignore": ".pytest_cache\n__pycache__\n",
          "pyproject.toml": '[project]\nname = "calc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
          "src/calc/__init__.py": calc("max(lo, x)"),
          "tests/test_calc.py": `from calc import add, clamp\n${CASES.map(([n, a, b]) => `\n\ndef test_${n.replace(/ /g, "_")}():\n    assert ${a} == ${b}\n`).join("")}`,
        },
        "trm-detect-py-",
      );
      const { start, step } = await firstStep(srv, repo, "src/calc/__init__.py", calc("min(hi, x)"));
      expect(start.detected.commands).toEqual({ testCmd: "PYTHONPATH=src:$PYTHONPATH python3 -m pytest -rA" });
      expect(start.detected.why.testCmd).toMatch(/pytest named in pyproject\.toml; src layout \(src\/calc\)/);
      expectWrongFix(step, /test_below_rises_to_lo/);
    },
    180_000,
  );

  it.skipIf(py.skip)(
    `Python doctests the project's tox.ini runs (boltons' line): detected, so a candidate that breaks a docstring example does not score 1${py.why}`,
    async () => {
      const calc = (doc: string, body: string) => `def add(a, b):\n    return a + b\n\n\ndef clamp(x, lo, hi):\n    """${doc}"""\n    return ${body}\n`;
      const doc = "Clamp x.\n\n    >>> clamp(5, 0, 10)\n    5\n    ";
      const repo = repoFromFiles(
        {
          ".gitignore": ".pytest_cache\n__pycache__\n",
          "pyproject.toml": '[project]\nname = "calc"\nversion = "0.1.0"\n\n[dependency-groups]\ndev = ["pytest>=8"]\n',
          "tox.ini": "[testenv]\nchangedir = .tox\ncommands = pytest --doctest-modules {env_site_packages_dir}/calc {tox_root}/tests {posargs}\n",
          "calc/__init__.py": calc(doc, "max(lo, min(hi, x))"),
          "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
        },
        "trm-detect-doctest-",
      );
      // The example's text changed, the code right: only the doctest can fail.
      const { start, step } = await firstStep(srv, repo, "calc/__init__.py", calc(doc.replace("    5\n", "    6\n"), "max(lo, min(hi, x))"));
      expect(start.detected.commands).toEqual({ testCmd: "python3 -m pytest -rA --doctest-modules calc tests" });
      expect(start.detected.why.testCmd).toMatch(/tox\.ini runs pytest with its doctests/);
      expect(step.tests, step.feedback).toMatchObject({ passed: 1, failed: 1, total: 2 });
      expect(step.tests.failures.map((f: Any) => f.name)).toEqual(["calc/__init__.py::calc.clamp"]);
      expect(step.score).toBeLessThan(1);
      expect(step.shouldHalt).toBe(false);
    },
    180_000,
  );

  const go = needs(["go"]);
  it.skipIf(go.skip)(
    `go: go test ./... and go vet ./...${go.why}`,
    async () => {
      // Go 1.19 (Debian's) has no min and max of its own.
      const calc = (body: string) =>
        `package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Clamp(x, lo, hi int) int { return ${body} }\n\nfunc min(a, b int) int {\n\tif a < b {\n\t\treturn a\n\t}\n\treturn b\n}\n\nfunc max(a, b int) int {\n\tif a > b {\n\t\treturn a\n\t}\n\treturn b\n}\n`;
      const repo = repoFromFiles(
        {
          "go.mod": "module example.com/calc\n\ngo 1.19\n",
          "calc.go": calc("max(lo, x)"),
          "calc_test.go": `package calc\n\nimport "testing"\n\nfunc TestClampBelow(t *testing.T) {\n\tif got := Clamp(-1, 0, 10); got != 0 {\n\t\tt.Errorf("got %d", got)\n\t}\n}\n\nfunc TestClampAbove(t *testing.T) {\n\tif got := Clamp(11, 0, 10); got != 10 {\n\t\tt.Errorf("got %d", got)\n\t}\n}\n`,
        },
        "trm-detect-go-",
      );
      const { start, step } = await firstStep(srv, repo, "calc.go", calc("min(hi, x)"));
      expect(start.detected.commands).toEqual({ testCmd: "go test ./...", buildCmd: "go vet ./..." });
      // go test without -v names only failures: the test score follows the exit code; go vet passes.
      expect(step.okBuild).toBe(true);
      expect(step.tests.failures.map((f: Any) => f.name)).toEqual([expect.stringMatching(/TestClampBelow/)]);
      expect(step.score).toBeCloseTo(0.3 / (0.3 + 0.5), 6);
    },
    180_000,
  );

  const cargo = needs(["cargo"]);
  it.skipIf(cargo.skip)(
    `cargo: cargo test${cargo.why}`,
    async () => {
      const lib = (body: string) =>
        `pub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n\npub fn clamp(x: i64, lo: i64, hi: i64) -> i64 {\n    ${body}\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n${CASES.map(([n, a, b]) => `\n    #[test]\n    fn ${n.replace(/ /g, "_")}() {\n        assert_eq!(${a}, ${b});\n    }\n`).join("")}}\n`;
      const repo = repoFromFiles(
        {
          ".gitignore": "/target\n",
          "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
          "src/lib.rs": lib("x.max(lo)"),
        },
        "trm-detect-rs-",
      );
      const { start, step } = await firstStep(srv, repo, "src/lib.rs", lib("x.min(hi)"));
      expect(start.detected.commands).toEqual({ testCmd: "cargo test" });
      expectWrongFix(step, /below_rises_to_lo/);
    },
    300_000,
  );
});

describe("commands that cannot run", () => {
  it("a given command whose script needs pnpm is named at start; its baseline is 'baseline', not 'improved', and blamed on pnpm", async () => {
    const repo = jsRepo({
      "package.json": JSON.stringify({ name: "calc", private: true, type: "module", scripts: { test: "pnpm lint && vitest run", lint: "node -e 0" } }),
      "test/clamp.test.js": vitestSuite,
    });
    const raw = await noPnpm.raw("trm_start_session", { repoPath: repo, testCmd: "npm test", preflight: true });
    const start = raw.structuredContent as Any;
    expect(start.detected).toBeUndefined();
    expect(start.notes[0]).toMatch(
      /^testCmd "npm test" needs pnpm \(in package\.json scripts\.test\), which is not installed .*`corepack enable`.*or pass testCmd: "npx vitest run"\./,
    );
    expect(start.preflight.score).toBe(0);
    expect(start.feedback).toMatch(/^step 0: score 0\.000 \(best 0\.000 at step 0, ema 0\.000\) baseline\n/);
    expect(start.feedback).not.toMatch(/improved/);
    expect(start.feedback).toMatch(/pnpm is not installed \("npm test" exited 127, "pnpm: not found"\)/);
    expect(start.feedback).not.toMatch(/dependencies may be missing|Dependencies not installed/);
    await noPnpm.call("trm_end_session", { sessionId: start.sessionId, discard: true });
  }, 180_000);

  it("a repository that declares nothing: the start is refused, saying what was looked for, and nothing is made", async () => {
    const repo = repoFromFiles({ "README.md": "hello\n" }, "trm-detect-none-");
    const before = checkoutState(repo);
    const raw = await srv.raw("trm_start_session", { repoPath: repo });
    expect(raw.isError).toBe(true);
    expect(textOf(raw)).toMatch(
      /No evaluation command given, and none could be detected in .*no package\.json test script.*Pass the command you run the tests with as testCmd/s,
    );
    expect(checkoutState(repo)).toEqual(before);
  }, 60_000);

  it("a Go module one folder down is offered in the refusal as the command to pass, not run", async () => {
    const repo = repoFromFiles({ "README.md": "hello\n", "backend/go.mod": "module x\n\ngo 1.21\n" }, "trm-detect-nested-");
    const raw = await srv.raw("trm_start_session", { repoPath: repo });
    expect(raw.isError).toBe(true);
    expect(textOf(raw)).toContain('for the project in backend/, e.g. {"testCmd":"cd backend && go test ./...","buildCmd":"cd backend && go vet ./..."}');
  }, 60_000);
});
