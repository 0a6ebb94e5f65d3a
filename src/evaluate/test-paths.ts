/**
 * Which files are tests by their names, as the common runners name them: one list for the session's test
 * edits (session/test-files.ts), change coverage and mutation (coverage/changed-lines.ts) and review's rules
 * (review/lang.ts). Each caller adds its own extras (fixtures, benchmarks, protected globs) in its own file.
 * A file taken for a test wrongly is as bad as one missed: a right fix confined to it is held as a tests-only
 * step, and it goes unmeasured and unreviewed.
 */

// Snapshots (`__snapshots__/a.test.js.snap`), golden files (Go's `testdata/`) and mocks are the tests' expectations.
// `Tests/` as SwiftPM, Symfony components and .NET solutions spell it. Case matters: Symfony's `FrameworkBundle/Test/`
// ships test helpers, like `testing/` (numpy.testing, mylib/testing/): those are code under test.
// Not `fixtures/` alone: a library may be named so (testing-cabal/fixtures, h28); `test/fixtures/` is in a test folder.
const TEST_DIRS = new Set(["test", "tests", "Tests", "__tests__", "spec", "specs", "e2e", "__snapshots__", "__mocks__", "testdata"]);

// AVA's defaults too (a root `test.js`: sindresorhus/slugify's tests are one `test.js`), node --test's
// (`*_test.js`, `*-test.js`), `*_spec.js`, `a.tests.js`, Detox's `a.e2e.js`, tsd's `index.test-d.ts`,
// Cypress's `a.cy.ts`, Rust's `tests.rs` module, Django's `tests.py`, ExUnit's `*_test.exs`, Ruby's, PHPUnit's,
// XCTest's and JUnit's names (Scala's too), C and C++'s `calc_test.c` / `calc_unittest.cc`, any `*.snap`. Case-sensitive, as the runners are (`Latest.java` is code).
// Not unittest's whole `test*.py` nor a root `spec.ts`: `testing.py` and `spec.ts` are as often the code under test;
// nor `*Spec.java` (Kubernetes' `PodSpec.java`) nor `*_test.ex` (ExUnit runs only `.exs`; `ab_test.ex` is a module).
const TEST_NAME_RE =
  /(?:^test_.*\.py$|^tests\.py$|_test\.(?:py|go|rb|exs)$|\.(?:tests?|spec|cy|e2e)\.[cm]?[jt]sx?$|\.test-d\.tsx?$|^tests\.[cm]?[jt]sx?$|[-_]test\.[cm]?[jt]sx?$|_spec\.(?:[cm]?[jt]sx?|rb)$|^tests?\.rs$|^conftest\.py$|(?:Tests?|IT)\.(?:java|kt|scala|cs|php|swift)$|[_-](?:unit)?test\.(?:c|cc|cpp|cxx)$|\.snap$)/;

// AVA's and node --test's `test-*.js` at the root only (in a test folder it is a test anyway): below it the name is a
// module's about tests (Stryker's src/test-runner/test-runner.ts, this project's src/session/test-files.ts). So is
// a `test.js` or `test.py` (AVA's `test.js`): deeper it is a module as often (werkzeug's src/werkzeug/test.py,
// mocha's lib/test.js, a Jest project's src/test.js: h28, h29). AVA's own `src/test.js` is its descriptor's
// (runners/ava.ts), and where a runner ran a failing test in one, its report names it (failingTestFiles).
const ROOT_TEST_RE = /^(?:test-.+|test)\.[cm]?[jt]sx?$|^test\.py$/;

/** A test by the runners' conventions: a test folder on the (repository-relative, `/`-separated) path, or a test file name. */
export function isTestByName(p: string): boolean {
  const segs = p.split("/");
  const name = segs[segs.length - 1] ?? "";
  return segs.slice(0, -1).some((s) => TEST_DIRS.has(s)) || TEST_NAME_RE.test(name) || (segs.length === 1 && ROOT_TEST_RE.test(name));
}
