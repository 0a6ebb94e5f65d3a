/**
 * Runs the project's tests once with coverage on a checkout of the change, and says which added lines
 * no test ran. Node's own V8 coverage (NODE_V8_COVERAGE in the command's environment) sees every
 * process of every runner that loads files as Node does; Jest and Vitest, which run their own
 * transforms' output, write Istanbul's JSON when asked (runners/*.ts `coverage`). coverage.py starts in
 * every Python process through a sitecustomize (python.ts); `go test` writes a cover profile (the flag
 * its descriptor gives, placed as a selection is, else through GOFLAGS). All of it goes into a folder
 * inside the worktree (the sandbox lets the command write only there), removed afterwards.
 */
import { randomBytes } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { type RunResult, runCommand } from "../../exec/run.js";
import type { Sandbox } from "../../exec/sandbox.js";
import { readPrefix } from "../../util/read-prefix.js";
import { shellQuote } from "../../util/text.js";
import { projectRunner, scriptRun } from "../runner-hint.js";
import { placeArgs } from "../select-command.js";
import { type ChangedLines, type CoverageLanguage, languageOf } from "./changed-lines.js";
import { appendArgs } from "./command-args.js";
import { executableLines } from "./executable-lines.js";
import { goCodeLines, parseGoProfile, profileNames } from "./go-profile.js";
import { type LineHits, readIstanbulJson, readV8Dir, V8_CONVERT_MS } from "./line-hits.js";
import { preparePython, readPythonDir } from "./python.js";
import { type ChangeCoverage, crossCoverage } from "./uncovered.js";

export interface CoverageRunOptions {
  /** A checkout of the change's head (a temporary or pool worktree, never the user's). */
  cwd: string;
  testCmd: string;
  changed: ChangedLines;
  /** The changed files' text read before any command ran (else read after the tests, from the checkout). */
  sources?: Map<string, string>;
  timeoutSec: number;
  signal?: AbortSignal;
  sandbox?: Sandbox;
  env?: Record<string, string>;
  passEnv?: string[];
  onProgress?: (message: string) => void;
}

export interface CoverageRun extends ChangeCoverage {
  /** False when no coverage could be read: then nothing is reported as unrun. */
  measured: boolean;
  notes: string[];
  /** The command as run, and how it ended. */
  cmd: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
}

function merge(into: LineHits, from: LineHits): void {
  for (const [file, lines] of from) {
    const t = into.get(file) ?? new Map<number, number>();
    for (const [l, n] of lines) t.set(l, Math.max(t.get(l) ?? 0, n));
    into.set(file, t);
  }
}

const MAX_GO_PROFILE = 100_000_000;

/** The files of each language, in the order given. */
function byLanguage(files: Iterable<string>): Record<CoverageLanguage, string[]> {
  const out: Record<CoverageLanguage, string[]> = { js: [], py: [], go: [] };
  for (const f of files) {
    const lang = languageOf(f);
    if (lang) out[lang].push(f);
  }
  return out;
}

/** The test command that writes a Go cover profile to `file`, or the environment that asks it of every `go test`. */
export function withGoProfile(cmd: string, cwd: string, file: string, env: Record<string, string>): { cmd: string; note?: string } {
  const p = placeArgs(cmd, cwd, (part, r) =>
    !r.coverage?.goProfile ? `${r.name} writes no Go cover profile` : /\s-{1,2}args\b/.test(part) ? "-args hands what follows to the tests" : undefined,
  );
  if (!("off" in p)) return { cmd: p.place(p.runner.coverage!.goProfile!(file).map(shellQuote).join(" ")) };
  // `make test` and the like: every go command of the run takes the flag from GOFLAGS (space-separated).
  if (/\s/.test(file))
    return { cmd, note: `Go's cover profile could not be asked for (${p.off}; the checkout's path has a space): the Go files' coverage is not reported.` };
  env.GOFLAGS = [env.GOFLAGS ?? process.env.GOFLAGS ?? "", `-coverprofile=${file}`].join(" ").trim();
  return { cmd };
}

export async function measureChangeCoverage(o: CoverageRunOptions): Promise<CoverageRun> {
  const notes: string[] = [];
  const dir = path.join(o.cwd, `.trm-coverage-${randomBytes(4).toString("hex")}`);
  const v8Dir = path.join(dir, "v8");
  const istDir = path.join(dir, "istanbul");
  const goFile = path.join(dir, "go.cover");
  await mkdir(dir, { recursive: true });
  const files = byLanguage(o.changed.keys());
  const env: Record<string, string> = { ...o.env };
  let cmd = o.testCmd;
  let runner: ReturnType<typeof projectRunner>["runner"];
  let deps: ReturnType<typeof projectRunner>["deps"];
  // The runner's tests run where V8 cannot see them (Jest's vm, Vite's module runner): without its own
  // report, what other processes ran counts, but a line none of them ran may still be tested.
  let blind = false;
  if (files.js.length > 0) {
    await mkdir(v8Dir, { recursive: true });
    env.NODE_V8_COVERAGE = v8Dir;
    ({ runner, deps } = projectRunner(o.testCmd, o.cwd));
    const ij = runner?.coverage?.istanbulJson;
    if (ij && (!ij.needs || ij.needs.some((p) => deps.has(p)))) {
      const withArgs = appendArgs(o.testCmd, ij.args(istDir), scriptRun(o.testCmd, o.cwd));
      if (withArgs) cmd = withArgs;
      else notes.push(`${runner!.name}'s coverage arguments cannot be added to a chained test command ("${o.testCmd}"): only Node's own coverage was read.`);
    } else if (runner?.coverage?.v8 === false) {
      notes.push(
        `${runner.name} runs code Node's own coverage cannot map${ij?.needs ? `: install ${ij.needs[0]} in the project to measure the change's coverage` : ""}.`,
      );
    }
  }
  const py = files.py.length > 0 ? await preparePython(path.join(dir, "py"), o.cwd, files.py, o.env?.PYTHONPATH ?? process.env.PYTHONPATH) : null;
  if (py) Object.assign(env, py.env);
  if (files.go.length > 0) {
    const g = withGoProfile(cmd, o.cwd, goFile, env);
    cmd = g.cmd;
    if (g.note) notes.push(g.note);
  }
  let r: RunResult;
  try {
    o.onProgress?.(`running the tests with coverage: ${cmd}`);
    r = await runCommand(cmd, {
      cwd: o.cwd,
      timeoutMs: o.timeoutSec * 1000,
      env,
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.sandbox ? { sandbox: o.sandbox } : {}),
      ...(o.passEnv ? { passEnv: o.passEnv } : {}),
    });
    const hits: LineHits = new Map();
    const executable = new Map<string, Set<number> | null>();
    const read = new Set<CoverageLanguage>();
    if (files.js.length > 0) {
      const wanted = new Set(files.js);
      const v8 = await readV8Dir(v8Dir, o.cwd, wanted);
      if (v8.cut) notes.push(`Node's coverage reports took more than ${V8_CONVERT_MS / 1000} s to read (ranges over many lines): what they say is not used.`);
      merge(hits, v8.hits);
      merge(hits, readIstanbulJson(path.join(istDir, "coverage-final.json"), o.cwd, wanted));
      const istRead = readPrefix(path.join(istDir, "coverage-final.json"), 2).length > 0;
      if ((v8.projectScripts > 0 && !v8.cut) || istRead || files.js.some((f) => hits.has(f))) {
        read.add("js");
        blind = runner?.coverage?.v8 === false && !istRead;
        if (blind) notes.push(`${runner!.name} wrote no coverage report: added lines Node's own coverage saw run count as tested, and none is reported unrun.`);
        for (const file of files.js) executable.set(file, await executableLines(file, o.sources?.get(file) ?? readPrefix(path.join(o.cwd, file), 5_000_000)));
      }
    }
    if (py) {
      const pc = readPythonDir(py.outDir, new Set(files.py));
      if (pc.testReports > 0) {
        read.add("py");
        merge(hits, pc.hits);
        for (const file of files.py) executable.set(file, pc.executable.get(file) ?? new Set());
      } else
        notes.push(
          pc.reports > 0
            ? "coverage.py measured no Python process that ran tests (pytest or unittest): the Python files' coverage is not reported (tox and nox clear PYTHONPATH: run the tests directly)."
            : py.lent
              ? "No Python process of the tests started coverage.py (a command that sets PYTHONPATH must keep the one it is given: PYTHONPATH=src:$PYTHONPATH): the Python files' coverage is not reported."
              : "coverage.py is not installed (apt-get install python3-coverage, or pip install coverage): the Python files' coverage is not reported.",
        );
    }
    if (files.go.length > 0) {
      const text = readPrefix(goFile, MAX_GO_PROFILE, "refuse");
      if (text.startsWith("mode:")) {
        read.add("go");
        const texts = new Map(files.go.map((f) => [f, o.sources?.get(f) ?? readPrefix(path.join(o.cwd, f), 5_000_000)]));
        const gc = parseGoProfile(text, profileNames(o.cwd, files.go), new Map([...texts].map(([f, t]) => [f, t.split("\n").length])));
        merge(hits, gc.hits);
        const absent = files.go.filter((f) => !gc.executable.has(f));
        for (const file of files.go) {
          const code = goCodeLines(texts.get(file)!);
          executable.set(file, new Set([...(gc.executable.get(file) ?? [])].filter((l) => code.has(l))));
        }
        if (absent.length > 0)
          notes.push(
            `${absent.length} changed Go file(s) are in no package the tests measured (a package without tests, or one that did not build): not reported.`,
          );
      } else if (!notes.some((n) => n.startsWith("Go's cover profile")))
        notes.push(`go test wrote no cover profile under "${cmd}" (exit ${r.exitCode ?? "by signal"}): the Go files' coverage is not reported.`);
    }
    const measured = read.size > 0;
    if (r.timedOut) notes.push(`The tests did not finish within ${o.timeoutSec} s under coverage: lines they had not reached yet read as unrun.`);
    if (!measured) {
      notes.push(`No coverage of the project's files could be read from "${cmd}" (exit ${r.exitCode ?? "by signal"}): the change's coverage is not reported.`);
      return {
        uncovered: [],
        covered: new Map(),
        added: 0,
        ran: 0,
        measured,
        notes,
        cmd,
        exitCode: r.exitCode,
        timedOut: r.timedOut,
        durationMs: r.durationMs,
      };
    }
    // Only the languages whose coverage was read: another's files are neither run nor unrun.
    const changed: ChangedLines = new Map([...o.changed].filter(([f]) => read.has(languageOf(f)!)));
    const cross = crossCoverage(changed, hits, executable);
    if (blind) cross.uncovered = cross.uncovered.filter((u) => languageOf(u.file) !== "js");
    return { ...cross, measured, notes, cmd, exitCode: r.exitCode, timedOut: r.timedOut, durationMs: r.durationMs };
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
