/** Contracts shared by the evaluator, the parsers and feedback. */

export interface TestFailure {
  name: string;
  message?: string;
  file?: string;
  line?: number;
  /** The test it is a failed part of (a subtest), when it is not a test itself. */
  test?: string;
  /** The file the test is in, where the reporter names it (vitest, jest): failing first runs only those files. Not shown. */
  testFile?: string;
}

/**
 * A count the output does not show is `null` (unknown), never 0: `go test` without -v names no passing
 * test, AVA's default reporter prints no skipped count. Scoring then follows the exit code.
 */
export interface TestCounts {
  passed: number | null;
  failed: number | null;
  skipped: number | null;
  total: number | null;
  failures: TestFailure[];
  /** Which format the counts were read from, e.g. "tap", "vitest-json", "pytest". */
  format: string;
  /** Optional caveat about the counts, e.g. when the format does not list passing tests. */
  note?: string;
  /**
   * Every test the output names, with its outcome, when the format lists them all (TAP, JUnit, JSON
   * reporters, unittest -v). Absent when only counts are printed: tests are then tracked by count.
   */
  cases?: TestCase[];
  /**
   * What the counts count when a test is not one of them, as the runner's own summary counts: tape counts
   * assertions, pytest 9 counts each failed subtest as failed beside its test. Tests stay what is tracked
   * across steps (`cases`, each with its units; `testsRan` where they are not named), so that a test
   * whose failing subtests are fixed, and no longer reported, is not taken for a missing test.
   */
  units?: "assertions" | "subtests";
  /** With `units`: how many tests ran (passed or failed). */
  testsRan?: number;
  /**
   * The runner stopped before it ran any test (mocha's "Exception during run": a test file did not load): the
   * one failure is that, read from what it printed instead of its report, so its format is no report's.
   */
  loadFailed?: true;
  /**
   * Set by the session on an earlier point's counts-only tests: its failures that named a test file that failed
   * to load and is gone from the step judged (session withLoadsPresent). Each counts as a test missing.
   */
  filesGone?: string[];
  /**
   * Parts of an `&&` chain that never ran because an earlier part failed (as typed). Their tests are
   * not in the counts; judged against earlier steps they count as failing (test-identity.ts).
   */
  notRun?: string[];
}

/**
 * The format of the counts of an `&&` chain stopped by a failing checker before any test runner
 * started (`xo && ava`, xo failing): the checker is the one failure, and no test ran.
 */
/**
 * How the evaluator's notice of an unreadable or partly counted test output ends (runner-hint.ts): the
 * judge finds it by these words and rewrites it where it fails the test signal instead (judge.ts).
 */
export const FOLLOWS_EXIT = "so the test score follows the exit code";

export const STOPPED_FORMAT = "stopped";

export interface TestCase {
  name: string;
  status: "passed" | "failed" | "skipped";
  /**
   * The file the test is in, where the output names it for every test (Vitest's and Jest's JSON reporters,
   * Vitest's verbose one): affected first finds the related tests a step deleted or renamed by it.
   */
  file?: string;
  /** The runner's units this test stands for in the counts (TestCounts.units), when not just its status. */
  units?: UnitTally;
  /**
   * Not a test: the test file or module itself, which failed to load (node --test's point named by its file,
   * unittest's `_FailedTest`). Once it loads, its tests take its place (test-identity.ts). "collect": pytest's
   * collection error, which pytest reports only while the file fails to collect.
   */
  load?: true | "collect";
}

export interface UnitTally {
  passed: number;
  failed: number;
  skipped: number;
}

/** What a test adds to the counts: its units, or one of its status. */
export function unitsOf(c: TestCase): UnitTally {
  return c.units ?? { passed: c.status === "passed" ? 1 : 0, failed: c.status === "failed" ? 1 : 0, skipped: c.status === "skipped" ? 1 : 0 };
}

export interface Diagnostic {
  file?: string;
  line?: number;
  column?: number;
  code?: string;
  message: string;
  severity: "error" | "warning";
  /** The tool that reported it: "tsc", "eslint", "python", "flake8", ... */
  source: string;
  /** The session command whose output it came from: build, test, lint, check:<name>. */
  command?: string;
}

/** What a command printed (exec/run.ts), as the parsers read it. */
export type { CommandOutput } from "../exec/run.js";
