/**
 * tape prints one point per assertion under a `# test name` comment and no line for a skipped test, so
 * tests are counted by comment: a test passes when all its assertions do. A test with no assertion
 * after its comment and no plan after it crashed the run (its error follows the comment).
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
    const bad = mine.find((p) => !p.ok && p.directive === null);
    if (bad) {
      failed++;
      failures.push(tapFailure(bad, g.name, cwd, bad.name));
      cases.push({ name: g.name, status: "failed" });
    } else if (mine.length > 0) {
      passed++;
      cases.push({ name: g.name, status: "passed" });
    } else if (!finished && g === last) {
      // The process died inside this test: its error (and the stack) follow the comment.
      const after = stream.afterLastGroup.join("\n");
      const err = /^\s*([\w$.]*(?:Error|Exception)\b[^\n]*)$/m.exec(after)?.[1];
      failed++;
      failures.push(failure(g.name, boundMessage(err ?? "the test run stopped here (crashed)"), firstProjectFrame(after, cwd)));
    }
  }
  // Tests after a crash never ran and tape printed nothing for skipped ones: the total is unknown.
  return counts("tap", { passed, failed, skipped: finished ? 0 : null, total: finished ? passed + failed : null }, failures, finished ? undefined : "the run stopped early; tests after the crash were not counted", finished ? cases : undefined);
}
