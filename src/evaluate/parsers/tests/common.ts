import type { TestCase, TestCounts, TestFailure } from "../../types.js";
import { dedupeFailures } from "../util.js";

/** What every test parser receives: the output cleaned once, so each parser does not strip ANSI again. */
export interface TestInput {
  /** stdout+stderr as they arrived, without colour codes. */
  text: string;
  lines: string[];
  /** stdout alone, without colour codes (JSON reporters write only there). */
  stdout: string;
  /** stderr alone, without colour codes, when the streams were kept apart (unittest writes only there). */
  stderr?: string;
  cwd?: string;
  /** The Go module path (go.mod), to place `x_test.go:12:` messages in their package's folder. */
  goModule?: string;
}

/**
 * How far from the end a summary line is looked for: runners print it last, but wrappers (npm, make)
 * may print their own lines after it. Bounding the search keeps a miss cheap on huge logs.
 */
export const TAIL_LINES = 2000;

/** Failures kept in one result; the counts stay exact, only the list is cut. */
export const MAX_FAILURES = 200;

/**
 * Test names kept for tracking tests across steps (they are stored with every step). A suite larger
 * than this is tracked by counts only.
 */
export const MAX_CASES = 10_000;

export function counts(
  format: string,
  c: { passed: number | null; failed: number | null; skipped: number | null; total?: number | null; units?: TestCounts["units"]; testsRan?: number },
  failures: TestFailure[],
  note?: string,
  cases?: TestCase[],
): TestCounts {
  const list = dedupeFailures(failures).slice(0, MAX_FAILURES);
  const total = c.total !== undefined ? c.total : c.passed === null || c.failed === null || c.skipped === null ? null : c.passed + c.failed + c.skipped;
  const out: TestCounts = { passed: c.passed, failed: c.failed, skipped: c.skipped, total, failures: list, format };
  if (c.units) Object.assign(out, { units: c.units }, c.testsRan !== undefined ? { testsRan: c.testsRan } : {});
  if (note) out.note = note;
  if (cases && cases.length > 0 && cases.length <= MAX_CASES) out.cases = cases;
  return out;
}

/** Builds a TestFailure without undefined-valued keys, so results compare equal to plain JSON. */
export function failure(name: string, message?: string, loc?: { file?: string; line?: number }): TestFailure {
  const f: TestFailure = { name };
  if (message !== undefined && message !== "") f.message = message;
  if (loc?.file !== undefined) f.file = loc.file;
  if (loc?.line !== undefined && Number.isFinite(loc.line)) f.line = loc.line;
  return f;
}
