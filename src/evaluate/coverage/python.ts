/**
 * coverage.py for the changed Python files, whatever runs them (pytest, unittest, a Makefile, tox's
 * subprocesses): a `sitecustomize` put first on PYTHONPATH starts coverage.py in every Python process
 * of the test command, measuring only the changed files, and at the process's exit writes one small
 * JSON per process (each file's statements and the ones that did not run, from coverage.py's own
 * analysis). As NODE_V8_COVERAGE does for Node. Nothing of the project's is needed: when its Python
 * has no coverage.py, the one code-trm found (Debian's python3-coverage) is borrowed, alone.
 * The JSON files are written by the project's processes: read bounded, and only the changed files'
 * names (keys code-trm gave) are looked up in them.
 */
import { execFile } from "node:child_process";
import { lstatSync, readdirSync } from "node:fs";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { readPrefix } from "../../util/read-prefix.js";
import type { LineHits } from "./line-hits.js";

const MAX_REPORTS = 2000;
const MAX_REPORT = 20_000_000;
const MAX_TOTAL = 200_000_000;

/** The sitecustomize: it never fails the process it runs in, and hands over to the next sitecustomize. */
export const SITECUSTOMIZE = `# code-trm: coverage.py of the changed files, for the review of a change (removed afterwards).
import os, sys


def _trm_coverage():
    import atexit, glob, json
    conf_file = os.environ.get("TRM_PYCOV_CONF")
    if not conf_file:
        return
    with open(conf_file) as f:
        conf = json.load(f)
    try:
        import coverage
    except ImportError:
        if not conf.get("fallback"):
            return
        sys.path.append(conf["fallback"])
        import coverage
    files = conf["files"]
    # pytest-cov would start a second tracer over this one: --no-cov keeps it off.
    if "--no-cov" not in os.environ.get("PYTEST_ADDOPTS", ""):
        try:
            import importlib.util
            if importlib.util.find_spec("pytest_cov") is not None:
                os.environ["PYTEST_ADDOPTS"] = (os.environ.get("PYTEST_ADDOPTS", "") + " --no-cov").strip()
        except Exception:
            pass
    paths = set(files.values()) | {os.path.realpath(p) for p in files.values()}
    cov = coverage.Coverage(data_file=None, config_file=False, include=[glob.escape(p) for p in paths])
    cov.start()

    def done():
        try:
            cov.stop()
            measured = set(cov.get_data().measured_files())
            out = {}
            for rel, abs_path in files.items():
                try:
                    _, statements, _, missing, _ = cov.analysis2(abs_path)
                except Exception:
                    continue
                out[rel] = {"statements": statements, "missing": missing, "loaded": abs_path in measured or os.path.realpath(abs_path) in measured}
            # A process that ran tests (not pip, not a build step): its report says what the tests ran.
            tests = any(m in sys.modules for m in ("pytest", "_pytest", "unittest"))
            name = os.path.join(conf["out"], "%d-%s.json" % (os.getpid(), os.urandom(4).hex()))
            with open(name, "w") as f:
                json.dump({"tests": tests, "files": out}, f)
        except Exception:
            pass

    atexit.register(done)


try:
    _trm_coverage()
except Exception:
    pass

# Another sitecustomize (Debian's, a virtualenv's) runs as it would have without this one.
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
_mine = sys.modules.pop("sitecustomize", None)
try:
    import sitecustomize  # noqa: F401
except Exception:
    if _mine is not None:
        sys.modules["sitecustomize"] = _mine
`;

let fallbackDir: Promise<string | null> | undefined;

/**
 * The folder holding a coverage.py package of this machine (python3 on PATH, else Debian's), asked with
 * `-I` (isolated: no PYTHON* variables, no current folder) from a neutral folder, once per process.
 */
export function findCoveragePy(): Promise<string | null> {
  fallbackDir ??= (async () => {
    for (const py of ["python3", "/usr/bin/python3"]) {
      const dir = await new Promise<string | null>((resolve) =>
        execFile(py, ["-I", "-c", "import coverage, os; print(os.path.dirname(coverage.__file__))"], { cwd: os.tmpdir(), timeout: 15_000 }, (err, stdout) =>
          resolve(err ? null : stdout.trim() || null),
        ),
      );
      if (dir && path.isAbsolute(dir)) return dir;
    }
    return null;
  })();
  return fallbackDir;
}

export interface PythonCoverageSetup {
  env: Record<string, string>;
  /** Where the processes write their JSON. */
  outDir: string;
  /** Whether a coverage.py was found to lend to a Python without one. */
  lent: boolean;
}

/**
 * Writes the sitecustomize, its configuration (the changed files by repository path → absolute path in
 * the checkout) and a folder lending only the found coverage package, under `dir` (inside the checkout).
 */
export async function preparePython(dir: string, cwd: string, files: string[], basePythonPath?: string): Promise<PythonCoverageSetup> {
  const site = path.join(dir, "site");
  const lend = path.join(dir, "lend");
  const outDir = path.join(dir, "out");
  await mkdir(site, { recursive: true });
  await mkdir(outDir, { recursive: true });
  await writeFile(path.join(site, "sitecustomize.py"), SITECUSTOMIZE);
  const found = await findCoveragePy();
  if (found) {
    await mkdir(lend, { recursive: true });
    await symlink(found, path.join(lend, "coverage"), "dir");
  }
  const conf = path.join(dir, "pycov.json");
  await writeFile(conf, JSON.stringify({ out: outDir, fallback: found ? lend : null, files: Object.fromEntries(files.map((f) => [f, path.join(cwd, f)])) }));
  const pythonPath = [site, ...(basePythonPath ? [basePythonPath] : [])].join(path.delimiter);
  return { env: { PYTHONPATH: pythonPath, TRM_PYCOV_CONF: conf }, outDir, lent: found !== null };
}

/** What the processes' reports say: lines that ran, and each file's statements (its executable lines). */
export interface PythonCoverage {
  hits: LineHits;
  executable: Map<string, Set<number>>;
  /** How many reports were read, and how many of them of a process that ran tests. */
  reports: number;
  testReports: number;
}

const lineList = (v: unknown): number[] => (Array.isArray(v) ? v.filter((n): n is number => Number.isInteger(n) && n > 0 && n < 10_000_000) : []);

/**
 * Merges one process's report into `into`: a statement ran when it is not missing in some process; a
 * file counts as loaded when some process measured it. Only `wanted` keys are read. Pure.
 */
export function addPythonReport(into: PythonCoverage, report: unknown, wanted: Set<string>): void {
  if (!report || typeof report !== "object") return;
  const { tests, files } = report as { tests?: unknown; files?: unknown };
  if (!files || typeof files !== "object") return;
  into.reports++;
  if (tests === true) into.testReports++;
  for (const rel of wanted) {
    const entry = Object.hasOwn(files, rel) ? (files as Record<string, unknown>)[rel] : undefined;
    if (!entry || typeof entry !== "object") continue;
    const e = entry as { statements?: unknown; missing?: unknown; loaded?: unknown };
    const statements = lineList(e.statements);
    const missing = new Set(lineList(e.missing));
    const exec = into.executable.get(rel) ?? new Set<number>();
    for (const l of statements) exec.add(l);
    into.executable.set(rel, exec);
    if (e.loaded !== true) continue;
    let lines = into.hits.get(rel);
    if (!lines) into.hits.set(rel, (lines = new Map()));
    for (const l of statements) lines.set(l, Math.max(lines.get(l) ?? 0, missing.has(l) ? 0 : 1));
  }
}

/** Reads the folder the processes wrote, bounded in files and bytes. */
export function readPythonDir(outDir: string, wanted: Set<string>): PythonCoverage {
  const out: PythonCoverage = { hits: new Map(), executable: new Map(), reports: 0, testReports: 0 };
  let names: string[];
  try {
    // The folder itself may have been swapped for a link to another (the tests can write there).
    if (!lstatSync(outDir).isDirectory()) return out;
    names = readdirSync(outDir)
      .filter((n) => n.endsWith(".json"))
      .slice(0, MAX_REPORTS);
  } catch {
    return out;
  }
  let budget = MAX_TOTAL;
  for (const name of names) {
    try {
      const file = path.join(outDir, name);
      // lstat: a link (to /dev/zero, to a file outside) is not a report.
      const st = lstatSync(file);
      if (!st.isFile() || st.size > MAX_REPORT || st.size > budget) continue;
      budget -= st.size;
      addPythonReport(out, JSON.parse(readPrefix(file, st.size, "refuse")), wanted);
    } catch {
      // A report cut short (a process killed while writing) or not JSON: the others still count.
    }
  }
  return out;
}
