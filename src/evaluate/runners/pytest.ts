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
  // message after the id (`node::test [msg] (i=3)`) is dropped: the subtest runs with its test. An id
  // starting with `-` (a test file `-x_test.py` at the root) is given as `./-x_test.py::…`, a path: pytest
  // reads `-…` as options even after `--`.
  selectByName: (names) => [...new Set(names.map((n) => n.replace(/\s+(?:\[.*|\(.*\))$/, "").replace(/^-/, "./-")))],
  coverage: { args: ["--cov", "--cov-report=term"], prints: "a text table of statements, misses and % per file with a TOTAL line (pytest-cov)" },
};
