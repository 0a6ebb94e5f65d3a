/**
 * Tests tracked by name across a session, so that a candidate cannot raise its score by skipping,
 * `.only`-ing away, deleting or adding tests. Pure functions over the parsers' test lists.
 *
 * The reference is the tests that ran (passed or failed) at the first point of the current history that
 * ran any: the baseline when preflight ran, else the first step. It is fixed for the history: tests seen
 * at later steps never join it, so padding at step N does not become the yardstick of step N+1.
 * - A reference test that is now skipped or absent counts as failing (absent also when the part of an
 *   `&&` chain that runs it never ran because an earlier part failed).
 * - A test outside the reference (added by a candidate, or skipped at the reference and now run) counts
 *   only while it fails: it can lower the score, never raise it. A test written before its fix (TDD)
 *   lowers the step that adds it and costs nothing once the fix makes it pass. When it later goes
 *   missing or is skipped, it is named, not scored.
 * - A test that was only ever skipped counts for nothing, so a suite with a skip at the baseline can
 *   still reach 1.0.
 * When the output names only the failing tests (counts only: `pytest -q`), nothing is invented: skips beyond the fewest earlier
 * skips count as failing, passes beyond the reference's number of tests are not counted, and each test
 * fewer than the reference ran counts as failing (missing).
 *
 * Where the runner counts finer units than tests (TestCounts.units: tape's assertions, pytest's failed
 * subtests), the counts stay the runner's and tests are still what is compared: a lost test counts as
 * failing by the units it ran at the reference, a reference test's assertions newly skipped count as
 * failing, passing units a reference test ran beyond its units at the reference are not counted (padding
 * a test with passing assertions), and without names the tests that ran are compared (`testsRan`), so
 * that fixed subtests, which pytest no longer reports, are not missing tests.
 */
import { byName, MAX_LOST_LISTED } from "./test-identity-names.js";
import { lostWords, missingWords } from "./test-identity-words.js";
import { STOPPED_FORMAT, type TestCounts, type TestFailure } from "./types.js";
import type { UnconfirmedTest } from "./unconfirmed.js";

export interface LostTest {
  name: string;
  how: "missing" | "skipped";
  /** First step of the current run of steps in which it was missing (or skipped). */
  since: number;
  /** The part of the `&&` chain that runs it and did not run at this step. */
  notRun?: string;
  /** The runner's units counted as failing for it when not one (TestCounts.units: what it ran at the reference). */
  units?: number;
  /** The units taken out of the skipped count for it, when not one (skipped) or none (missing). */
  skippedUnits?: number;
  /** It still runs, and this many of its assertions are skipped beyond those skipped at the reference. */
  partly?: boolean;
}

/** A test that did not run at the reference, ran at a later step, and is now skipped or absent (named, not scored). */
export interface DroppedTest {
  name: string;
  how: "missing" | "skipped";
  /** The first step at which it ran. */
  added: number;
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
  /** Counts-only output: how many fewer tests ran than at the reference, counted as failing. */
  missing?: number;
  /** The first step of the current run of steps that ran fewer tests than the reference. */
  missingSince?: number;
  /** Parts of the test command's `&&` chain that did not run at this step. */
  notRun?: string[];
  /** Named output: tests added after the reference that are now skipped or absent (not scored). */
  dropped?: DroppedTest[];
  /** Output that counts no passes: earlier failing tests no longer reported after their file changed (unconfirmed.ts). */
  unconfirmed?: UnconfirmedTest[];
  /** Records written before a shortfall was scored: said, never counted (rawCounts leaves it alone). */
  fewer?: number;
  fewerThanStep?: number;
  /** The step whose tests are the reference (absent while no earlier point ran a test). */
  reference?: number;
  /** Named output: tests outside the reference. Their passes and skips are left out of the counts. */
  added?: AddedTests;
  /** Counts-only output: passes beyond the reference's number of tests, left out of the counts. */
  capped?: number;
  /** Named output counted in units: passing units of reference tests beyond what each ran at the reference, left out. */
  padded?: number;
  /** Counts-only output counted in units: how many fewer tests ran than at the reference (`missing` is in units). */
  missingTests?: number;
  /** Counts-only output: the reference's test files that failed to load and are gone, among the missing. */
  filesGone?: string[];
  /** How many tests ran at the reference (counts-only output). */
  referenceRan?: number;
  /**
   * Counts-only output against a reference that named every test: the reference's step. By counts a failing
   * test swapped for a new passing one looks like a fix, so the test signal is held at the reference's (judge.ts).
   */
  namesLost?: number;
}

export interface AddedTests {
  passed: number;
  failed: number;
  skipped: number;
  /** The first few names, for the feedback. */
  names: string[];
}

/** Counts the output showed in full: only those can be compared across steps (unknown is null). */
export type KnownCounts = TestCounts & { passed: number; failed: number; skipped: number; total: number };

export function knownCounts(t: TestCounts | null | undefined): t is KnownCounts {
  return !!t && t.passed !== null && t.failed !== null && t.skipped !== null && t.total !== null;
}

/** Whether a point ran tests and showed them: a chain stopped by a checker before its runners ran none. */
export function ranTests(t: TestCounts | null | undefined): t is KnownCounts {
  return knownCounts(t) && t.passed + t.failed > 0 && t.format !== STOPPED_FORMAT;
}

/** Marks the failures this module added, so an evaluation can be judged again against another history. */
export const LOST_MARK = "[counted as failing] ";

/**
 * Compares this step's tests with the earlier steps' (oldest first). Returns null when there is
 * nothing to judge: the test command did not run or its output could not be read.
 */
export function judgeTests(current: TestCounts | null | undefined, step: number, earlier: TestHistoryPoint[]): TestIdentity | null {
  if (!knownCounts(current)) return null;
  // A chain stopped before its runners showed no tests: it is no yardstick (of tests or of skips).
  const readable = earlier.filter((e): e is { step: number; tests: KnownCounts } => knownCounts(e.tests) && e.tests.format !== STOPPED_FORMAT);
  if (readable.length === 0) return { lost: [], extraSkipped: 0 };
  // Without a point that ran tests there is nothing new tests could dilute: they all count.
  const ref = readable.find((e) => ranTests(e.tests));
  const notRun = current.notRun?.length ? { notRun: current.notRun } : {};
  if (ref && current.cases && ref.tests.cases) return { ...byName(current, current.cases, ref, step, readable), ...notRun, reference: ref.step };
  // Counts only: the fewest skips of the earlier steps and the reference's number of tests are the yardstick.
  let minSkipped = Infinity;
  for (const e of readable) minSkipped = Math.min(minSkipped, e.tests.skipped);
  const extraSkipped = Math.max(0, current.skipped - minSkipped);
  const id: TestIdentity = { lost: [], extraSkipped };
  if (!ref) return id;
  // A part of the chain that did not run, or a checker that stopped it, fails the step already; another
  // format than the reference's is judged as such (judge.ts formatChanged).
  // A reference that named only files that failed to load named no test to swap (a load point gone is no longer
  // one: session withLoadsPresent).
  if (ref.tests.cases?.some((c) => !c.load) && !current.notRun?.length && current.format === ref.tests.format) id.namesLost = ref.step;
  const refRan = testsRanOf(ref.tests);
  const ranOf = (t: KnownCounts) => testsRanOf(t) + Math.max(0, t.skipped - minSkipped);
  const ranNow = ranOf(current);
  // Fewer tests than the reference: the missing ones (deleted, or in a part of the chain that never ran)
  // count as failing, since the step that began running fewer. A test file that failed to load at the reference
  // and is gone is one of them, whatever else runs now (h34: deleted beside a trivial test and a comment, 1.000).
  const gone = ref.tests.filesGone ?? [];
  const missing = Math.max(0, refRan - ranNow, gone.length);
  if (missing > 0) {
    let since = step;
    for (let i = readable.length - 1; i >= 0; i--) {
      const e = readable[i]!;
      if (e.step <= ref.step || refRan - ranOf(e.tests) <= 0) break;
      since = e.step;
    }
    // Counted in units (failed subtests), a missing test may have taken any of the reference's failing
    // units with it: every unit fewer than the reference ran counts as failing.
    const unitsFewer = ref.tests.units || current.units ? ref.tests.passed + ref.tests.failed - (current.passed + current.failed + extraSkipped) : 0;
    const units = Math.max(missing, unitsFewer);
    const files = gone.length ? { filesGone: gone } : {};
    Object.assign(id, { missing: units, missingSince: since, referenceRan: refRan }, units !== missing ? { missingTests: missing } : {}, notRun, files);
  }
  // Unnamed tests beyond the reference's count (less its files gone) may be new: assume they are the passing ones.
  const capped = Math.min(current.passed, Math.max(0, ranNow - (refRan - gone.length)));
  if (capped > 0) Object.assign(id, { capped, referenceRan: refRan });
  return { ...id, reference: ref.step };
}

/** Tests that ran (passed or failed): where the counts are units, as the output says; else the counts. */
function testsRanOf(t: KnownCounts): number {
  return t.units && t.testsRan !== undefined ? t.testsRan : t.passed + t.failed;
}

/** Whether the judgement changes the counts or has something to say. */
export function identityMatters(id: TestIdentity | null | undefined): id is TestIdentity {
  return (
    !!id &&
    (id.lost.length > 0 ||
      id.extraSkipped > 0 ||
      (id.missing ?? 0) > 0 ||
      (id.fewer ?? 0) > 0 ||
      !!id.added ||
      (id.capped ?? 0) > 0 ||
      (id.padded ?? 0) > 0 ||
      id.namesLost !== undefined ||
      !!id.dropped?.length)
  );
}

/**
 * How the judgement moves the raw counts (rawCounts applies the same numbers backwards): lost tests and
 * extra skips become failures (`toFailed`), taking what they had in the skipped count with them
 * (`fromSkipped`); passes and skips outside the reference are left out.
 */
function shifts(id: TestIdentity): { toFailed: number; fromSkipped: number; missing: number; droppedPassed: number; droppedSkipped: number } {
  let toFailed = id.extraSkipped;
  let fromSkipped = id.extraSkipped;
  let missing = id.missing ?? 0;
  for (const l of id.lost) {
    if (l.how === "missing") missing += l.units ?? 1;
    else toFailed += l.units ?? 1;
    fromSkipped += l.skippedUnits ?? (l.how === "skipped" ? 1 : 0);
  }
  return {
    toFailed,
    fromSkipped,
    missing,
    droppedPassed: (id.added?.passed ?? 0) + (id.capped ?? 0) + (id.padded ?? 0),
    droppedSkipped: id.added?.skipped ?? 0,
  };
}

/**
 * The counts this step is scored with: lost tests and extra skips move from skipped/absent to failed;
 * passes and skips of tests outside the reference are left out (their failures stay).
 */
export function adjustCounts(tests: KnownCounts, id: TestIdentity | null): KnownCounts {
  if (!identityMatters(id)) return tests;
  const d = shifts(id);
  const added: TestFailure[] = id.lost.slice(0, MAX_LOST_LISTED).map((l) => ({ name: l.name, message: `${LOST_MARK}${lostWords(l)}` }));
  if (id.extraSkipped > 0)
    added.push({
      name: `(${id.extraSkipped} more skipped test${id.extraSkipped === 1 ? "" : "s"})`,
      message: `${LOST_MARK}more tests skipped than at earlier steps; the output names only the failing tests`,
    });
  if ((id.missing ?? 0) > 0) added.push({ name: `(${id.missing} missing test${id.missing === 1 ? "" : "s"})`, message: `${LOST_MARK}${missingWords(id)}` });
  return {
    ...tests,
    passed: tests.passed - d.droppedPassed,
    failed: tests.failed + d.toFailed + d.missing,
    skipped: Math.max(0, tests.skipped - d.fromSkipped - d.droppedSkipped),
    total: tests.total + d.missing + d.toFailed - d.fromSkipped - d.droppedPassed - d.droppedSkipped,
    failures: [...tests.failures, ...added],
  };
}

/** Undoes adjustCounts (an evaluation reused from the cache is judged against the current history). */
export function rawCounts(tests: KnownCounts, id: TestIdentity | null | undefined): KnownCounts {
  if (!identityMatters(id)) return tests;
  const d = shifts(id);
  return {
    ...tests,
    passed: tests.passed + d.droppedPassed,
    failed: tests.failed - d.toFailed - d.missing,
    skipped: tests.skipped + d.fromSkipped + d.droppedSkipped,
    total: tests.total - d.missing - d.toFailed + d.fromSkipped + d.droppedPassed + d.droppedSkipped,
    failures: tests.failures.filter((f) => !f.message?.startsWith(LOST_MARK)),
  };
}
