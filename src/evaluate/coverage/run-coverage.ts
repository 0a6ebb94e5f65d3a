/**
 * Runs the project's tests once with coverage on a checkout of the change, and says which added lines
 * no test ran. Node's own V8 coverage (NODE_V8_COVERAGE in the command's environment) sees every
 * process of every runner that loads files as Node does; Jest and Vitest, which run their own
 * transforms' output, write Istanbul's JSON when asked (runners/*.ts `coverage`). Both go into a folder
 * inside the worktree (the sandbox lets the command write only there), removed afterwards.
 */
import { randomBytes } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { type RunResult, runCommand } from "../../exec/run.js";
import type { Sandbox } from "../../exec/sandbox.js";
import { readPrefix } from "../../util/read-prefix.js";
import { projectRunner, scriptRun } from "../runner-hint.js";
import type { ChangedLines } from "./changed-lines.js";
import { appendArgs } from "./command-args.js";
import { executableLines } from "./executable-lines.js";
import { type LineHits, readIstanbulJson, readV8Dir } from "./line-hits.js";
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

export async function measureChangeCoverage(o: CoverageRunOptions): Promise<CoverageRun> {
  const notes: string[] = [];
  const dir = path.join(o.cwd, `.trm-coverage-${randomBytes(4).toString("hex")}`);
  const v8Dir = path.join(dir, "v8");
  const istDir = path.join(dir, "istanbul");
  await mkdir(v8Dir, { recursive: true });
  const { runner, deps } = projectRunner(o.testCmd, o.cwd);
  const ij = runner?.coverage?.istanbulJson;
  let cmd = o.testCmd;
  if (ij && (!ij.needs || ij.needs.some((p) => deps.has(p)))) {
    const withArgs = appendArgs(o.testCmd, ij.args(istDir), scriptRun(o.testCmd, o.cwd));
    if (withArgs) cmd = withArgs;
    else notes.push(`${runner!.name}'s coverage arguments cannot be added to a chained test command ("${o.testCmd}"): only Node's own coverage was read.`);
  } else if (runner?.coverage?.v8 === false) {
    notes.push(
      `${runner.name} runs code Node's own coverage cannot map${ij?.needs ? `: install ${ij.needs[0]} in the project to measure the change's coverage` : ""}.`,
    );
  }
  const wanted = new Set(o.changed.keys());
  let r: RunResult;
  try {
    o.onProgress?.(`running the tests with coverage: ${cmd}`);
    r = await runCommand(cmd, {
      cwd: o.cwd,
      timeoutMs: o.timeoutSec * 1000,
      env: { ...o.env, NODE_V8_COVERAGE: v8Dir },
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.sandbox ? { sandbox: o.sandbox } : {}),
      ...(o.passEnv ? { passEnv: o.passEnv } : {}),
    });
    const v8 = await readV8Dir(v8Dir, o.cwd, wanted);
    const hits = v8.hits;
    const ist = readIstanbulJson(path.join(istDir, "coverage-final.json"), o.cwd, wanted);
    merge(hits, ist);
    const istRead = readPrefix(path.join(istDir, "coverage-final.json"), 2).length > 0;
    const measured = v8.projectScripts > 0 || istRead || hits.size > 0;
    // The runner's tests run where V8 cannot see them (Jest's vm, Vite's module runner): without its own
    // report, what other processes ran counts, but a line none of them ran may still be tested.
    const blind = runner?.coverage?.v8 === false && !istRead;
    if (blind && measured)
      notes.push(`${runner!.name} wrote no coverage report: added lines Node's own coverage saw run count as tested, and none is reported unrun.`);
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
    const executable = new Map<string, Set<number> | null>();
    for (const file of wanted) executable.set(file, await executableLines(file, o.sources?.get(file) ?? readPrefix(path.join(o.cwd, file), 5_000_000)));
    const cross = crossCoverage(o.changed, hits, executable);
    return { ...cross, ...(blind ? { uncovered: [] } : {}), measured, notes, cmd, exitCode: r.exitCode, timedOut: r.timedOut, durationMs: r.durationMs };
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
