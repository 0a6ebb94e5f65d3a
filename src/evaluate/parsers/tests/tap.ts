/**
 * TAP, as written by `node --test --test-reporter=tap` (node 20's default when not on a terminal),
 * node-tap, tape, `ava --tap`, `mocha --reporter tap` and Vitest's `tap` / `tap-flat` reporters. The
 * stream is read by tap-parser (tap-stream.ts); what each runner means by it is decided here.
 *
 * Node nests subtests and prints a parent's own `ok` line after its children; a parent is a suite, not a
 * test, so only leaves are counted. node-tap's tests are subtests whose children are assertions: such a
 * test counts once. When node's own summary comments are present (`# tests`, `# pass`, `# fail`,
 * `# cancelled`, `# skipped`, `# todo`) they are used as the counts, because they also cover cancelled
 * tests that have no line of their own. tape counts assertions, not tests (tape.ts).
 */
import type { TestCase, TestCounts, TestFailure } from "../../types.js";
import { normalizeName } from "../util.js";
import { counts, type TestInput } from "./common.js";
import { tapFailure } from "./tap-failure.js";
import { readTap, type TapPoint, type TapStream } from "./tap-stream.js";
import { isTape, tapeCounts } from "./tape.js";

export function parseTap(input: TestInput): TestCounts | null {
  const { lines, cwd } = input;
  // A TAP stream has a plan (`1..N`) or a version line; without one, `ok` at the start of a line is
  // too common (go test prints `ok  \tpkg`) to claim the output.
  let hasPlan = false;
  let hasPoint = false;
  for (const line of lines) {
    const t = line.trimStart();
    if (!hasPlan && (/^1\.\.\d+/.test(t) || t.startsWith("TAP version"))) hasPlan = true;
    if (!hasPoint && (t.startsWith("ok") || t.startsWith("not ok"))) hasPoint = /^(not )?ok\b/.test(t);
    if (hasPlan && hasPoint) break;
  }
  if (!hasPlan || !hasPoint) return null;

  let stream: TapStream;
  try {
    stream = readTap(lines);
  } catch {
    // tap-parser is third-party code run on arbitrary output: an exception there must not fail a step.
    return null;
  }
  if (stream.roots.length === 0) return null;
  if (isTape(stream)) return tapeCounts(stream, cwd);

  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures: TestFailure[] = [];
  const cases: TestCase[] = [];
  const visit = (p: TapPoint, prefix: string): boolean => {
    const name = normalizeName(p.name, cwd);
    const full = prefix ? `${prefix} > ${name}` : name;
    // node-tap: a subtest whose children are all assertions is one test; its failing assertion says why.
    if (p.subtest && p.children.length > 0 && p.children.every((c) => !c.subtest)) {
      if (p.directive !== null) {
        skipped++;
        cases.push({ name: full, status: "skipped" });
      } else if (p.ok) {
        passed++;
        cases.push({ name: full, status: "passed" });
      } else {
        failed++;
        const bad = p.children.find((c) => !c.ok && c.directive === null);
        failures.push(bad ? tapFailure(bad, full, cwd, bad.name) : tapFailure(p, full, cwd));
        cases.push({ name: full, status: "failed" });
        return true;
      }
      return false;
    }
    if (p.children.length > 0) {
      let childFailed = false;
      for (const c of p.children) childFailed = visit(c, full) || childFailed;
      // A suite that fails on its own (a hook threw) is a failure even when every test passed.
      if (!p.ok && p.directive === null && !childFailed) {
        failed++;
        failures.push(tapFailure(p, full, cwd));
        return true;
      }
      return childFailed;
    }
    if (p.directive !== null) {
      skipped++;
      cases.push({ name: full, status: "skipped" });
      return false;
    }
    if (p.ok) {
      passed++;
      cases.push({ name: full, status: "passed" });
      return false;
    }
    failed++;
    const f = tapFailure(p, full, cwd);
    failures.push(f);
    // node --test's point for a test file that failed outside any test (a require that threw): named by the file.
    cases.push({ name: full, status: "failed", ...(!prefix && f.testFile === full ? { load: true as const } : {}) });
    return true;
  };
  for (const p of stream.roots) visit(p, "");

  const s = stream.summary;
  if (s.tests !== undefined && s.pass !== undefined && (s.cancelled !== undefined || s.skipped !== undefined)) {
    // node's own totals: `pass` excludes todo tests, `fail` excludes cancelled ones.
    return counts(
      "tap",
      { passed: s.pass, failed: (s.fail ?? 0) + (s.cancelled ?? 0), skipped: (s.skipped ?? 0) + (s.todo ?? 0), total: s.tests },
      failures,
      undefined,
      cases,
    );
  }
  return counts("tap", { passed, failed, skipped }, failures, undefined, cases);
}
