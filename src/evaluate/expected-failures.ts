/**
 * Tests marked as expected to fail (`test.failing`, `test.fails`): several reports print such a test as a
 * pass while it still fails (AVA's TAP, Vitest's JSON, Jest's and bun's text), so a candidate that marks the
 * failing test looked like a fix and ended the session. The reports cannot say it; the test file can. Which
 * words mark one is each runner's descriptor's (`expectedFailure`); only the session's runners' are looked
 * for, and only in test files, so that code of the same words elsewhere (`counts['failing']++`) is no mark.
 */
import { quoted } from "../util/text.js";
import type { RunnerDescriptor } from "./runners/index.js";

/** The marks the session's runners know. */
export const markersOf = (runners: RunnerDescriptor[]): RegExp[] => runners.flatMap((r) => (r.expectedFailure ? [r.expectedFailure] : []));

/** The files whose text a runner with such a marker reads as tests (JavaScript and TypeScript). */
export const mayMarkExpectedFailure = (file: string): boolean => /\.[cm]?[jt]sx?$/.test(file);

const MAX_LISTED = 5;

/**
 * The lines of `after` that mark a test as expected to fail and are not lines of `before` (trimmed), as
 * `"file:line: text"` (the repository's text, quoted): a marker the baseline had (a known bug's test) is not the step's.
 */
export function addedExpectedFailures(file: string, before: string, after: string, markers: RegExp[]): string[] {
  if (markers.length === 0) return [];
  const had = new Set(before.split("\n").map((l) => l.trim()));
  const out: string[] = [];
  const lines = after.split("\n");
  for (let i = 0; i < lines.length && out.length < MAX_LISTED; i++) {
    const t = lines[i]!.trim();
    // A marker starts a test's line: the first 400 characters hold it (and bound the regexes' work on minified code).
    const head = t.slice(0, 400);
    if (t.length > 0 && !had.has(t) && markers.some((m) => m.test(head))) out.push(quoted(`${file}:${i + 1}: ${t}`, 120));
  }
  return out;
}
