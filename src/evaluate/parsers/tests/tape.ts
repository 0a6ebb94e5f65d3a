/**
 * tape prints one point per assertion under a `# test name` comment, and its own totals count
 * assertions (`# tests 8`, `# pass 4`): tests are counted here by comment, a test passing when all its
 * assertions do. A test with no assertion after its comment and no plan after it crashed the run (its
 * error follows the comment).
 *
 * Skipped tests: `test.skip(...)` prints nothing at all (tape 5.10.2), so a run that printed no skip
 * counts its skipped tests as unknown (null), not 0. What tape does print counts: `# SKIP name` for
 * `{ skip: true }`, `# TODO name` for `{ todo: true }`, and a test whose assertions were all `t.skip()`.
 */
import type { TestCase, TestCounts, TestFailure } from "../../types.js";
import { boundMessage, firstProjectFrame } from "../util.js";
import { counts, failure } from "./common.js";
import { tapFailure } from "./tap-failure.js";
import type { TapGroup, TapPoint, TapStream } from "./tap-stream.js";

/** A stream that is tape's: only top-level points, each after a `# name` comment, no subtests. */
export function isTape(stream: TapStream): boolean {
  return !stream.anySubtest && stream.groups.length > 0 && stream.roots.length > 0 && stream.roots.every((p) => p.group !== undefined && p.children.length === 0);
}

export function tapeCounts(stream: TapStream, cwd?: string): TestCounts {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures: TestFailure[] = [];
  const cases: TestCase[] = [];
  const groups = stream.groups;
  const last = groups[groups.length - 1]!;
  const finished = last.planAfter;
  const byGroup = new Map<TapGroup, TapPoint[]>();
  for (const p of stream.roots) {
    const list = byGroup.get(p.group!);
    if (list) list.push(p);
    else byGroup.set(p.group!, [p]);
  }
  for (const g of groups) {
    const mine = byGroup.get(g) ?? [];
    const directive = /^(SKIP|TODO) (.+)$/.exec(g.name);
    const name = directive ? directive[2]! : g.name;
    const bad = mine.find((p) => !p.ok && p.directive === null);
    if (bad) {
      failed++;
      failures.push(tapFailure(bad, name, cwd, bad.name));
      cases.push({ name, status: "failed" });
    } else if (directive || (mine.length > 0 && mine.every((p) => p.directive !== null))) {
      skipped++;
      cases.push({ name, status: "skipped" });
    } else if (mine.length > 0) {
      passed++;
      cases.push({ name, status: "passed" });
    } else if (!finished && g === last) {
      // The process died inside this test: its error (and the stack) follow the comment.
      const after = stream.afterLastGroup.join("\n");
      const err = /^\s*([\w$.]*(?:Error|Exception)\b[^\n]*)$/m.exec(after)?.[1];
      failed++;
      failures.push(failure(name, boundMessage(err ?? "the test run stopped here (crashed)"), firstProjectFrame(after, cwd)));
    }
  }
  if (!finished) {
    // Tests after the crash never ran: how many there were is unknown.
    return counts("tap", { passed, failed, skipped: null, total: null }, failures, "the run stopped early; tests after the crash were not counted");
  }
  const note = skipped === 0 ? "tape prints nothing for test.skip, so the skipped count is unknown" : undefined;
  return counts("tap", { passed, failed, skipped: skipped === 0 ? null : skipped, total: skipped === 0 ? null : passed + failed + skipped }, failures, note, cases);
}
