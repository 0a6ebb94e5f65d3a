/**
 * tape prints one point per assertion under a `# test name` comment, and its own totals count
 * assertions (`# tests 8`, `# pass 4`, `# fail 4`): the counts here are tape's, one per assertion, so
 * that a change that fixes half a test's failing assertions is seen. Tests are what is tracked across
 * steps (`cases`, named by their comment, each with its assertions as units): a test fails when one of its
 * assertions does. A test with no assertion after its comment and no plan after it crashed the run (its
 * error follows the comment).
 *
 * Skips: `test.skip(...)` prints nothing at all (tape 5.10.2), so a run that printed no skip counts its
 * skipped tests as unknown (null), not 0. What tape does print counts as skipped: an assertion `# SKIP`
 * (`t.skip()`) or `# TODO` (tape counts both in `# pass`, but neither passed), and a test announced
 * `# SKIP name` (`{ skip: true }`) or `# TODO name` (`{ todo: true }`), one unit for the test.
 */
import type { TestCase, TestCounts, TestFailure, UnitTally } from "../../types.js";
import { boundMessage, firstProjectFrame } from "../util.js";
import { counts, failure } from "./common.js";
import { tapFailure } from "./tap-failure.js";
import type { TapGroup, TapPoint, TapStream } from "./tap-stream.js";

/** A stream that is tape's: only top-level points, each after a `# name` comment, no subtests. */
export function isTape(stream: TapStream): boolean {
  return (
    !stream.anySubtest && stream.groups.length > 0 && stream.roots.length > 0 && stream.roots.every((p) => p.group !== undefined && p.children.length === 0)
  );
}

export function tapeCounts(stream: TapStream, cwd?: string): TestCounts {
  const all: UnitTally = { passed: 0, failed: 0, skipped: 0 };
  let testsRan = 0;
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
  const push = (name: string, status: TestCase["status"], u: UnitTally): void => {
    all.passed += u.passed;
    all.failed += u.failed;
    all.skipped += u.skipped;
    if (status !== "skipped") testsRan++;
    const one = u[status] === 1 && u.passed + u.failed + u.skipped === 1;
    cases.push(one ? { name, status } : { name, status, units: u });
  };
  for (const g of groups) {
    const mine = byGroup.get(g) ?? [];
    const directive = /^(SKIP|TODO) (.+)$/.exec(g.name);
    const name = directive ? directive[2]! : g.name;
    const u: UnitTally = { passed: 0, failed: 0, skipped: 0 };
    for (const p of mine) u[p.directive !== null ? "skipped" : p.ok ? "passed" : "failed"]++;
    if (u.failed > 0) {
      const bad = mine.filter((p) => !p.ok && p.directive === null);
      failures.push(withOthers(tapFailure(bad[0]!, name, cwd, bad[0]!.name), bad.length, mine.length - u.skipped));
      push(name, "failed", u);
    } else if (directive || (mine.length > 0 && u.passed === 0)) {
      push(name, "skipped", mine.length > 0 ? u : { passed: 0, failed: 0, skipped: 1 });
    } else if (mine.length > 0) {
      push(name, "passed", u);
    } else if (!finished && g === last) {
      // The process died inside this test: its error (and the stack) follow the comment.
      const after = stream.afterLastGroup.join("\n");
      const err = /^\s*([\w$.]*(?:Error|Exception)\b[^\n]*)$/m.exec(after)?.[1];
      all.failed++;
      failures.push(failure(name, boundMessage(err ?? "the test run stopped here (crashed)"), firstProjectFrame(after, cwd)));
    }
  }
  if (!finished) {
    // Tests after the crash never ran: how many there were is unknown.
    return counts(
      "tap",
      { passed: all.passed, failed: all.failed, skipped: null, total: null, units: "assertions", testsRan },
      failures,
      "the run stopped early; tests after the crash were not counted",
    );
  }
  const note = all.skipped === 0 ? "tape prints nothing for test.skip, so the skipped count is unknown" : undefined;
  const skipped = all.skipped === 0 ? null : all.skipped;
  return counts(
    "tap",
    { passed: all.passed, failed: all.failed, skipped, total: skipped === null ? null : all.passed + all.failed + skipped, units: "assertions", testsRan },
    failures,
    note,
    cases,
  );
}

/** A test's first failing assertion is its failure; the message says how many others failed with it. */
function withOthers(f: TestFailure, failing: number, ran: number): TestFailure {
  if (failing < 2) return f;
  const more = `(${failing} of this test's ${ran} assertions failed; the first is shown)`;
  return { ...f, message: f.message ? `${f.message}\n${more}` : more };
}
