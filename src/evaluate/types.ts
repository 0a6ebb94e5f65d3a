/** Contracts shared by the evaluator, the parsers and feedback. */

export interface TestFailure {
  name: string;
  message?: string;
  file?: string;
  line?: number;
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

/** What a command printed, split as the parsers need it (JSON reporters write only to stdout). */
export interface CommandOutput {
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as they arrived. */
  all: string;
}
