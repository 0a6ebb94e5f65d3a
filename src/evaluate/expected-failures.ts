/**
 * Tests marked as expected to fail (`test.failing`, `test.fails`): several reports print such a test as a
 * pass while it still fails (AVA's TAP, Vitest's JSON, Jest's and bun's text), so a candidate that marks the
 * failing test looked like a fix and ended the session. The reports cannot say it; the test file can. Which
 * words mark one is each runner's descriptor's (`expectedFailure`); only the session's runners' are looked
 * for, and only in test files. The reading is expected-failure-marks.ts's.
 */
import type { FileTexts } from "./expected-failure-marks.js";
import type { ExpectedFailureMark, RunnerDescriptor } from "./runners/index.js";

/** The marks the session's runners know. */
export const markersOf = (runners: RunnerDescriptor[]): ExpectedFailureMark[] => runners.flatMap((r) => (r.expectedFailure ? [r.expectedFailure] : []));

/** The files whose text a runner with such a mark reads as tests (JavaScript and TypeScript). */
export const mayMarkExpectedFailure = (file: string): boolean => /\.[cm]?[jt]sx?$/.test(file);

/**
 * The marks the step's test files have that the baseline's did not, as `"file:line: text"` (at most five).
 * TypeScript's parser is loaded here, at the first test file a session reads, not when the server starts (a few
 * hundred ms).
 */
export async function addedExpectedFailures(files: FileTexts[], markers: ExpectedFailureMark[]): Promise<string[]> {
  if (markers.length === 0 || files.length === 0) return [];
  return (await import("./expected-failure-marks.js")).addedMarks(files, markers);
}
