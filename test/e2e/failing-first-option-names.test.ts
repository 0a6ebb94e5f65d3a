import { symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { installRunners, needs, RUNNERS, rustEnv } from "../helpers/real-runners.js";
import { checkoutState, repoFromFiles, tmpDir } from "../helpers/repo.js";

/**
 * Failing first (docs/failing-first.md) with a failing test whose name starts with `-`, each runner run for
 * real through the real server: the selection must never hand the name to the runner as an option. pytest
 * gets `./-x_test.py::…` (a path); cargo a second `--` before the names (`--include-ignored` would also run
 * the ignored tests); AVA `--match=<title>` (after `--match`, `--watch …` is read as options and the filter
 * is lost: every test runs); go no selection at all when a package read from the output starts with `-` (a flag to go test).
 */

type Any = Record<string, any>;

let srv: TestServer;
beforeAll(async () => {
  installRunners();
  srv = await startServer({ env: { ...rustEnv(), TMPDIR: tmpDir("trm-ffo-tmp-") } });
}, 600_000);
afterAll(async () => {
  await srv?.close();
});

/** A session at its baseline (preflight), then a step that changes nothing the tests see: what ran and how it was judged. */
async function noOpStep(files: Record<string, string>, testCmd: string, touch: string, extra: Any = {}) {
  const repo = repoFromFiles(files, "trm-ffo-");
  if (extra.linkPaths) symlinkSync(path.join(RUNNERS, "node_modules"), path.join(repo, "node_modules"));
  const before = checkoutState(repo);
  const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd, preflight: true, timeoutSec: 600, ...extra });
  const step = await srv.call<Any>("trm_submit_candidate", {
    sessionId: s.sessionId,
    candidate: { mode: "files", files: [{ path: touch, content: `${files[touch]}\n` }] },
    rationale: "a change that fixes nothing",
  });
  const state = await srv.call<Any>("trm_get_state", { sessionId: s.sessionId });
  const log = (await srv.call<Any>("trm_read_log", { sessionId: s.sessionId, at: "1", command: "test", limit: 100_000 })).content as string;
  await srv.call("trm_end_session", { sessionId: s.sessionId, discard: true });
  expect(checkoutState(repo)).toEqual(before);
  return { preflight: s.preflight, step, cmds: state.last.commands.map((c: Any) => c.cmd) as string[], log };
}

const pytest = needs(["pytest"]);
const go = needs(["go"]);
const cargo = needs(["cargo"]);

describe.concurrent("failing first: a test name starting with `-` is never an option", () => {
  it.skipIf(pytest.skip)(
    `pytest: \`-k_test.py::test_above\` is given as a path${pytest.why}`,
    async () => {
      const r = await noOpStep(
        {
          "pytest.ini": "[pytest]\npythonpath = .\n",
          ".gitignore": "__pycache__\n.pytest_cache\n",
          "calc.py": "def clamp(x, lo, hi):\n    return max(lo, x)\n",
          "-k_test.py":
            "from calc import clamp\n\ndef test_above():\n    assert clamp(11, 0, 10) == 10\n\ndef test_inside():\n    assert clamp(5, 0, 10) == 5\n",
          "test_other.py": "from calc import clamp\n\ndef test_below():\n    assert clamp(-1, 0, 10) == 0\n",
        },
        "python3 -m pytest -q",
        "calc.py",
      );
      expect(r.preflight.tests).toMatchObject({ passed: 2, failed: 1 });
      // Given as `-k_test.py::test_above`, pytest read `-k` and deselected every test: the selection matched none.
      expect(r.cmds).toEqual(["python3 -m pytest -q './-k_test.py::test_above'"]);
      expect(r.step.partial, `${r.step.feedback}\n${r.log}`).toBe(true);
      expect(r.step.ran).toBe("1 of 3");
      expect(r.step.tests).toMatchObject({ passed: 2, failed: 1 });
    },
    300_000,
  );

  it.skipIf(cargo.skip)(
    `cargo test: a trial named \`--include-ignored\` after a second \`--\`${cargo.why}`,
    async () => {
      // A test target with a harness of its own (as libtest-mimic's are) names its trials as it likes.
      const harness = [
        "fn main() {",
        '    println!("\\nrunning 1 test\\ntest --include-ignored ... FAILED\\n\\nfailures:\\n\\n---- --include-ignored stdout ----\\ntrial failed\\n\\nfailures:\\n    --include-ignored\\n");',
        '    println!("test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\\n");',
        "    std::process::exit(101);",
        "}",
      ].join("\n");
      const r = await noOpStep(
        {
          "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n\n[[test]]\nname = "custom"\nharness = false\n',
          ".gitignore": "target\n",
          "src/lib.rs":
            'pub fn add(a: i32, b: i32) -> i32 { a + b }\n#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test] fn adds() { assert_eq!(add(2, 3), 5); }\n    #[test] #[ignore] fn slow() { panic!("an ignored test ran"); }\n}\n',
          "tests/custom.rs": `${harness}\n`,
        },
        "cargo test --offline",
        "src/lib.rs",
      );
      expect(r.preflight.tests).toMatchObject({ passed: 1, failed: 1, skipped: 1 });
      expect(r.cmds).toEqual(["cargo test --offline '--' '--exact' '--' '--include-ignored'"]);
      expect(r.step.partial, `${r.step.feedback}\n${r.log}`).toBe(true);
      // Read as libtest's option, it ran the ignored test too (and failed it): here it filtered out both unit tests.
      expect(r.log).not.toMatch(/an ignored test ran/);
      expect(r.step.tests).toMatchObject({ passed: 1, failed: 1, skipped: 1 });
      expect(r.step.tests.failures.map((f: Any) => f.name)).toEqual(["--include-ignored"]);
    },
    600_000,
  );

  it.skipIf(go.skip)(
    `go test: a package read as \`-count=3\` gets no selection, the whole suite runs${go.why}`,
    async () => {
      // A test printing what go test prints (a golden file's contents, a harness of its own), read as a package's result.
      const r = await noOpStep(
        {
          "go.mod": "module example.com/calc\n\ngo 1.19\n",
          "calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
          "calc_test.go":
            'package calc\n\nimport (\n\t"fmt"\n\t"testing"\n)\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("add")\n\t}\n}\n\nfunc TestReport(t *testing.T) {\n\tfmt.Println("--- FAIL: TestGolden (0.00s)")\n\tfmt.Println("FAIL\\t-count=3\\t0.001s")\n\tt.Fatal("report differs")\n}\n',
        },
        "go test -v ./...",
        "calc.go",
      );
      expect(r.preflight.tests.failures.map((f: Any) => f.name)).toContain("-count=3.TestGolden");
      // Selected, it ran `go test -v ./... '-count=3' …`: TestReport three times.
      expect(r.cmds).toEqual(["go test -v ./..."]);
      expect(r.step.partial).toBeUndefined();
      expect(r.log.match(/^=== RUN {3}TestReport$/gm)).toHaveLength(1);
      expect(r.step.tests).toMatchObject({ failed: r.preflight.tests.failed, passed: r.preflight.tests.passed });
    },
    300_000,
  );

  it("AVA: `--match=<title>`, one word, for titles starting with `-`", async () => {
    const r = await noOpStep(
      {
        ".gitignore": "node_modules\n",
        "package.json": '{ "name": "calc", "private": true, "type": "module" }\n',
        "lib.js": "export const sign = (x) => Math.sign(x);\n",
        "test/sign.test.js":
          'import test from "ava";\nimport { sign } from "../lib.js";\ntest("--watch: sign of -1", (t) => { t.is(sign(-1), 1); });\ntest("zero", (t) => { t.is(sign(0), 0); });\ntest("one", (t) => { t.is(sign(1), 1); });\n',
      },
      "npx ava",
      "lib.js",
      { linkPaths: ["node_modules"] },
    );
    expect(r.preflight.tests).toMatchObject({ passed: 2, failed: 1 });
    expect(r.cmds).toEqual(["npx ava '--match=--watch: sign of -1'"]);
    expect(r.step.partial, `${r.step.feedback}\n${r.log}`).toBe(true);
    // After `--match`, the title was read as options: every test ran.
    expect(r.step.ran).toBe("1 of 3");
  }, 300_000);
});
