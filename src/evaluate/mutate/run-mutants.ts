/**
 * Runs the tests against each chosen mutant of a change, in several checkouts at once, within a time
 * budget: a mutant is written into its file (and built, with a build command), the tests run, the file
 * is put back. A mutant the tests fail on, crash on or time out on is killed; one they pass on survived:
 * no test checks what that line does.
 *
 * One path, measured against Stryker's mutant schemata (one instrumented copy of the changed files,
 * a mutant switched on by __STRYKER_ACTIVE_MUTANT__ in the environment, built once per checkout): the
 * same verdict on every mutant of jshttp/content-type (Vitest) and jshttp/mime-types (Mocha), no
 * consistent speed-up (docs/review-runs-code.md), a false survivor wherever the tests run the code with
 * an environment of their own (a CLI spawned with `env: {}`: run-mutants.test.ts), and the one saving it
 * offers, a build per mutant, lost where it would count: tsc rejects the instrumented TypeScript
 * (content-type's build: TS2630, TS2554), so it needed this path as a fallback anyway.
 */
import { lstatSync, realpathSync } from "node:fs";
import { utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { type RunResult, runCommand } from "../../exec/run.js";
import type { Sandbox } from "../../exec/sandbox.js";
import { isInside } from "../../util/paths.js";
import { readPrefix } from "../../util/read-prefix.js";
import { type ChangedLines, linesOf } from "../coverage/changed-lines.js";
import { parseTests } from "../parsers/index.js";
import { relatedFor } from "../select-command.js";
import type { TestCounts } from "../types.js";
import { type ChosenMutant, chooseMutants } from "./choose.js";
import { type Instrumented, instrument } from "./instrument.js";
import { type PythonFile, pythonMutants } from "./python-mutants.js";

export interface MutationOptions {
  /** Checkout `k` of the change's head (k < parallel), made or cleaned by the caller; never the user's. */
  checkout: (k: number) => Promise<string>;
  parallel: number;
  testCmd: string;
  buildCmd?: string;
  /** Repository-relative file → 1-based changed lines the tests ran (coverage). */
  covered: Map<string, number[]>;
  /**
   * Every added line of the change: a Python line coverage.py does not count (a statement's continuation)
   * is mutated where the statement it continues ran.
   */
  changed?: ChangedLines;
  /**
   * The changed files' text as checked out, read before any command of the head ran: the head's build or
   * tests may rewrite them (with what they can read in the sandbox), and a mutant's diff is reported.
   */
  sources?: Map<string, string>;
  /** Wall time of the test runs (baseline and mutants); mutants not started by then are counted, not tested. */
  budgetMs: number;
  /** Cap of one command. */
  timeoutSec: number;
  sandbox?: (cwd: string) => Sandbox | undefined;
  env?: Record<string, string>;
  passEnv?: string[];
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
}

export type MutantStatus = "survived" | "killed" | "timeout";

/** The tests a run counted, and the first few it names where its output names them (TAP, Mocha, JUnit, JSON, …). */
export interface TestsRan {
  passed: number | null;
  failed?: number | null;
  names?: string[];
}

export interface MutantResult extends ChosenMutant {
  status: MutantStatus;
  /** The test command that ran, and what it counted. */
  cmd: string;
  tests?: TestsRan;
}

export interface MutationRun {
  results: MutantResult[];
  survived: MutantResult[];
  /** Mutants chosen but not run within the budget. */
  notRun: number;
  chosen: number;
  durationMs: number;
  notes: string[];
}

/** A changed file of the checkout that is a regular file inside it (not a link out of it), else null. */
export function plainFile(root: string, rel: string): string | null {
  const abs = path.join(root, rel);
  try {
    if (!lstatSync(abs).isFile() || !isInside(realpathSync(root), realpathSync(abs))) return null;
  } catch {
    return null;
  }
  return abs;
}

/** Names of a run kept with a mutant's result, each at most this long. */
const MAX_NAMES = 3;
const MAX_NAME = 100;

/** What the output says of the tests that ran: counts, and the first few passing tests it names. */
export function testsRan(t: TestCounts | null): TestsRan | undefined {
  if (!t) return undefined;
  const ran = t.cases?.filter((c) => c.status !== "skipped");
  const names = ran
    ?.filter((c) => c.status === "passed")
    .slice(0, MAX_NAMES)
    .map((c) => (c.name.length > MAX_NAME ? `${c.name.slice(0, MAX_NAME - 1)}…` : c.name));
  // Tests, not the assertions or subtests some runners count (tape, pytest's subtests).
  const passed = ran ? ran.filter((c) => c.status === "passed").length : t.units ? null : t.passed;
  const failed = ran ? ran.filter((c) => c.status === "failed").length : t.units ? null : t.failed;
  return { passed, ...(failed ? { failed } : {}), ...(names?.length ? { names } : {}) };
}

/** Whether the tests passed: exit 0, not timed out, and no failure counted. */
function passed(r: RunResult, cwd: string): boolean {
  if (r.exitCode !== 0 || r.timedOut || r.spawnError) return false;
  const t = parseTests(r.output, { cwd });
  return !t || (t.failed ?? 0) === 0;
}

/** Whether the output shows a test that passed (a run of none passes whatever the mutant). */
const ranTests = (r: RunResult, cwd: string): boolean => (parseTests(r.output, { cwd })?.passed ?? 0) > 0;

/**
 * The modification time (whole seconds) of the last Python file written, for the whole process: Python
 * reuses a module's cached bytecode while the source's mtime in seconds and size match it, so a mutant
 * of the same size as the one before, written within the same second, would run as that one (and the
 * file put back, as the mutant). Each write gets a later second than any before it.
 */
let pyStamp = 0;

/** The most of a changed file that is read (and instrumented). */
export const MAX_SOURCE = 2_000_000;

export async function runMutants(o: MutationOptions): Promise<MutationRun> {
  // The budget is the tests' time (the baseline and the mutants): it starts once the copy is instrumented.
  let started = performance.now();
  let deadline = started + o.budgetMs;
  const notes: string[] = [];
  const none = (why?: string): MutationRun => {
    if (why) notes.push(why);
    return { results: [], survived: [], notRun: 0, chosen: 0, durationMs: performance.now() - started, notes };
  };
  const first = await o.checkout(0);
  const originals = new Map<string, PythonFile>();
  for (const [file, lines] of o.covered) {
    const abs = o.sources ? null : plainFile(first, file);
    const content = o.sources ? o.sources.get(file) : abs ? readPrefix(abs, MAX_SOURCE) : undefined;
    const ran = new Set(lines);
    const more = file.endsWith(".py") ? (o.changed?.get(file) ?? []).flatMap(linesOf).filter((l) => !ran.has(l)) : [];
    if (content !== undefined && lines.length > 0) originals.set(file, { content, lines, more });
  }
  if (originals.size === 0) return none();
  // JavaScript and TypeScript get Stryker's mutants, Python files those of Python's own ast, of the same kinds.
  const ofPython = (py: boolean) => new Map([...originals].filter(([f]) => f.endsWith(".py") === py));
  const [js, py] = [ofPython(false), ofPython(true)];
  o.onProgress?.(`making the mutants of ${originals.size} file(s)`);
  const inst: Instrumented & { failed: string[] } = js.size > 0 ? await instrument(js) : { mutants: [], failed: [] };
  if (inst.failed.length > 0) notes.push(`Stryker's parser refused ${inst.failed.join(", ")}: no mutants there.`);
  if (py.size > 0) {
    const p = await pythonMutants(py, o.signal);
    notes.push(...p.notes);
    inst.mutants.push(...p.mutants);
  }
  const chosen = [...originals].flatMap(([file, f]) =>
    chooseMutants(
      file,
      f.content,
      inst.mutants.filter((m) => m.fileName === file),
      [...f.lines, ...(f.more ?? [])],
    ),
  );
  if (chosen.length === 0) return none();
  started = performance.now();
  deadline = started + o.budgetMs;

  const rel = relatedFor(o.testCmd, first);
  const related = ("off" in rel ? undefined : rel.command([...originals.keys()])) ?? null;
  const run = (cwd: string, cmd: string, timeoutMs: number, env?: Record<string, string>) => {
    const sb = o.sandbox?.(cwd);
    return runCommand(cmd, {
      cwd,
      timeoutMs,
      env: { ...o.env, ...env },
      ...(o.signal ? { signal: o.signal } : {}),
      ...(sb ? { sandbox: sb } : {}),
      ...(o.passEnv ? { passEnv: o.passEnv } : {}),
    });
  };
  const write = async (cwd: string, files: Map<string, string>) => {
    for (const [file, content] of files) {
      const abs = plainFile(cwd, file);
      if (!abs) continue;
      await writeFile(abs, content);
      if (file.endsWith(".py")) await utimes(abs, (pyStamp = Math.max(pyStamp + 1, Math.floor(Date.now() / 1000) + 1)), pyStamp);
    }
  };
  const build = async (cwd: string): Promise<boolean> => {
    if (!o.buildCmd) return true;
    const r = await run(cwd, o.buildCmd, Math.max(1000, Math.min(o.timeoutSec * 1000, deadline - performance.now())));
    return r.exitCode === 0 && !r.timedOut;
  };

  // The baseline: the tests pass on the head, with the related tests when the runner selects them, else all.
  // A related run must show a test that ran: with passWithNoTests (a config's, ts-scripts'), Vitest and Jest
  // exit 0 when no test relates to the files (a CLI the tests spawn), and every mutant would "survive" it.
  let cmd = o.testCmd;
  let baselineMs = 0;
  const remaining = () => Math.min(o.timeoutSec * 1000, deadline - performance.now());
  const baseline = async (): Promise<boolean> => {
    if (!(await build(first))) return false;
    for (const c of related ? [related, o.testCmd] : [o.testCmd]) {
      if (remaining() < 1000) return false;
      const r = await run(first, c, remaining());
      if (passed(r, first) && (c !== related || ranTests(r, first))) {
        cmd = c;
        baselineMs = r.durationMs;
        return true;
      }
    }
    return false;
  };
  o.onProgress?.(`baseline: the tests on the head (${chosen.length} mutants)`);
  if (!(await baseline()))
    return none(
      deadline - performance.now() < 1000
        ? `The ${Math.round(o.budgetMs / 1000)} s budget ran out before the tests had run once on the head: no mutant was run.`
        : `The tests do not pass on the head${o.buildCmd ? " (or its build fails)" : ""}: no mutant was run.`,
    );
  // A mutant that makes the tests loop is stopped well before the budget, and counts as killed.
  const perMutantMs = Math.min(o.timeoutSec * 1000, Math.max(10_000, baselineMs * 3 + 5_000));

  const queue = [...chosen];
  const results: MutantResult[] = [];
  const worker = async (k: number) => {
    if (k > 0 && deadline - performance.now() < 5000) return;
    const cwd = k === 0 ? first : await o.checkout(k);
    for (let m = queue.shift(); m; m = queue.shift()) {
      const left = deadline - performance.now();
      if (left < 1000 || o.signal?.aborted) {
        queue.unshift(m);
        return;
      }
      o.onProgress?.(`mutant ${results.length + 1}/${chosen.length}: ${m.file}:${m.line} ${m.mutator}`);
      const f = originals.get(m.file)!;
      await write(cwd, new Map([[m.file, applyMutant(f.content, inst.mutants.find((x) => x.id === m.id)!)]]));
      // A mutant the build (a compiler) rejects is killed: something checks that line.
      const r = (await build(cwd)) ? await run(cwd, cmd, Math.min(perMutantMs, left)) : null;
      await write(cwd, new Map([[m.file, f.content]]));
      const status: MutantStatus = !r ? "killed" : r.timedOut ? "timeout" : passed(r, cwd) ? "survived" : "killed";
      const tests = r ? testsRan(parseTests(r.output, { cwd })) : undefined;
      results.push({ ...m, status, cmd, ...(tests ? { tests } : {}) });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.parallel, chosen.length)) }, (_, k) => worker(k)));
  if (queue.length > 0) notes.push(`${queue.length} of ${chosen.length} mutants were not run within the ${Math.round(o.budgetMs / 1000)} s budget.`);
  results.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
  return {
    results,
    survived: results.filter((r) => r.status === "survived"),
    notRun: queue.length,
    chosen: chosen.length,
    durationMs: performance.now() - started,
    notes,
  };
}

/** `content` with the mutant's replacement in place of its location (0-based lines and columns). Pure. */
export function applyMutant(
  content: string,
  m: { replacement: string; location: { start: { line: number; column: number }; end: { line: number; column: number } } },
): string {
  const lines = content.split("\n");
  const { start, end } = m.location;
  const head = lines.slice(0, start.line).join("\n");
  const tail = lines.slice(end.line + 1).join("\n");
  const mid = `${lines[start.line]!.slice(0, start.column)}${m.replacement}${lines[end.line]!.slice(end.column)}`;
  return [...(start.line > 0 ? [head] : []), mid, ...(end.line + 1 < lines.length ? [tail] : [])].join("\n");
}
