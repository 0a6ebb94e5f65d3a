import { quoted } from "../../util/text.js";
import { parsePytest } from "../parsers/tests/pytest.js";
import { FOLLOWS_EXIT, type TestCounts } from "../types.js";
import type { RunnerDescriptor } from "./types.js";

export const pytest: RunnerDescriptor = {
  id: "pytest",
  name: "pytest",
  command: "python -m pytest -rA",
  recognise: {
    command: /\bpytest\b|py\.test/,
    // Its config sections, or a dependency on it; conftest.py is pytest's own.
    files: [
      { file: "pytest.ini" },
      { file: "pyproject.toml", contains: /\[tool\.pytest|pytest/ },
      { file: "setup.cfg", contains: /\[tool:pytest\]|\bpytest\b/ },
      { file: "tox.ini", contains: /\[pytest\]|\bpytest\b|\bpy\.test\b/ },
      { file: "conftest.py" },
      { file: "tests/conftest.py" },
      // Where a setup.py-only project keeps its test dependencies.
      ...["setup.py", "Pipfile", "requirements-dev.txt", "requirements-test.txt", "dev-requirements.txt", "test-requirements.txt", "requirements.txt"].map(
        (file) => ({ file, contains: /\bpytest\b/ }),
      ),
    ],
  },
  parse: { text: [parsePytest] },
  formats: "pytest (default, -q, -v, -rA)",
  namesTests: "-v, -rA, --junitxml",
  junit: "pytest --junitxml",
  readableReport: 'pytest: add -rA (or --junitxml=report.xml with testReport: "report.xml")',
  testConfigFiles: ["pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"],
  // A node id's file: a test module's, or a doctest file's (`test_calc.txt`, `docs/usage.rst`); not a module whose
  // docstring holds the doctest (`src/calc.py::calc.div`), which is the code under test too.
  testFileOf: (name) => {
    const [file, item] = name.split("::", 2);
    // A test function or class (`test_x`, `TestCalc::test_x`, `test_x[1]`), not a doctest item (`pkg.testcase.TestCase`);
    // besides modules, doctest text files only (`calc.pyx::…` of pytest-cython is code).
    const doctestFile = /\.(?:txt|rst|md)$/.test(file ?? "");
    return file && item !== undefined && (doctestFile || (file.endsWith(".py") && /^(?:test|Test)\w*(?:::|\[|$)/.test(item))) ? file : undefined;
  },
  // Names are node ids (`tests/test_x.py::Class::test[param]`), given as arguments; a failed subtest's
  // message after the id (`node::test [msg] (i=3)`) is dropped: the subtest runs with its test. Only at a
  // space outside the parameters' brackets: an id's parameters may hold ` [` (`test_x[a [b] c]`). An id
  // starting with `-` (a test file `-x_test.py` at the root) is given as `./-x_test.py::…`, a path: pytest
  // reads `-…` as options even after `--`. A name that is no node id (its JUnit report's
  // `tests.test_x.Class.test`) cannot be given: no selection, the whole suite runs once.
  junitUnselectable:
    "its JUnit report names tests by module and class (`tests.test_x.TestY.test_z`), not by the node ids it selects; its -rA output names them",
  selectByName: (names) => {
    const ids = names.map(nodeIdOf);
    return ids.every((id) => id.includes("::") || id.endsWith(".py")) ? [...new Set(ids.map((id) => id.replace(/^-/, "./-")))] : undefined;
  },
  coverage: { args: ["--cov", "--cov-report=term"], prints: "a text table of statements, misses and % per file with a TOTAL line (pytest-cov)" },
  stopped: (exitCode, output, tests, cmd) => (exitCode === 3 ? internalError(output, tests) : exitCode === 4 ? usageError(output, cmd) : undefined),
};

/**
 * Exit 3: pytest stopped at an INTERNALERROR (wcwidth: an installed pytest-benchmark clashing with the
 * project's own `benchmark` fixture, after 27 of 1327 tests) and still printed "27 passed": those counts are
 * of the tests before it, so the notice says so, with the error and the plugin that raised it.
 */
function internalError(output: string, tests: TestCounts | null): string | undefined {
  const lines = output.split("\n").flatMap((l) => (l.startsWith("INTERNALERROR> ") ? [l.slice(15)] : []));
  if (lines.length === 0) return undefined;
  const error = lines.filter((l) => /^[A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit)\b.*:/.test(l)).pop();
  const plugin = lines.map((l) => /^Plugin: ([\w.-]{1,40}), Hook: /.exec(l)?.[1]).find(Boolean);
  const ran = tests && tests.passed !== null && tests.failed !== null ? tests.passed + tests.failed + (tests.skipped ?? 0) : undefined;
  const m = /^collected (\d+) items?(?: \/ \d+ deselected \/ (\d+) selected)?/m.exec(output);
  const of = m ? ` of ${m[2] ?? m[1]}` : "";
  return `pytest stopped with an internal error (exit 3)${ran === undefined ? "" : ` after ${ran}${of} tests`}${error ? `: ${quoted(error, 160)}` : ""}${plugin ? ` (raised in plugin ${plugin})` : ""}. The counts are of the tests that ran before it, not of the suite, and the test run counts as failing; trm_read_log shows the traceback.${plugin ? ` If ${plugin} is a plugin installed where the tests run and not the project's, \`-p no:${plugin}\` in testCmd turns it off.` : ""}`;
}

/** Plugins whose options a project's addopts name most often. */
const PLUGINS: [RegExp, string][] = [
  [/^--cov\b|^--no-cov\b/, "pytest-cov"],
  [/^-n\b|^--numprocesses\b|^--dist\b/, "pytest-xdist"],
  [/^--timeout\b/, "pytest-timeout"],
  [/^--benchmark-/, "pytest-benchmark"],
  [/^--reruns\b/, "pytest-rerunfailures"],
  [/^--asyncio-mode\b/, "pytest-asyncio"],
  [/^--mypy\b/, "pytest-mypy"],
  [/^--hypothesis-/, "hypothesis"],
];

/**
 * Exit 4: pytest could not start (a usage error: wcwidth's addopts name --cov while pytest-cov is not
 * installed). No test ran, so no reporter flag helps: the notice quotes pytest's error and says what would.
 */
function usageError(output: string, cmd: string): string | undefined {
  const line = output.split("\n").find((l) => /^(?:\S+: )?error: |^ERROR: (?!usage:)/.test(l));
  if (!line) return undefined;
  const config = /^\s*(?:inifile|configfile): .*?([^/\s]+)\s*$/m.exec(output)?.[1];
  const unknown = /unrecognized arguments: (.*)$/.exec(line)?.[1]?.split(/\s+/) ?? [];
  const plugins = [...new Set(unknown.flatMap((a) => PLUGINS.filter(([re]) => re.test(a)).map(([, p]) => p)))];
  const from = config ? ` (pytest's config: ${quoted(config, 160)})` : "";
  const fix =
    unknown.length > 0
      ? `Options pytest does not know come from a plugin that is not installed where the tests run, named in the project's addopts${from} or in testCmd: ${plugins.length > 0 ? `install ${plugins.join(", ")}` : "install the plugin that adds them"}, or pass testCmd ${JSON.stringify(`${cmd} -o addopts=""`)} to run without the config's addopts (a plugin whose options clash is turned off with -p no:<plugin>).`
      : `Fix what it names in testCmd or in pytest's config${from}.`;
  return `pytest could not start (exit 4, a usage error: ${quoted(line, 160)}): no test ran, ${FOLLOWS_EXIT} (fail). ${fix}`;
}

/** A name without what follows it at a space outside the brackets of its parameters, after the path (`x.py::`, `README.txt::`). */
function nodeIdOf(name: string): string {
  let depth = 0;
  for (let i = Math.max(name.indexOf("::"), 0); i < name.length; i++) {
    const c = name.charAt(i);
    if (c === "[") depth++;
    else if (c === "]") depth = Math.max(0, depth - 1);
    else if (c === " " && depth === 0) return name.slice(0, i);
  }
  return name;
}
