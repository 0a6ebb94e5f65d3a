/**
 * Python's unittest runner (`python -m unittest`, `-v`): `Ran 9 tests in 0.001s`, then `OK`,
 * `OK (skipped=1)` or `FAILED (failures=1, errors=2, skipped=1, expected failures=1)`, preceded by one
 * `FAIL: test_x (module.Class.test_x)` / `ERROR: ...` block per problem with its traceback.
 *
 * Errors (including a module that failed to import, which unittest reports as an ERROR of a synthetic
 * `_FailedTest`) and unexpected successes count as failures, as `wasSuccessful()` does; expected
 * failures count as skipped.
 */
import type { TestCase, TestCounts, TestFailure } from "../../types.js";
import { innermostProjectFrame, readTraceback } from "../python-traceback.js";
import { boundMessage } from "../util.js";
import { counts, failure, type TestInput } from "./common.js";

const RAN_RE = /^Ran (\d+) tests? in [\d.]+s\s*$/;

export function parseUnittest(input: TestInput): TestCounts | null {
  const { lines, cwd } = input;
  let ranAt = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i]!.startsWith("Ran ") && RAN_RE.test(lines[i]!)) {
      ranAt = i;
      break;
    }
  }
  if (ranAt < 0) return null;
  const ran = Number(RAN_RE.exec(lines[ranAt]!)![1]);
  const stat: Record<string, number> = {};
  for (let i = ranAt + 1; i < lines.length && i <= ranAt + 4; i++) {
    const m = /^(OK|FAILED|NO TESTS RAN)(?: \((.*)\))?\s*$/.exec(lines[i]!.trim());
    if (!m) continue;
    for (const item of (m[2] ?? "").split(",")) {
      const kv = /^\s*([a-z ]+)=(\d+)\s*$/.exec(item);
      if (kv) stat[kv[1]!.trim()] = Number(kv[2]);
    }
    break;
  }
  const failed = (stat.failures ?? 0) + (stat.errors ?? 0) + (stat["unexpected successes"] ?? 0);
  const skipped = (stat.skipped ?? 0) + (stat["expected failures"] ?? 0);
  const passed = Math.max(0, ran - failed - skipped);

  const failures: TestFailure[] = [];
  for (let i = 0; i < ranAt; i++) {
    if (!/^={20,}$/.test(lines[i]!)) continue;
    const head = /^(FAIL|ERROR|UNEXPECTED SUCCESS): (.+)$/.exec(lines[i + 1] ?? "");
    if (!head) continue;
    let j = i + 2;
    if (/^-{20,}$/.test(lines[j] ?? "")) j++;
    const start = j;
    while (j < ranAt && !/^={20,}$/.test(lines[j]!) && !/^-{20,}$/.test(lines[j]!)) j++;
    const block = lines.slice(start, j);
    failures.push(blockFailure(testName(head[2]!), block, cwd));
    i = j - 1;
  }
  // unittest prints a FAIL/ERROR block per failing test before its summary; a summary that counts fewer
  // failures was not printed by unittest alone (the code under test printed "Ran 3 tests ... OK" at exit
  // and scored 1.000), so the blocks count.
  const named = new Set(failures.map((f) => f.name)).size;
  if (named > failed) {
    const r = counts("unittest", { passed: Math.max(0, passed - (named - failed)), failed: named, skipped, total: ran }, failures);
    r.note = `the output names ${named} failing test${named === 1 ? "" : "s"} but its last summary counts ${failed}: the named ones count`;
    return r;
  }
  return counts("unittest", { passed, failed, skipped, total: ran }, failures, undefined, verboseCases(lines, ranAt, ran));
}

const VERBOSE_RE = /^(\S+) \(([^()\s]+)\)(?:\n.*)? \.\.\. (ok|FAIL|ERROR|skipped\b.*|expected failure|unexpected success)\s*$/;

/**
 * `-v` prints one `test_x (pkg.Class.test_x) ... ok` line per test (a docstring's first line may
 * sit between the name and the dots). The names are used only when there is one per test that ran:
 * output interleaved with the outcome lines would otherwise make tests look missing.
 */
function verboseCases(lines: string[], end: number, ran: number): TestCase[] | undefined {
  const cases: TestCase[] = [];
  for (let i = 0; i < end; i++) {
    const line = lines[i]!;
    if (!line.includes(" ... ")) continue;
    let m = VERBOSE_RE.exec(line);
    if (!m && i > 0 && /^\S+ \([^()\s]+\)$/.test(lines[i - 1]!)) m = VERBOSE_RE.exec(`${lines[i - 1]}\n${line}`);
    if (!m) continue;
    const outcome = m[3]!;
    const status = outcome === "ok" ? "passed" : outcome === "FAIL" || outcome === "ERROR" || outcome === "unexpected success" ? "failed" : "skipped";
    cases.push({ name: testName(`${m[1]} (${m[2]})`), status });
  }
  return cases.length === ran ? cases : undefined;
}

/**
 * `test_mul (tests.test_calc.CalcTest.test_mul)` (3.11+) or `test_mul (tests.test_calc.CalcTest)`
 * (older) both name `tests.test_calc.CalcTest.test_mul`; a module that failed to import is
 * `tests.test_broken (unittest.loader._FailedTest.tests.test_broken)` and is named by the module.
 */
function testName(s: string): string {
  const m = /^(\S+) \((.+)\)\s*$/.exec(s.trim());
  if (!m) return s.trim();
  const method = m[1]!;
  const id = m[2]!;
  if (id.startsWith("unittest.loader.") || id.startsWith("unittest.suite.")) return method;
  return id === method || id.endsWith(`.${method}`) ? id : `${id}.${method}`;
}

function blockFailure(name: string, block: string[], cwd?: string): TestFailure {
  // The last traceback of the block is the one that failed the test (earlier ones are its causes).
  let tbAt = -1;
  for (let k = block.length - 1; k >= 0; k--) {
    if (block[k]!.startsWith("Traceback (most recent call last):")) {
      tbAt = k;
      break;
    }
  }
  if (tbAt < 0) return failure(name, boundMessage(block.join("\n")));
  const tb = readTraceback(block, tbAt);
  if (!tb) return failure(name, boundMessage(block.join("\n")));
  const excLine = tb.type ? (tb.message ? `${tb.type}: ${tb.message}` : tb.type) : tb.message;
  const message = boundMessage([excLine ?? "", ...block.slice(tb.end + 1)].join("\n"));
  const frame = innermostProjectFrame(tb.frames, cwd);
  return failure(name, message, frame ? { file: frame.file, line: frame.line } : undefined);
}
