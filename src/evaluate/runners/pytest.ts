import { parsePytest } from "../parsers/tests/pytest.js";
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
};

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
