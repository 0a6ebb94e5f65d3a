import { describe, expect, it } from "vitest";
import { detectCommands, type RepoView } from "../../../src/session/detect-commands.js";

/** A repository of `files` (folders implied by their paths), pytest and python3 on PATH. */
function view(files: Record<string, string>): RepoView {
  const all = new Set(Object.keys(files));
  for (const f of Object.keys(files)) for (let i = f.indexOf("/"); i > 0; i = f.indexOf("/", i + 1)) all.add(f.slice(0, i));
  return {
    read: (rel) => files[rel] ?? "",
    has: (rel) => all.has(rel),
    list: (rel) => [
      ...new Set(
        [...all]
          .filter((p) => (rel === "" ? !p.includes("/") : p.startsWith(`${rel}/`) && !p.slice(rel.length + 1).includes("/")))
          .map((p) => p.split("/").pop()!),
      ),
    ],
    onPath: (p) => ["python3", "pytest"].includes(p),
  };
}

const base = {
  "pyproject.toml": "[project]\nname='pkg'\n[dependency-groups]\ndev=['pytest']\n",
  "pkg/__init__.py": "",
  "pkg/mod.py": "",
  "tests/test_a.py": "",
};
const testCmd = (files: Record<string, string>) => detectCommands(view({ ...base, ...files }))!.args.testCmd;

describe("pytest's doctests where the project runs them", () => {
  it("boltons' tox.ini (changedir, site-packages and tox root): the checkout's package and tests, -rA kept", () => {
    const tox = "[testenv]\nchangedir = .tox\ncommands = pytest --doctest-modules {env_site_packages_dir}/pkg {tox_root}/tests {posargs}\n";
    const d = detectCommands(view({ ...base, "tox.ini": tox }))!;
    expect(d.args.testCmd).toBe("python3 -m pytest -rA --doctest-modules pkg tests");
    expect(d.why.testCmd).toMatch(/tox\.ini runs pytest with its doctests \(--doctest-modules pkg tests\)/);
    // Older tox names, a src layout, a quoted glob, posargs' defaults.
    expect(
      testCmd({
        "pkg/__init__.py": "",
        "src/lib/__init__.py": "",
        "tox.ini": "[testenv]\ncommands =\n    {envpython} -m pytest --doctest-glob='*.rst' {envsitepackagesdir}/lib {posargs:{toxinidir}/tests}\n",
      }),
    ).toBe("PYTHONPATH=src:$PYTHONPATH python3 -m pytest -rA '--doctest-glob=*.rst' src/lib tests");
  });

  it("a CI step or a tox env that names only the package: the tests are run beside it; no paths: none added", () => {
    const ci = "jobs:\n  t:\n    steps:\n      - run: pip install -e . && python -m pytest -x --doctest-modules pkg\n";
    expect(testCmd({ ".github/workflows/ci.yml": ci })).toBe("python3 -m pytest -rA --doctest-modules pkg tests");
    expect(testCmd({ "tox.ini": "[testenv]\ncommands = pytest --doctest-modules --cov pkg\n" })).toBe("python3 -m pytest -rA --doctest-modules");
    // TOML arrays (tox.toml, pyproject's tool.tox).
    expect(testCmd({ "tox.toml": '[env_run_base]\ncommands = [["pytest", "--doctest-modules", "{tox_root}/pkg", "{tox_root}/tests"]]\n' })).toBe(
      "python3 -m pytest -rA --doctest-modules pkg tests",
    );
  });

  it("pytest's own addopts already run them: nothing added; no doctest option anywhere: nothing added", () => {
    const d = detectCommands(
      view({ ...base, "pytest.ini": "[pytest]\naddopts = --doctest-modules\n", "tox.ini": "[testenv]\ncommands = pytest --doctest-modules pkg\n" }),
    )!;
    expect(d.args.testCmd).toBe("python3 -m pytest -rA");
    expect(d.why.testCmd).toMatch(/its pytest config's addopts run the doctests/);
    expect(testCmd({ "tox.ini": "[testenv]\ncommands = pytest -v tests\n" })).toBe("python3 -m pytest -rA");
    // A commented line runs nothing.
    expect(testCmd({ "tox.ini": "[testenv]\n# commands = pytest --doctest-modules pkg\ncommands = pytest\n" })).toBe("python3 -m pytest -rA");
  });

  it("hostile or unusable words are not carried: shell, globs with metacharacters, paths outside or absent, venv paths", () => {
    const words = "pytest --doctest-modules --doctest-glob='$(touch x)' pkg;rm -rf ~ `id` $HOME/x ../up /etc .tox/py/lib absent";
    expect(testCmd({ "tox.ini": `[testenv]\ncommands = ${words}\n` })).toBe("python3 -m pytest -rA --doctest-modules pkg tests");
    // Every path unusable (a venv's, a package not in the checkout): the line is not carried at all.
    expect(testCmd({ "tox.ini": "[testenv]\ncommands = pytest --doctest-modules {envsitepackagesdir}/other {envdir}/x\n" })).toBe("python3 -m pytest -rA");
    // Bare paths under a changedir are not the checkout's.
    expect(testCmd({ "tox.ini": "[testenv]\nchangedir = docs\ncommands = pytest --doctest-modules pkg\n" })).toBe("python3 -m pytest -rA");
    // ...in that section and the testenv: sections inheriting [testenv]'s; another env's changedir moves nothing else
    // (a docs env beside the tests' made the doctests go undetected: found by the fresh-eyes attack).
    const docsEnv = "[testenv:docs]\nchangedir = docs\ncommands = sphinx-build -b html . _build\n";
    expect(testCmd({ "tox.ini": `[testenv]\ncommands = pytest --doctest-modules pkg tests\n${docsEnv}` })).toBe(
      "python3 -m pytest -rA --doctest-modules pkg tests",
    );
    expect(testCmd({ "tox.ini": "[testenv]\nchangedir = docs\n[testenv:py311]\ncommands = pytest --doctest-modules pkg\n" })).toBe("python3 -m pytest -rA");
  });

  it("a pytest line run after a cd into another folder is not carried (its `.` and its examples' file reads are that folder's); a cd back to the root is no move", () => {
    const step = (run: string) => `jobs:\n  docs:\n    steps:\n      - uses: actions/checkout@v4\n${run}`;
    // The attack's line: `cd docs && python -m pytest --doctest-glob='*.rst' .` was carried as `... '--doctest-glob=*.rst' .` from the root.
    expect(testCmd({ "docs/usage.rst": "", ".github/workflows/ci.yml": step("      - run: cd docs && python -m pytest --doctest-glob='*.rst' .\n") })).toBe(
      "python3 -m pytest -rA",
    );
    // pushd, and a cd line before the pytest line in the same script (a `run: |` block, GitLab's script list).
    expect(testCmd({ ".github/workflows/ci.yml": step("      - run: pushd docs; pytest --doctest-modules pkg\n") })).toBe("python3 -m pytest -rA");
    expect(testCmd({ ".github/workflows/ci.yml": step("      - run: |\n          cd docs\n          pytest --doctest-modules pkg\n") })).toBe(
      "python3 -m pytest -rA",
    );
    expect(testCmd({ ".gitlab-ci.yml": "docs:\n  script:\n    - cd docs\n    - pytest --doctest-modules pkg\n" })).toBe("python3 -m pytest -rA");
    // A cd step of its own moves only its own shell: the next step's line is carried; so is one after `cd $GITHUB_WORKSPACE`.
    expect(testCmd({ ".github/workflows/ci.yml": step("      - run: cd docs && make html\n      - run: pytest --doctest-modules pkg\n") })).toBe(
      "python3 -m pytest -rA --doctest-modules pkg tests",
    );
    expect(testCmd({ ".github/workflows/ci.yml": step('      - run: cd "$GITHUB_WORKSPACE" && pytest --doctest-modules pkg\n') })).toBe(
      "python3 -m pytest -rA --doctest-modules pkg tests",
    );
  });
});
