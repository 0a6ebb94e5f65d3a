/**
 * The test command of a Python repository: pytest when its configuration or dependencies name it (the
 * pytest descriptor's `recognise.files`), else unittest; with a `src` layout that pytest's own
 * `pythonpath` setting does not cover, `src` goes on PYTHONPATH so the tests import the worktree's code
 * without an install; the doctests the project's tox or CI line runs (detect-doctests.ts). A linter only
 * where it is configured and installed. Pure: reads through a RepoView.
 */
import { RUNNERS } from "../evaluate/runners/index.js";
import type { Detected, RepoView } from "./detect-commands.js";
import { projectDoctests } from "./detect-doctests.js";

const MARKERS = ["pyproject.toml", "setup.cfg", "setup.py", "tox.ini", "pytest.ini", "requirements.txt", "requirements-dev.txt", "Pipfile"];
// Where a Python project's tests are and what pytest collects by default, to tell a Python project and its runner:
// not evaluate/test-paths.ts, whose other languages' names (a root test.js) would make a JS repository Python.
const TEST_DIRS = ["tests", "test", "testing"];
const isTestFile = (f: string) => /^test_.*\.py$|_test\.py$/.test(f);

/** pytest's configuration sections, where its `pythonpath` setting can live. */
function pytestConfig(repo: RepoView): string {
  const section = (text: string, header: RegExp) => {
    const m = header.exec(text);
    if (!m) return "";
    const rest = text.slice(m.index + m[0].length);
    const next = /^\[/m.exec(rest);
    return next ? rest.slice(0, next.index) : rest;
  };
  return [
    section(repo.read("pytest.ini"), /^\[pytest\]/m),
    section(repo.read("pyproject.toml"), /^\[tool\.pytest\.ini_options\]/m),
    section(repo.read("setup.cfg"), /^\[tool:pytest\]/m),
    section(repo.read("tox.ini"), /^\[pytest\]/m),
  ].join("\n");
}

/** The package folders (or modules) under src/, when the project uses a src layout. */
function srcPackages(repo: RepoView): string[] {
  if (!repo.has("src")) return [];
  return repo.list("src").filter((n) => n.endsWith(".py") || repo.list(`src/${n}`).includes("__init__.py"));
}

/**
 * A test file written for pytest: it imports pytest, or has plain `def test_` functions and no TestCase,
 * which unittest would not run (it reports "Ran 0 tests", OK, over a failing suite).
 */
function pytestStyleFile(repo: RepoView, files: string[]): string | undefined {
  return files.slice(0, 20).find((f) => {
    const text = repo.read(f, 64 * 1024);
    return /^(?:import pytest\b|from pytest\b)/m.test(text) || (/^(?:async )?def test_/m.test(text) && !/\bunittest\b|TestCase/.test(text));
  });
}

export function detectPython(repo: RepoView): Detected | undefined {
  const root = repo.list("");
  const testDir = TEST_DIRS.find((d) => repo.list(d).some((f) => isTestFile(f) || f === "conftest.py"));
  const marker = MARKERS.find((m) => root.includes(m));
  if (!marker && !testDir && !root.some(isTestFile)) return undefined;
  const out: Detected = { args: {}, why: {}, notes: [] };
  const py = repo.onPath("python3") || !repo.onPath("python") ? "python3" : "python";

  const pytest = RUNNERS.find((r) => r.id === "pytest")!;
  const byFile = pytest.recognise.files?.find((f) => repo.has(f.file) && (!f.contains || f.contains.test(repo.read(f.file))));
  const testFiles = testDir
    ? repo
        .list(testDir)
        .filter(isTestFile)
        .map((f) => `${testDir}/${f}`)
    : root.filter(isTestFile);
  const byTests = byFile ? undefined : pytestStyleFile(repo, testFiles);
  const src = srcPackages(repo);
  const config = pytestConfig(repo);
  const pathSet = /^\s*pythonpath\s*=/m.test(config);
  const prefix = src.length > 0 && !pathSet ? "PYTHONPATH=src:$PYTHONPATH " : "";
  const srcWhy =
    src.length === 0 ? "" : pathSet ? "; its pytest config sets pythonpath for the src layout" : `; src layout (src/${src[0]}), so src goes on PYTHONPATH`;
  if (byFile || byTests) {
    // The runner's command (-rA: its short summary names every test, which plain pytest does not), by this python.
    const doctests = projectDoctests(repo, config, testDir ? [testDir] : testFiles);
    out.args.testCmd = [pytest.command.replace(/^python\b/, `${prefix}${py}`), ...(doctests?.args ?? [])].join(" ");
    out.why.testCmd = `${byFile ? `pytest named in ${byFile.file}` : `${byTests} is written for pytest (unittest would run none of it)`}${srcWhy}${doctests ? `; ${doctests.why}` : ""}`;
    out.runner = pytest;
    out.readable = true;
  } else if (testDir || root.some(isTestFile)) {
    const unittest = RUNNERS.find((r) => r.id === "unittest")!;
    // discover imports test files as modules of the start folder: a test folder that is not a package is started in.
    const start = testDir && !repo.list(testDir).includes("__init__.py") ? ` discover -s ${testDir}` : "";
    out.args.testCmd = `${prefix}${py} -m unittest${start} -v`;
    out.why.testCmd = `Python tests (${testDir ? `${testDir}/` : "test_*.py"}) and no pytest configuration: unittest, which needs no install${srcWhy}`;
    out.runner = unittest;
  }

  // A linter where the project configures it and it is installed (checked on PATH, never run here).
  const pyproject = repo.read("pyproject.toml");
  if ((/^\[tool\.ruff/m.test(pyproject) || root.includes("ruff.toml") || root.includes(".ruff.toml")) && repo.onPath("ruff")) {
    out.args.lintCmd = "ruff check .";
    out.why.lintCmd = "ruff configured (pyproject.toml / ruff.toml) and installed";
  } else if ((root.includes(".flake8") || /^\[flake8\]/m.test(repo.read("setup.cfg")) || /^\[flake8\]/m.test(repo.read("tox.ini"))) && repo.onPath("flake8")) {
    out.args.lintCmd = "flake8";
    out.why.lintCmd = "flake8 configured (.flake8 / setup.cfg / tox.ini) and installed";
  }
  return Object.keys(out.args).length > 0 ? out : undefined;
}
