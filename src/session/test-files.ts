/**
 * Which files of a candidate are tests, so that a step that edits, deletes or adds tests says so, and
 * `protectTests` can refuse it. Models under pressure to make tests pass change the tests; the user
 * should see it on every such step.
 */
import { realpathSync } from "node:fs";
import path from "node:path";
import type { FileOp } from "../candidate/types.js";
import type { Evaluation } from "../evaluate/evaluate.js";
import type { FileTexts } from "../evaluate/expected-failure-marks.js";
import { addedExpectedFailures, markersOf, mayMarkExpectedFailure } from "../evaluate/expected-failures.js";
import { isTestConfigFile, type RunnerDescriptor } from "../evaluate/runners/index.js";
import { LOST_MARK } from "../evaluate/test-identity.js";
import { isTestByName } from "../evaluate/test-paths.js";
import type { TestCase, TestCounts } from "../evaluate/types.js";
import { diffPaths, entryAt, readBlobBytes, type TreeEntry } from "../git/objects.js";
import { UserError } from "../util/errors.js";
import { matchesAnyGlob } from "../util/glob.js";
import { resolveEntryInside, resolveInside } from "../util/paths.js";

export interface TestFileChange {
  path: string;
  change: "added" | "modified" | "deleted";
}

/** Source files by their extension: what a folder of fixtures holds as code, and a report's file that is code. */
const CODE_RE = /\.(?:py|[cm]?[jt]sx?|go|rs|rb)$/;
// Golden files and data in a fixtures folder (`fixtures/expected.txt`, AVA's `fixture/`, `__fixtures__/`): the
// tests' expectations, which a step can rewrite to fit a bug (h29). Code there is code: a library may be named
// fixtures (testing-cabal/fixtures, h28).
const FIXTURES_RE = /(?:^|\/)(?:fixtures|fixture|__fixtures__)\//;

/**
 * A test by the runners' conventions (evaluate/test-paths.ts), data of the tests in a fixtures folder, or under
 * one of the session's `protectTests` globs.
 */
export function isTestPath(p: string, protect: string[] = []): boolean {
  return isTestByName(p) || (FIXTURES_RE.test(p) && !CODE_RE.test(p)) || matchesAnyGlob(p, protect) !== undefined;
}

/**
 * Files that choose which tests run and how (a package.json test script, pytest's addopts, a runner's
 * config): a first step that edits them is judged against the baseline's tests too (preflight.ts). A
 * `--test-name-pattern` in package.json, or `addopts = -k 'not mul'` in pytest.ini, left the failing test
 * out and scored 1.000 without touching a test file. Which files those are is each runner's descriptor's
 * (evaluate/runners) and a generic list's.
 */
const changeOf = (o: FileOp): TestFileChange => ({ path: o.path, change: o.op === "delete" ? "deleted" : o.create ? "added" : "modified" });

export function testConfigChanges(ops: FileOp[]): TestFileChange[] {
  return ops.filter((o) => isTestConfigFile(o.path)).map(changeOf);
}

export function testFileChanges(ops: FileOp[], protect: string[] = []): TestFileChange[] {
  return ops.filter((o) => isTestPath(o.path, protect)).map(changeOf);
}

/** Refuses a candidate that changes a file under `protectTests`; nothing has been written yet. */
export function assertTestsUntouched(ops: FileOp[], protect: string[]): void {
  if (protect.length === 0) return;
  const hits = ops.flatMap((o) => {
    const g = matchesAnyGlob(o.path, protect);
    return g ? [`${o.path} (${changeOf(o).change}, matches ${g})`] : [];
  });
  if (hits.length === 0) return;
  throw new UserError(
    `The candidate changes test files this session protects (protectTests): ${hits.slice(0, 10).join(", ")}${hits.length > 10 ? ", …" : ""}. Nothing was applied.`,
    "Fix the code under test instead of the tests; leave the protected files out of the candidate.",
  );
}

export function describeTestChanges(changes: TestFileChange[]): string | undefined {
  if (changes.length === 0) return undefined;
  const shown = changes.slice(0, 8).map((c) => `${c.path} (${c.change})`);
  return `this step changed test files: ${shown.join(", ")}${changes.length > 8 ? `, … (${changes.length} in all)` : ""}`;
}

/** The candidate's operations at the paths the kernel resolves them to in the worktree (a link followed). */
export async function landedOps(worktree: string, ops: FileOp[]): Promise<FileOp[]> {
  const root = realpathSync(worktree);
  return Promise.all(
    ops.map(async (o) => {
      // A delete lands on the entry itself (a link is removed, never what it points at).
      const real = o.op === "delete" ? (await resolveEntryInside(worktree, o.path)).entry : (await resolveInside(worktree, o.path)).real;
      const rel = path.relative(root, real).split(path.sep).join("/");
      return rel === o.path ? o : { ...o, path: rel };
    }),
  );
}

const MAX_MARKED_FILES = 200;
const MAX_MARKED_BYTES = 2_000_000;
const MAX_MARKED_TOTAL = 16_000_000;
const isFile = (e: TreeEntry | null): e is TreeEntry => !!e && (e.mode === "100644" || e.mode === "100755");

/**
 * The files the reference's failing tests are declared in, as their names or reports say (runners' `testFileOf`,
 * a report's test file): tests whatever they are called (h24: unittest's `testcalc.py`, pytest's doctest file
 * `test_calc.txt`, `docs/usage.rst` under `--doctest-glob`), so a step that changes only them changed tests.
 */
export function failingTestFiles(tests: TestCounts | null | undefined, runners: RunnerDescriptor[]): string[] {
  if (!tests) return [];
  const names = tests.cases ? tests.cases.filter((c) => c.status === "failed").map((c) => c.name) : tests.failures.map((f) => f.name);
  // A code file counts only when its name says test or spec (`testcalc.py`, `calc_tests.py`, Jest's `src/sum/spec.js`
  // (h27); not `latest.py`, `inspect.js`): a module holding its code and its tests (`calc.py` with a TestCase,
  // Vitest's in-source tests, whose report names the source file) is the code under test, and a fix there is no
  // test edit (h28).
  const code = (f: string) => CODE_RE.test(f) && !/(?:^test|(?:^|[_.-])(?:tests?|specs?)(?:[_.-]|$))/i.test(f.slice(f.lastIndexOf("/") + 1));
  const files = [
    ...tests.failures.flatMap((f) => (f.testFile ? [f.testFile] : [])),
    ...names.slice(0, 1000).flatMap((n) => runners.flatMap((r) => r.testFileOf?.(n) ?? [])),
  ].filter((f) => !code(f));
  return [...new Set(files)].filter((f) => !f.startsWith("/") && !f.split("/").includes(".."));
}

/** What a tree changed since the session's baseline that bears on its tests' verdict (judge.ts). */
export interface TestEdits {
  /** The lines it adds to test files that mark a test as expected to fail (at most 5, quoted). */
  expectedFailures: string[];
  /** The test files it changed, when it changed nothing else but prose (a README): the tests alone changed since the baseline. */
  onlyTests?: string[];
}

// Prose: a change to it (a README beside the weakened test) is no fix. Anything else outside the tests may be
// what the code reads or runs (data in `rates.json` or a word list `.txt`, a template, a shell script) and counts
// as a change of the code.
// By name only with a text extension or none: `src/history.js`, `src/license.js` are code (h24).
// A news fragment (towncrier and the like: `newsfragments/123.bugfix`, aiohttp's `CHANGES/1234.feature`), by its
// folder at the root and its kind, is prose too (h29): a project that asks for one beside each fix.
const PROSE_RE =
  /(?:\.(?:md|markdown|rst|adoc)|(?:^|\/)(?:README|CHANGELOG|CHANGES|HISTORY|NEWS|LICENSE|LICENCE|NOTICE|AUTHORS|CONTRIBUTING)(?:\.(?:txt|md|rst))?)$/i;
const FRAGMENT_RE =
  /^(?:newsfragments|news|changes|changes\.d|changelog|changelog\.d|\.changelog)\/(?:[\w.-]+\/)?[+\w-]+\.(?:feature|bugfix|bug|fix|fixed|doc|docs|removal|removed|misc|breaking|deprecation|deprecated|added|changed|security|packaging|contrib|trivial|internal|significant|improvement|vendor|process)s?(?:\.\d+)?(?:\.(?:md|rst|txt))?$/i;

/** Prose, whose change is no fix: a README, a changelog, a news fragment (not `src/history.js`). */
export const isProse = (f: string): boolean => PROSE_RE.test(f) || FRAGMENT_RE.test(f);

const testFileRule =
  (protect: string[], runners: RunnerDescriptor[], declared: string[]) =>
  (f: string): boolean =>
    isTestPath(f, protect) || runners.some((r) => r.testFileNames?.test(f)) || declared.some((d) => f === d || f.endsWith(`/${d}`));

/** The changed test files (at most 8), when nothing else but prose changed. */
function onlyTestFiles(changed: string[], isTest: (f: string) => boolean): string[] | undefined {
  const tests = changed.filter(isTest);
  return tests.length > 0 && changed.every((f) => isTest(f) || isProse(f)) ? tests.slice(0, 8) : undefined;
}

const FILE_NAME_RE = /^[^\s:]+\.(?:[cm]?[jt]sx?|py)$/;

/**
 * Counts-only output names a test file that failed to load by its failure alone: by name (Jest's and Vitest's text
 * reporters), or as the file a run that loaded no test was loading (mocha's "Exception during run").
 */
function failedFiles(t: TestCounts | null | undefined): string[] {
  if (!t || t.cases) return [];
  const named = t.failures.filter((f) => FILE_NAME_RE.test(f.name) && !f.message?.startsWith(LOST_MARK)).map((f) => f.name);
  const loading = t.loadFailed ? t.failures.flatMap((f) => (f.testFile && FILE_NAME_RE.test(f.testFile) ? [f.testFile] : [])) : [];
  return [...new Set([...named, ...loading])];
}

/**
 * `points` with the load mark taken off each test file or module that failed to load (TestCase.load) and is gone
 * from `tree`: replaced by its tests only while it is there, so a step that deletes it and adds a test elsewhere
 * has it missing, as any deleted test (h33). A file is its name (node --test, pytest's collection error, the JSON
 * reports); a module its dotted name (unittest). Counts-only output names such a file by its failure: a point's
 * files gone are said (TestCounts.filesGone) and count as missing (h34). Only a name found in the tree of a point
 * where it failed counts as gone: a path the runner gave relative to another folder than the repository's root
 * keeps its mark.
 */
export async function withLoadsPresent<P extends { evaluation: Evaluation; tree: string }>(commonDir: string, tree: string, points: P[]): Promise<P[]> {
  const loads = new Map<string, string>();
  for (const p of points) {
    const t = p.evaluation.tests;
    const names = t?.cases ? t.cases.filter((c) => c.load).map((c) => c.name) : failedFiles(t);
    for (const name of names) if (!loads.has(name)) loads.set(name, p.tree);
  }
  if (loads.size === 0) return points;
  const gone = new Set<string>();
  const unfound = new Set<string>();
  const fileIn = async (at: string, paths: string[]) => (await Promise.all(paths.map((f) => entryAt(commonDir, at, f).catch(() => null)))).some(isFile);
  for (const [name, was] of [...loads].slice(0, 50)) {
    const paths = /\.(?:[cm]?[jt]sx?|py)$|\//.test(name) ? [name] : [`${name.replace(/\./g, "/")}.py`, `${name.replace(/\./g, "/")}/__init__.py`];
    if (!(await fileIn(was, paths))) unfound.add(name);
    else if (!(await fileIn(tree, paths))) gone.add(name);
  }
  if (gone.size === 0 && unfound.size === 0) return points;
  // Not found where it failed (pytest run from a subfolder), a file pytest no longer reports may be gone: its own
  // tests must run to replace it, as for other runners (h37).
  const unmark = (c: TestCase): TestCase => {
    if (c.load && gone.has(c.name)) return { name: c.name, status: c.status, ...(c.file ? { file: c.file } : {}) };
    return c.load === "collect" && unfound.has(c.name) ? { ...c, load: true } : c;
  };
  return points.map((p) => {
    const t = p.evaluation.tests;
    if (t?.cases?.some((c) => c.load)) return { ...p, evaluation: { ...p.evaluation, tests: { ...t, cases: t.cases.map(unmark) } } };
    const filesGone = failedFiles(t).filter((f) => gone.has(f));
    return t && filesGone.length ? { ...p, evaluation: { ...p.evaluation, tests: { ...t, filesGone } } } : p;
  });
}

/** The test files `tree` changed against `fromTree` (the step before), when it changed nothing else but prose. */
export async function onlyTestsSince(
  commonDir: string,
  fromTree: string,
  tree: string,
  protect: string[],
  runners: RunnerDescriptor[] = [],
  declared: string[] = [],
): Promise<string[] | undefined> {
  if (fromTree === tree) return undefined;
  return onlyTestFiles(await diffPaths(commonDir, fromTree, tree), testFileRule(protect, runners, declared));
}

/**
 * What `tree` changed against the session's baseline that bears on its tests: the lines its test files add
 * that mark a test as expected to fail (the session's `runners`' marks), and whether it changed test
 * files and nothing beside them but prose. Read from git's objects, in the server.
 */
export async function testEditsSince(
  commonDir: string,
  baseTree: string,
  tree: string,
  protect: string[],
  runners: RunnerDescriptor[] = [],
  declared: string[] = [],
): Promise<TestEdits> {
  if (baseTree === tree) return { expectedFailures: [] };
  const changed = await diffPaths(commonDir, baseTree, tree);
  const isTest = testFileRule(protect, runners, declared);
  const tests = changed.filter(isTest);
  const only = onlyTestFiles(changed, isTest);
  const onlyTests = only ? { onlyTests: only } : {};
  const markers = markersOf(runners);
  // Source files may hold tests too (Vitest's in-source tests): read where the runner has such a form.
  const inSource = runners.flatMap((r) => r.inSourceTests ?? []);
  const code = inSource.length ? changed.filter((f) => !isTest(f) && !isProse(f)) : [];
  const files = markers.length ? [...tests, ...code].filter(mayMarkExpectedFailure).slice(0, MAX_MARKED_FILES) : [];
  const text = async (e: TreeEntry | null): Promise<string> => {
    if (!isFile(e)) return "";
    const b = await readBlobBytes(commonDir, e.oid);
    return b.length > MAX_MARKED_BYTES ? b.subarray(0, MAX_MARKED_BYTES).toString("utf8") : b.toString("utf8");
  };
  // Deleted files too: a known bug's mark moved to another file is the baseline's (h27).
  const texts: FileTexts[] = [];
  for (let f = 0, bytes = 0; f < files.length && bytes < MAX_MARKED_TOTAL; f++) {
    const t = {
      file: files[f]!,
      before: await text(await entryAt(commonDir, baseTree, files[f]!)),
      after: await text(await entryAt(commonDir, tree, files[f]!)),
    };
    bytes += t.before.length + t.after.length;
    if (isTest(t.file) || inSource.some((m) => t.before.includes(m) || t.after.includes(m))) texts.push(t);
  }
  return { expectedFailures: await addedExpectedFailures(texts, markers), ...onlyTests };
}
