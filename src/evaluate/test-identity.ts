/**
 * Tests tracked by name across a session, so that a candidate cannot raise its score by skipping,
 * `.only`-ing away or deleting tests. Pure functions over the parsers' test lists.
 *
 * The reference is every test an earlier step of the current history ran (passed or failed). A test
 * that ran before and is now skipped or absent counts as failing; a test that was only ever skipped
 * counts for nothing, so a suite with a skip at the baseline can still reach 1.0. When the output names
 * no tests (counts only), nothing is invented: only skips beyond the fewest earlier skips count as
 * failing, and fewer tests than before is said, not scored.
 */
import type { TestCase, TestCounts, TestFailure } from "./types.js";

export interface LostTest {
  name: string;
  how: "missing" | "skipped";
  /** First step of the current run of steps in which it was missing (or skipped). */
  since: number;
}

/** What one earlier evaluated step knew about its tests. */
export interface TestHistoryPoint {
  step: number;
  tests: TestCounts | null | undefined;
}

export interface TestIdentity {
  /** Tests that ran at an earlier step and are now skipped or absent: counted as failing. */
  lost: LostTest[];
  /** Counts-only output: skips beyond the fewest of earlier steps, counted as failing. */
  extraSkipped: number;
  /** Counts-only output: how many fewer tests ran than at `fewerThanStep` (said, not scored). */
  fewer: number;
  fewerThanStep?: number;
}

/** Counts the output showed in full: only those can be compared across steps (unknown is null). */
export type KnownCounts = TestCounts & { passed: number; failed: number; skipped: number; total: number };

export function knownCounts(t: TestCounts | null | undefined): t is KnownCounts {
  return !!t && t.passed !== null && t.failed !== null && t.skipped !== null && t.total !== null;
}

/** Marks the failures this module added, so an evaluation can be judged again against another history. */
export const LOST_MARK = "[counted as failing] ";

const MAX_LOST_LISTED = 200;

/**
 * Compares this step's tests with the earlier steps' (oldest first). Returns null when there is
 * nothing to judge: the test command did not run or its output could not be read.
 */
export function judgeTests(current: TestCounts | null | undefined, step: number, earlier: TestHistoryPoint[]): TestIdentity | null {
  if (!knownCounts(current)) return null;
  const readable = earlier.filter((e): e is { step: number; tests: KnownCounts } => knownCounts(e.tests));
  if (readable.length === 0) return { lost: [], extraSkipped: 0, fewer: 0 };
  if (current.cases) return { lost: lostByName(current.cases, step, readable), extraSkipped: 0, fewer: 0 };
  // Counts only: the fewest skips and the most tests run of the earlier steps are the reference.
  let minSkipped = Infinity;
  let maxRan = -1;
  let maxRanStep = 0;
  for (const e of readable) {
    minSkipped = Math.min(minSkipped, e.tests.skipped);
    const ran = e.tests.passed + e.tests.failed;
    if (ran > maxRan) {
      maxRan = ran;
      maxRanStep = e.step;
    }
  }
  const extraSkipped = Math.max(0, current.skipped - minSkipped);
  const ranNow = current.passed + current.failed + extraSkipped;
  const fewer = Math.max(0, maxRan - ranNow);
  return { lost: [], extraSkipped, fewer, ...(fewer > 0 ? { fewerThanStep: maxRanStep } : {}) };
}

function lostByName(cases: TestCase[], step: number, earlier: { step: number; tests: TestCounts }[]): LostTest[] {
  const now = new Map(cases.map((c) => [c.name, c.status]));
  // Tests an earlier step ran; only steps whose output named their tests can vouch for a test.
  const ran = new Set<string>();
  for (const e of earlier) for (const c of e.tests.cases ?? []) if (c.status !== "skipped") ran.add(c.name);
  const lost: LostTest[] = [];
  let maps: (Map<string, TestCase["status"]> | undefined)[] | undefined;
  for (const name of ran) {
    const status = now.get(name);
    if (status === "passed" || status === "failed") continue;
    const how = status === "skipped" ? "skipped" : "missing";
    maps ??= earlier.map((e) => (e.tests.cases ? new Map(e.tests.cases.map((c) => [c.name, c.status])) : undefined));
    lost.push({ name, how, since: lostSince(name, how, step, earlier, maps) });
  }
  return lost.sort((a, b) => a.since - b.since || a.name.localeCompare(b.name));
}

/** Walks back while the earlier steps show the test in the same state (steps without names are passed over). */
function lostSince(name: string, how: LostTest["how"], step: number, earlier: { step: number }[], maps: (Map<string, TestCase["status"]> | undefined)[]): number {
  let since = step;
  for (let i = earlier.length - 1; i >= 0; i--) {
    const m = maps[i];
    if (!m) continue;
    const st = m.get(name);
    const same = how === "missing" ? st === undefined : st === "skipped";
    if (!same) break;
    since = earlier[i]!.step;
  }
  return since;
}

/** The counts this step is scored with: lost tests and extra skips move from skipped/absent to failed. */
export function adjustCounts(tests: KnownCounts, id: TestIdentity | null): KnownCounts {
  if (!id || (id.lost.length === 0 && id.extraSkipped === 0)) return tests;
  const skippedNow = id.lost.filter((l) => l.how === "skipped").length + id.extraSkipped;
  const missing = id.lost.filter((l) => l.how === "missing").length;
  const added: TestFailure[] = id.lost.slice(0, MAX_LOST_LISTED).map((l) => ({ name: l.name, message: `${LOST_MARK}${lostWords(l)}` }));
  if (id.extraSkipped > 0) added.push({ name: `(${id.extraSkipped} more skipped test${id.extraSkipped === 1 ? "" : "s"})`, message: `${LOST_MARK}more tests skipped than at earlier steps; the output does not name them` });
  return {
    ...tests,
    failed: tests.failed + skippedNow + missing,
    skipped: Math.max(0, tests.skipped - skippedNow),
    total: tests.total + missing,
    failures: [...tests.failures, ...added],
  };
}

/** Undoes adjustCounts (an evaluation reused from the cache is judged against the current history). */
export function rawCounts(tests: KnownCounts, id: TestIdentity | null | undefined): KnownCounts {
  if (!id || (id.lost.length === 0 && id.extraSkipped === 0)) return tests;
  const skippedNow = id.lost.filter((l) => l.how === "skipped").length + id.extraSkipped;
  const missing = id.lost.filter((l) => l.how === "missing").length;
  return {
    ...tests,
    failed: tests.failed - skippedNow - missing,
    skipped: tests.skipped + skippedNow,
    total: tests.total - missing,
    failures: tests.failures.filter((f) => !f.message?.startsWith(LOST_MARK)),
  };
}

export function lostWords(l: LostTest): string {
  return l.how === "missing" ? `went missing at step ${l.since}` : `skipped at step ${l.since}`;
}

/** One line for the feedback, or none. */
export function identityNotice(id: TestIdentity | null | undefined): string | undefined {
  if (!id) return undefined;
  const parts: string[] = [];
  if (id.lost.length > 0) {
    const shown = id.lost.slice(0, 8).map((l) => `${l.name} (${lostWords(l)})`);
    parts.push(`${id.lost.length} test${id.lost.length === 1 ? "" : "s"} that ran at an earlier step ${id.lost.length === 1 ? "is" : "are"} now skipped or missing and count${id.lost.length === 1 ? "s" : ""} as failing: ${shown.join(", ")}${id.lost.length > 8 ? ", …" : ""}`);
  }
  if (id.extraSkipped > 0) parts.push(`${id.extraSkipped} more test${id.extraSkipped === 1 ? "" : "s"} skipped than at earlier steps, counted as failing (the output does not name tests)`);
  if (id.fewer > 0) parts.push(`${id.fewer} fewer test${id.fewer === 1 ? "" : "s"} ran than at step ${id.fewerThanStep} (the output does not name tests, so this is not scored; a verbose or JSON reporter lets code-trm track them)`);
  return parts.length ? parts.join("; ") : undefined;
}
