import { afterAll, beforeAll, describe, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { needs, type RunnerCase, refineWith, rustEnv } from "../helpers/real-runners.js";
import { tmpDir } from "../helpers/repo.js";

/**
 * pytest, unittest, go test and cargo test, from the machine (CI installs them, .ci/run), run by the real
 * server in a session worktree: a failing baseline, a wrong fix, the right fix scoring 1 and halting
 * (test/helpers/real-runners.ts). The captured outputs in fixtures/outputs stay the readers' unit tests.
 */

const PY_BODIES = { bug: "max(lo, x)", wrong: "min(hi, x)", right: "min(hi, max(lo, x))" };
const calcPy = (body: string) => `def add(a, b):\n    return a + b\n\n\ndef clamp(x, lo, hi):\n    return ${body}\n`;
const PY_CASES = [
  ["add_two_and_three", "add(2, 3)", "5"],
  ["clamp_inside_stays", "clamp(5, 0, 10)", "5"],
  ["clamp_below_rises_to_lo", "clamp(-1, 0, 10)", "0"],
  ["clamp_above_falls_to_hi", "clamp(11, 0, 10)", "10"],
  ["clamp_far_above_falls_to_hi", "clamp(100, 0, 10)", "10"],
] as const;

/** Output holding each marker exactly so many times (go test -v prints one line per test, no totals). */
const exactly = (counts: Record<string, number>) =>
  new RegExp(
    `^${Object.entries(counts)
      .map(([m, n]) => `(?=(?:[^]*?${m}){${n}}(?![^]*${m}))`)
      .join("")}`,
  );

const CASES: Record<string, RunnerCase> = {
  pytest: {
    runner: "pytest",
    cmd: "python3 -m pytest",
    lib: ["calc.py", calcPy],
    bodies: PY_BODIES,
    files: {
      ".gitignore": ".pytest_cache\n__pycache__\n",
      "test_calc.py": `from calc import add, clamp\n\n${PY_CASES.map(([n, a, b]) => `\ndef test_${n}():\n    assert ${a} == ${b}\n`).join("")}`,
    },
    summary: (p, f) => new RegExp(`=+ ${f ? `${f} failed, ` : ""}${p} passed in `),
    below: /test_clamp_below_rises_to_lo/,
  },
  unittest: {
    runner: "unittest",
    cmd: "python3 -m unittest",
    lib: ["calc.py", calcPy],
    bodies: PY_BODIES,
    files: {
      ".gitignore": "__pycache__\n",
      "test_calc.py": `import unittest\n\nfrom calc import add, clamp\n\n\nclass CalcTest(unittest.TestCase):${PY_CASES.map(([n, a, b]) => `\n    def test_${n}(self):\n        self.assertEqual(${a}, ${b})\n`).join("")}`,
    },
    summary: (_p, f) => new RegExp(`Ran 5 tests in [\\d.]+s\\n\\n${f ? `FAILED \\(failures=${f}\\)` : "OK"}`),
    below: /test_clamp_below_rises_to_lo/,
  },
  "go test": {
    runner: "go test",
    cmd: "go test ./...",
    lib: [
      "calc.go",
      (body: string) =>
        `package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Clamp(x, lo, hi int) int { return ${body} }\n\nfunc min(a, b int) int {\n\tif a < b {\n\t\treturn a\n\t}\n\treturn b\n}\n\nfunc max(a, b int) int {\n\tif a > b {\n\t\treturn a\n\t}\n\treturn b\n}\n`,
    ],
    bodies: PY_BODIES,
    files: {
      "go.mod": "module example.com/calc\n\ngo 1.19\n",
      "calc_test.go": `package calc\n\nimport "testing"\n${PY_CASES.map(([n, a, b]) => `\nfunc Test${n.replace(/(^|_)(\w)/g, (_m, _u, c: string) => c.toUpperCase())}(t *testing.T) {\n\tif got := ${a.replace(/^(\w)/, (c) => c.toUpperCase())}; got != ${b} {\n\t\tt.Errorf("got %d, want ${b}", got)\n\t}\n}\n`).join("")}`,
    },
    summary: (_p, f) => exactly({ "--- FAIL: ": f, [f ? "FAIL\\s+example\\.com/calc" : "ok\\s+example\\.com/calc"]: 1 }),
    below: /TestClampBelowRisesToLo/,
    // Without -v go names only the failing tests: code-trm knows no passed count and scores by the exit code.
    onlyFailures: true,
  },
  "go test -v": {
    runner: "go test -v",
    cmd: "go test -v ./...",
    lib: [
      "calc.go",
      (body: string) =>
        `package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Clamp(x, lo, hi int) int { return ${body} }\n\nfunc min(a, b int) int {\n\tif a < b {\n\t\treturn a\n\t}\n\treturn b\n}\n\nfunc max(a, b int) int {\n\tif a > b {\n\t\treturn a\n\t}\n\treturn b\n}\n`,
    ],
    bodies: PY_BODIES,
    files: {
      "go.mod": "module example.com/calc\n\ngo 1.19\n",
      "calc_test.go": `package calc\n\nimport "testing"\n${PY_CASES.map(([n, a, b]) => `\nfunc Test${n.replace(/(^|_)(\w)/g, (_m, _u, c: string) => c.toUpperCase())}(t *testing.T) {\n\tif got := ${a.replace(/^(\w)/, (c) => c.toUpperCase())}; got != ${b} {\n\t\tt.Errorf("got %d, want ${b}", got)\n\t}\n}\n`).join("")}`,
    },
    summary: (p, f) => exactly({ "--- PASS: ": p, "--- FAIL: ": f }),
    below: /TestClampBelowRisesToLo/,
  },
  "cargo test": {
    runner: "cargo test",
    cmd: "cargo test",
    lib: [
      "src/lib.rs",
      (body: string) =>
        `pub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n\npub fn clamp(x: i64, lo: i64, hi: i64) -> i64 {\n    ${body}\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n${PY_CASES.map(([n, a, b]) => `\n    #[test]\n    fn ${n}() {\n        assert_eq!(${a}, ${b});\n    }\n`).join("")}}\n`,
    ],
    bodies: { bug: "x.max(lo)", wrong: "x.min(hi)", right: "x.max(lo).min(hi)" },
    files: {
      ".gitignore": "/target\n",
      "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
      "Cargo.lock":
        '# This file is automatically @generated by Cargo.\n# It is not intended for manual editing.\nversion = 3\n\n[[package]]\nname = "calc"\nversion = "0.1.0"\n',
    },
    summary: (p, f) => new RegExp(`test result: ${f ? "FAILED" : "ok"}\\. ${p} passed; ${f} failed;`),
    below: /clamp_below_rises_to_lo/,
  },
};

let srv: TestServer;
beforeAll(async () => {
  // The toolchains' caches (go's build cache under the empty HOME, pytest's) go to folders removed after the file.
  srv = await startServer({ env: { ...rustEnv(), TMPDIR: tmpDir("trm-runners-tmp-") } });
});
afterAll(async () => {
  await srv?.close();
});

const TOOLS: Record<string, string[]> = {
  pytest: ["python3", "pytest"],
  unittest: ["python3"],
  "go test": ["go"],
  "go test -v": ["go"],
  "cargo test": ["cargo"],
};

describe.concurrent("Python, Go and Rust runners, run for real in a session", () => {
  for (const c of Object.values(CASES)) {
    const need = needs(TOOLS[c.runner]!);
    it.skipIf(need.skip)(
      `${c.runner}: \`${c.cmd}\` fails at the baseline, scores a wrong fix below 1 and the right fix 1, then halts${need.why}`,
      async () => {
        const ms = await refineWith(srv, c);
        console.log(`[real-runners] ${c.runner}: ${ms} ms`);
      },
      180_000,
    );
  }
});

const sandboxed = needs(["bwrap", "python3", "pytest"]);
it.skipIf(sandboxed.skip)(
  `pytest under sandbox: true gives the same verdicts${sandboxed.why}`,
  async () => {
    const ms = await refineWith(srv, CASES.pytest!, { sandbox: true });
    console.log(`[real-runners] pytest (sandbox): ${ms} ms`);
  },
  180_000,
);

// Go writes its build cache in the home folder: the sandbox gives the session a private one.
for (const [key, tools] of [
  ["go test -v", ["bwrap", "go"]],
  ["cargo test", ["bwrap", "cargo"]],
] as const) {
  const need = needs([...tools]);
  it.skipIf(need.skip)(
    `${key} under sandbox: true gives the same verdicts${need.why}`,
    async () => {
      const ms = await refineWith(srv, CASES[key]!, { sandbox: true });
      console.log(`[real-runners] ${key} (sandbox): ${ms} ms`);
    },
    180_000,
  );
}
