/**
 * The lines a change added, per file, as the hunks of `git diff -U0` give them (new side). Coverage and
 * mutation look only at these: a review of the change, not of the file.
 */
import { git } from "../../git/cli.js";
import { isTestByName } from "../test-paths.js";

/** Added lines `start..end` (1-based, inclusive) of one hunk of a file. */
export interface AddedHunk {
  start: number;
  end: number;
}

export type ChangedLines = Map<string, AddedHunk[]>;

/** The hunk's lines, first to last. */
export const linesOf = (h: AddedHunk): number[] => Array.from({ length: h.end - h.start + 1 }, (_, i) => h.start + i);

/** JavaScript and TypeScript sources (declaration files carry no code). */
export const isJsSource = (file: string): boolean => /\.(?:[cm]?[jt]sx?)$/.test(file) && !/\.d\.[cm]?ts$/.test(file);

/** The languages whose coverage is measured: V8 / Istanbul, coverage.py, Go's cover profile. */
export type CoverageLanguage = "js" | "py" | "go";

export const languageOf = (file: string): CoverageLanguage | null => (isJsSource(file) ? "js" : /\.py$/.test(file) ? "py" : /\.go$/.test(file) ? "go" : null);

// Fixtures are the tests' data, and benchmarks run under `vitest bench`, which the tests never run: neither is code under test.
const FIXTURE_OR_BENCH_RE = /(^|\/)(fixtures?|bench|benchmarks?)\/|\.bench\.[cm]?[jt]sx?$/;

/** Test files (evaluate/test-paths.ts), fixtures and benchmarks: their lines are not the code under test. */
export const isTestFile = (file: string): boolean => isTestByName(file) || FIXTURE_OR_BENCH_RE.test(file);

/**
 * Parses the hunk headers of a `-U0` diff of ONE file: `@@ -a,b +c,d @@` added `d` lines from `c` (a
 * missing count is 1; 0 is a pure deletion, nothing added). Pure.
 */
export function parseAddedHunks(diff: string): AddedHunk[] {
  const out: AddedHunk[] = [];
  for (const m of diff.matchAll(/^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/gm)) {
    const start = Number(m[1]);
    const count = m[2] === undefined ? 1 : Number(m[2]);
    if (count > 0) out.push({ start, end: start + count - 1 });
  }
  return out;
}

/**
 * The JavaScript/TypeScript, Python and Go files `head` added or modified since `base` (tests,
 * declarations, vendored code and other files left out) and their added hunks. File names come NUL-separated, so no quoting applies.
 */
export async function changedSourceLines(cwd: string, base: string, head: string, maxFiles = 200): Promise<ChangedLines> {
  const names = (await git(cwd, ["diff", "--name-only", "-z", "--no-renames", "--diff-filter=AM", base, head, "--"])).split("\0").filter(Boolean);
  const out: ChangedLines = new Map();
  for (const file of names.filter((f) => languageOf(f) !== null && !isTestFile(f) && !/(^|\/)(node_modules|vendor)\//.test(f)).slice(0, maxFiles)) {
    const hunks = parseAddedHunks(await git(cwd, ["diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", base, head, "--", `:(literal)${file}`]));
    if (hunks.length > 0) out.set(file, hunks);
  }
  return out;
}
