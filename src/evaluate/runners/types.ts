/**
 * What code-trm knows about one test runner, in one place: how it is recognised, which parsers read its
 * output, how to make it print a readable report, which files choose its tests, how to run some of its
 * tests, and how it prints coverage. Every consumer (the output parsers' order, the could-not-read hint,
 * the test-config check, the runner table in docs/scoring.md) reads these descriptors; adding a runner is one
 * descriptor in this folder, listed in index.ts, plus its fixtures.
 */
import type { TestInput } from "../parsers/tests/common.js";
import type { TestCounts } from "../types.js";

export type TestParser = (input: TestInput) => TestCounts | null;

export interface RunnerDescriptor {
  /** Short id, the descriptor's file name. */
  id: string;
  /** As docs/scoring.md and notices name it. */
  name: string;
  /** A command that runs it with a readable report, as docs/scoring.md shows it (recognised as this runner). */
  command: string;
  recognise: {
    /** The runner named in a test command (or in the package.json script it runs). Must not match another runner's command. */
    command: RegExp;
    /** Project files that show the runner when the command does not name it (`contains` tests the file's text). */
    files?: { file: string; contains?: RegExp }[];
    /** npm package names whose presence in package.json's dependencies or devDependencies shows the runner. */
    packages?: string[];
  };
  /**
   * The parsers of its own output formats. `structured` (machine-readable reporters) run before any text
   * parser; `text` run in the order of the runner list (index.ts); `last` after every other parser (a
   * parser that reads a crash, which any runner's output may look like). Shared formats (JUnit XML) are
   * read by parseTests itself.
   */
  parse: { structured?: TestParser[]; text?: TestParser[]; last?: TestParser[] };
  /** Its own outputs code-trm reads, beyond TAP and JUnit XML (below), for the could-not-read notice and docs/scoring.md. */
  formats?: string;
  /** Which of those outputs name every test (so tests are tracked by name); undefined when none does. */
  namesTests?: string;
  /** The command that makes it print TAP, and the one that makes it write or print JUnit XML, when it has them. */
  tap?: string;
  junit?: string;
  /** The change that makes its output countable, as the could-not-read notice words it. */
  readableReport: string;
  /**
   * The format a run of `cmd` reports its tests in once they load, where the command's own words say (mocha's
   * `--reporter json`): it binds the steps after a reference whose tests did not load and printed no report.
   */
  reportFormat?: (cmd: string) => string | undefined;
  /**
   * The names (globs: `*`, `?`, `{a,b}`) of files that choose which of its tests run, at any depth: a
   * first step editing one is judged against the baseline's tests too. Required, so that a new runner
   * says it has none rather than forgets them (a scoring hole no test would flag).
   */
  testConfigFiles: string[];
  /**
   * Arguments that run only the tests named (names as code-trm reports them for this runner), added to
   * the runner's command. Where a name cannot be given exactly the selection is a superset, never less.
   * No name may be read as an option (`-x`): given in a form the runner reads as a name, or undefined
   * (the whole suite runs).
   */
  selectByName?: (names: string[]) => string[] | undefined;
  /**
   * What its exit code and output say when it stopped short of running the suite (pytest: 3 an internal
   * error, 4 a usage error), said instead of a generic could-not-read hint; undefined when they say nothing
   * more. `output` is the repository's (hostile): what is quoted of it is bounded and on one line.
   */
  stopped?: (exitCode: number, output: string, tests: TestCounts | null, cmd: string) => string | undefined;
  /**
   * How its test files mark a test as expected to fail, where some of its reports count such a test as a
   * pass (AVA's TAP, Vitest's JSON, Jest's text): a step that adds a mark cannot rise above the reference's
   * test signal nor end the session (evaluate/expected-failures.ts reads the files' syntax trees).
   */
  expectedFailure?: ExpectedFailureMark;
  /** Test files it runs by default that the shared list (evaluate/test-paths.ts) does not name: Jest's `src/spec.js`. */
  testFileNames?: RegExp;
  /** Text that makes a source file hold tests too (Vitest's in-source tests: `import.meta.vitest`). */
  inSourceTests?: string;
  /**
   * The file a test of this name is declared in, where the name says it (pytest's `t/test_a.py::test_x`, a
   * doctest file's `docs/usage.rst::usage.rst`; unittest's `pkg.test_a.TestA.test_x` as `pkg/test_a.py`, maybe
   * a suffix of the repository's path): a step that changed only such files changed tests, whatever their names.
   */
  testFileOf?: (name: string) => string | undefined;
  /** Why the names of its JUnit report (testReport) cannot be selected, where they cannot. */
  junitUnselectable?: string;
  /**
   * Arguments that run only the named test files (repository paths, as the reporter names them:
   * TestFailure.testFile), so that the other files are not even loaded; undefined where a path cannot be
   * given safely, or where adding them would not restrict the run to them (the names alone then select).
   * `part` is the runner's part of the command as it runs (through npm: the script's, with what npm
   * appends). They go at the end of that part, after selectByName's.
   */
  selectFiles?: (files: string[], part: string) => string[] | undefined;
  /**
   * Where those arguments go in the runner's part of the command: at its end unless `after` is given
   * (node's options must come before its file arguments), and never into a command `not` matches (a
   * form of the command that takes no test names: `unittest discover`). See evaluate/select-command.ts.
   */
  selectAt?: { after?: RegExp; not?: RegExp };
  /**
   * How it runs the tests related to changed files, where the runner itself knows which (affected first,
   * mutants): `bin` is its executable as a command names it; `subcommand` goes right after it, replacing
   * one of `replaces` the command has there (vitest: `run` becomes `related`); `args`, files last, go at
   * the end of the runner's part; `beyond`, options with which the related tests are not among the
   * command's (the runner ignores them when relating, or picks by the size of the set): no related run;
   * `flags`, options that take no value (a word after one names tests). See evaluate/select-command.ts.
   */
  related?: { bin: string; subcommand?: { name: string; replaces: string[] }; args: (files: string[]) => string[]; beyond?: RegExp; flags?: RegExp };
  /**
   * How it prints coverage: the arguments to add and what it prints; `istanbulJson`, the arguments that
   * make it write Istanbul's coverage-final.json into a folder (and the packages, any one of which must
   * be installed for them), for a runner whose tests Node's own NODE_V8_COVERAGE cannot map (`v8: false`:
   * code it transforms and runs without a file name); `goProfile`, the arguments that make it write a Go
   * cover profile into a file (placed in its part of the command as a selection is: select-command.ts).
   * Python needs none: coverage.py starts in every Python process (coverage/python.ts), whatever the runner.
   */
  coverage?: {
    args: string[];
    prints: string;
    istanbulJson?: { args: (dir: string) => string[]; needs?: string[] };
    v8?: false;
    goProfile?: (file: string) => string[];
  };
}

/**
 * A runner's mark of a test expected to fail: the property of its test function (`test.failing`,
 * `test.fails`), and whether the test's options object can say it too (Vitest's `{ fails: true }`).
 */
export interface ExpectedFailureMark {
  word: string;
  options?: boolean;
}

/** A string matched literally inside a JavaScript, Python or Go regular expression. */
export const escapeRegExp = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");

/** A regex that matches exactly one of the strings. */
export const anyOf = (names: string[]): string => `^(?:${names.map(escapeRegExp).join("|")})$`;
