/**
 * The parsers run on whatever a command printed: multi-megabyte logs and arbitrary bytes. They must
 * stay fast (no regex that backtracks over a line) and never throw.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseBenchValue, parseDiagnostics, parseTests } from "../../../../src/evaluate/parsers/index.js";
import type { CommandOutput } from "../../../../src/evaluate/types.js";
import { CWD, listCases, loadCase } from "./corpus.js";

const MB = 1024 * 1024;
const out = (all: string): CommandOutput => ({ stdout: all, stderr: "", all });

/** Repeats `unit(i)` until the text reaches `size` bytes, then appends `tail`. */
function grow(unit: (i: number) => string, size: number, tail = ""): string {
  const parts: string[] = [];
  let len = 0;
  for (let i = 0; len < size; i++) {
    const s = unit(i);
    parts.push(s);
    len += s.length;
  }
  parts.push(tail);
  return parts.join("");
}

/** Best of two runs: a slow regex is slow every time, a busy CI machine only sometimes. */
function time<T>(f: () => T): { value: T; ms: number } {
  let best = Infinity;
  let value: T | undefined;
  for (let k = 0; k < 2; k++) {
    const t0 = performance.now();
    value = f();
    best = Math.min(best, performance.now() - t0);
  }
  return { value: value as T, ms: best };
}

// Generous against a loaded 2-core CI machine (a 5 MB pytest log took 1.2 s at load 4): what this
// guards against is a super-linear regex, which takes minutes on 5 MB. bench/parse.mjs reports the
// real figures.
const BUDGET_MS = 3000;

const LOGS: Record<string, () => { text: string; format: string; failed: number }> = {
  tap: () => {
    let failed = 0;
    const text = grow((i) => {
      if (i % 50 === 7) {
        failed++;
        return `not ok ${i} - case ${i}\n  ---\n  duration_ms: 0.5\n  location: '/WORKTREE/t.test.mjs:${i}:1'\n  error: |-\n    Expected values to be strictly equal:\n    1 !== 2\n  stack: |-\n    TestContext.<anonymous> (file:///WORKTREE/t.test.mjs:${i}:9)\n  ...\n`;
      }
      return `# Subtest: case ${i}\nok ${i} - case ${i}\n  ---\n  duration_ms: 0.1\n  ...\n`;
    }, 5 * MB);
    return { text: `TAP version 13\n${text}1..1\n`, format: "tap", failed };
  },
  "tap, one suite": () => {
    // node nests a describe's tests under it: one parent with tens of thousands of children.
    let failed = 0;
    const tests = grow((i) => {
      if (i % 100 === 1) {
        failed++;
        return `    # Subtest: case ${i}\n    not ok ${i} - case ${i}\n      ---\n      error: 'boom ${i}'\n      ...\n`;
      }
      return `    # Subtest: case ${i}\n    ok ${i} - case ${i}\n`;
    }, 5 * MB);
    return { text: `TAP version 13\n# Subtest: suite\n${tests}    1..1\nnot ok 1 - suite\n1..1\n`, format: "tap", failed };
  },
  pytest: () => {
    let failed = 0;
    const body = grow((i) => {
      failed++;
      return `_____ test_case_${i} _____\n\n    def test_case_${i}():\n>       assert f(${i}) == ${i + 1}\nE       assert ${i} == ${i + 1}\n\ntests/test_x.py:${i}: AssertionError\n`;
    }, 5 * MB);
    // The short summary names every failure again: matching the two must not be quadratic.
    const summary = Array.from({ length: failed }, (_, i) => `FAILED tests/test_x.py::test_case_${i} - assert ${i} == ${i + 1}\n`).join("");
    return {
      text: `===== test session starts =====\ncollected 1 item\n\n===== FAILURES =====\n${body}===== short test summary info =====\n${summary}===== ${failed} failed, 3 passed in 12.00s =====\n`,
      format: "pytest",
      failed,
    };
  },
  "go -json": () => {
    let failed = 0;
    const text = grow((i) => {
      const fail = i % 10 === 3;
      if (fail) failed++;
      const t = `{"Action":"run","Package":"example.com/p","Test":"Test${i}"}\n{"Action":"output","Package":"example.com/p","Test":"Test${i}","Output":"    p_test.go:${i}: want ${i}\\n"}\n`;
      return `${t}{"Action":"${fail ? "fail" : "pass"}","Package":"example.com/p","Test":"Test${i}","Elapsed":0}\n`;
    }, 5 * MB);
    return { text: `${text}{"Action":"fail","Package":"example.com/p","Elapsed":1}\n`, format: "go-json", failed };
  },
  jest: () => {
    let failed = 0;
    const text = grow((i) => {
      failed++;
      return `FAIL src/f${i}.test.js\n  ● suite › case ${i}\n\n    expect(received).toBe(expected)\n\n    Expected: ${i}\n    Received: ${i + 1}\n\n      at Object.toBe (src/f${i}.test.js:3:20)\n\n`;
    }, 5 * MB);
    return { text: `${text}Tests:       ${failed} failed, ${failed} total\nTest Suites: ${failed} failed, ${failed} total\n`, format: "jest", failed };
  },
  // Every other TAP line indented by 60 columns: tap-parser opened a child parser per 4 columns of each
  // (8.8 s for 8 MB); a TAP line now goes at most one level deeper than the one before it.
  "tap indentation ladder": () => {
    let failed = 0;
    // The indented points read as nested assertions of no subtest: the unindented ones are the tests.
    const text = grow(
      (i) => {
        if (i % 2 === 0) failed++;
        return `${i % 2 === 0 ? "" : " ".repeat(60)}not ok ${i + 1} - t\n`;
      },
      5 * MB,
      "not ok 999999 - last\n",
    );
    return { text: `TAP version 13\n${text}`, format: "tap", failed: failed + 1 };
  },
  cargo: () => {
    const text = grow((i) => `test module::case_${i} ... ok\n`, 5 * MB);
    return {
      text: `running many tests\n${text}\ntest result: ok. 170000 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 2.00s\n`,
      format: "cargo",
      failed: 0,
    };
  },
};

describe("large logs", () => {
  it.each(Object.keys(LOGS))("parses a 5 MB %s log within budget", (name) => {
    const { text, format, failed } = LOGS[name]!();
    expect(text.length).toBeGreaterThanOrEqual(5 * MB);
    const { value, ms } = time(() => parseTests(out(text), { cwd: CWD }));
    expect(value?.format).toBe(format);
    expect(value?.failed).toBe(failed);
    expect(ms).toBeLessThan(BUDGET_MS);
  });

  it("gives up on 5 MB of unrecognisable output within budget", () => {
    const text = grow((i) => `[${i}] compiling module ${i}: ok (12 ms) at src/m${i}.ts line ${i}\n`, 5 * MB);
    const { value, ms } = time(() => parseTests(out(text)));
    expect(value).toBeNull();
    expect(ms).toBeLessThan(BUDGET_MS);
  });

  it("reads diagnostics from a 5 MB build log within budget", () => {
    let n = 0;
    const text = grow((i) => {
      if (i % 20 !== 0) return `  info: processed ${i}\n`;
      n++;
      return `src/f${i}.ts(${i},3): error TS2322: Type 'string' is not assignable to type 'number'.\n`;
    }, 5 * MB);
    const { value, ms } = time(() => parseDiagnostics(text, { cwd: CWD }));
    expect(value.length).toBe(n);
    expect(ms).toBeLessThan(BUDGET_MS);
  });

  // Inputs shaped to make a backtracking regex go quadratic or worse on one long line.
  const PATHOLOGICAL: Record<string, string> = {
    parentheses: "a(".repeat(MB),
    colons: "x.py:1:".repeat(MB / 8),
    digits: "1".repeat(2 * MB),
    spaces: `  4:9  error  ${" ".repeat(2 * MB)}x`,
    frames: `    at ${"f (".repeat(MB / 4)}`,
    "test lines": `test ${"a ... ".repeat(MB / 6)}`,
    equals: `${"=".repeat(MB)} 1 passed${" in".repeat(1000)}`,
    "tap directives": `TAP version 13\nok 1 - ${"# ".repeat(MB)}\n1..1\n`,
    "no newline at all": "\u001b[31m".repeat(MB / 5),
  };

  it.each(Object.keys(PATHOLOGICAL))("stays linear on a long line of %s", (name) => {
    const text = PATHOLOGICAL[name]!;
    const { ms } = time(() => {
      parseTests(out(text), { cwd: CWD });
      parseDiagnostics(text, { cwd: CWD });
      parseBenchValue(text);
    });
    expect(ms).toBeLessThan(BUDGET_MS * 2);
  });
});

describe("arbitrary input", () => {
  // Pieces of real outputs, shuffled and cut, reach the branches that random bytes never would.
  const pieces = listCases().flatMap((id) => loadCase(id).output.all.split("\n").slice(0, 60));

  it("never throws, and always returns well-formed results", () => {
    const line = fc.oneof(fc.string(), fc.constantFrom(...pieces));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), fc.array(line, { maxLength: 10 }), (a, b) => {
        const all = [...a, ...b].join("\n");
        const r = parseTests({ stdout: a.join("\n"), stderr: b.join("\n"), all }, { cwd: CWD });
        if (r !== null) {
          if (r.total !== null) expect(r.total).toBeGreaterThanOrEqual(0);
          expect(r.failures.length).toBeLessThanOrEqual(Math.max(r.failed ?? 0, r.failures.length));
          for (const f of r.failures) expect(typeof f.name).toBe("string");
        }
        for (const d of parseDiagnostics(all, { cwd: CWD })) {
          expect(d.message.length).toBeGreaterThan(0);
          expect(["error", "warning"]).toContain(d.severity);
        }
        const v = parseBenchValue(all);
        expect(v === null || Number.isFinite(v)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
