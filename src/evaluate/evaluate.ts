import { constants, existsSync, lstatSync } from "node:fs";
import { mkdir, open, realpath, rm } from "node:fs/promises";
import path from "node:path";
import { LIMITS } from "../util/limits.js";
import { capHeadTail } from "../util/text.js";
import { resolveInside } from "../util/paths.js";
import { parseBenchValue, parseDiagnostics, parseTests } from "./parsers/index.js";
import { checkoutLeakNotice, checkoutPathsIn } from "./checkout-leak.js";
import { missingPathNotice } from "./missing-paths.js";
import { runCommand, type RunResult } from "./run.js";
import type { Sandbox } from "./sandbox.js";
import { perfScore, testScore, weightedScore, type Components, type PerfDirection, type Weights } from "./score.js";
import type { TestIdentity } from "./test-identity.js";
import type { Diagnostic, TestCounts } from "./types.js";

export type CommandKind = "build" | "test" | "lint" | "bench";

export interface CommandRecord {
  cmd: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** Why the command did not run (cascade after a failed build). */
  skipped?: string;
  /** Output kept in the record (head and tail when long). */
  output: string;
  truncated: boolean;
}

export interface Evaluation {
  /** Keyed by kind (build, test, lint, bench) and `check:<name>` for extra checks. */
  commands: Record<string, CommandRecord | undefined>;
  /** Pass/fail of each extra check, by name. */
  checks?: Record<string, boolean>;
  okBuild?: boolean;
  okLint?: boolean;
  tests?: TestCounts | null;
  /** Tests of earlier steps now skipped or missing, counted in `tests` as failed (judge.ts). */
  testIdentity?: TestIdentity;
  perf?: { value: number | null; score: number };
  components: Components;
  score: number;
  testsPass: boolean;
  diagnostics: Diagnostic[];
  /** Plain statements about the environment, e.g. dependencies missing in the worktree. */
  notices: string[];
  /** Time the configured commands themselves took. */
  commandsMs: number;
}

export interface CheckSpec {
  name: string;
  cmd: string;
  weight: number;
}

export interface EvaluateOptions {
  cwd: string;
  commands: Partial<Record<CommandKind, string>>;
  checks?: CheckSpec[];
  /** Worktree-relative path of a JUnit XML report the test command writes. */
  testReport?: string;
  timeoutSec: number;
  weights: Weights;
  cascade: boolean;
  perfDirection: PerfDirection;
  /** Best bench value of the earlier steps, for perf normalisation. */
  previousBestPerf?: number;
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
  env?: Record<string, string>;
  /** Interval of progress ticks while a command runs (clients time out after 60 s without them). */
  tickMs?: number;
  /** Where a running command's process group is recorded, for recovery after a crash. */
  groupFile?: string;
  /** Credential-named variables the commands may see, and the sandbox (run.ts). */
  passEnv?: string[];
  sandbox?: Sandbox;
  /** The user's checkout and the folders linked from it: output naming other files of it is reported. */
  checkout?: { root: string; linked: string[] };
}

export class EvaluationCancelled extends Error {
  constructor() {
    super("Evaluation cancelled by the client.");
  }
}

export function checkWeights(checks: CheckSpec[] = []): Record<string, number> {
  return Object.fromEntries(checks.map((c) => [c.name, c.weight]));
}

/** What an evaluation produced: the record (stored with the step) and the full outputs (stored apart). */
export interface EvaluationRun {
  evaluation: Evaluation;
  /** Output of each command as parsed (up to the parse cap), by the same keys as `commands`. */
  logs: Record<string, string>;
}

/**
 * Runs build, test, lint, the extra checks and bench (those configured) in the worktree and scores the
 * result. A failing command is a normal, scored outcome; only a cancellation throws.
 */
export async function evaluate(opts: EvaluateOptions): Promise<EvaluationRun> {
  const commands: Evaluation["commands"] = {};
  const results: Record<string, RunResult> = {};
  const logs: Record<string, string> = {};
  let commandsMs = 0;
  let buildFailed = false;
  let junitXml: string | undefined;
  const notices: string[] = [];

  const steps: { key: string; kind: CommandKind | "check"; cmd: string }[] = [];
  for (const kind of ["build", "test", "lint"] as const) if (opts.commands[kind]) steps.push({ key: kind, kind, cmd: opts.commands[kind]! });
  for (const c of opts.checks ?? []) steps.push({ key: `check:${c.name}`, kind: "check", cmd: c.cmd });
  if (opts.commands.bench) steps.push({ key: "bench", kind: "bench", cmd: opts.commands.bench });

  for (const { key, kind, cmd } of steps) {
    if (buildFailed && opts.cascade && (kind === "test" || kind === "bench")) {
      commands[key] = { cmd, exitCode: null, timedOut: false, durationMs: 0, skipped: "build failed", output: "", truncated: false };
      continue;
    }
    // A report left by an earlier step must not be read as this step's result.
    // Where the kernel lands, checked: a report path through a link must not delete or read outside.
    const report = kind === "test" && opts.testReport ? (await resolveInside(opts.cwd, opts.testReport)).real : undefined;
    if (report) {
      await rm(report, { force: true });
      // Some reporters (node --test's junit) do not create the report's folder themselves.
      await mkdir(path.dirname(report), { recursive: true });
    }
    opts.onProgress?.(`running ${key}: ${cmd}`);
    const res = await runCommand(cmd, {
      cwd: opts.cwd,
      timeoutMs: opts.timeoutSec * 1000,
      signal: opts.signal,
      env: opts.env,
      onTick: (ms) => opts.onProgress?.(`running ${key} (${Math.round(ms / 1000)}s): ${cmd}`),
      tickMs: opts.tickMs,
      groupFile: opts.groupFile,
      passEnv: opts.passEnv,
      sandbox: opts.sandbox,
    });
    if (res.cancelled) throw new EvaluationCancelled();
    results[key] = res;
    logs[key] = res.output.all;
    commandsMs += res.durationMs;
    const stored = capHeadTail(res.output.all, LIMITS.maxStoredOutputChars);
    commands[key] = {
      cmd,
      exitCode: res.exitCode,
      timedOut: res.timedOut,
      durationMs: res.durationMs,
      output: res.spawnError ? `${res.spawnError}\n${stored.text}` : stored.text,
      truncated: res.truncated || stored.truncated,
    };
    if (report) {
      // Checked again: the command may have put a link where the report goes.
      junitXml = await resolveInside(opts.cwd, opts.testReport!)
        .then(({ real }) => readHead(real, LIMITS.maxParseOutputChars))
        .catch(() => undefined);
      if (junitXml === undefined) notices.push(`The test command did not write the report ${opts.testReport}; counts were read from its output instead.`);
    }
    if (kind === "build" && !succeeded(res)) buildFailed = true;
  }

  // The parsers make paths relative by prefix; they need the real path (e.g. macOS /tmp is a symlink).
  const realCwd = await realpath(opts.cwd).catch(() => opts.cwd);
  const components: Components = {};
  const ev: Evaluation = { commands, components, score: 0, testsPass: true, diagnostics: [], notices, commandsMs };

  if (opts.commands.build) {
    ev.okBuild = results.build ? succeeded(results.build) : false;
    components.build = ev.okBuild ? 1 : 0;
  }
  if (opts.commands.lint) {
    ev.okLint = results.lint ? succeeded(results.lint) : false;
    components.lint = ev.okLint ? 1 : 0;
  }
  if (opts.checks?.length) {
    ev.checks = Object.fromEntries(opts.checks.map((c) => [c.name, !!results[`check:${c.name}`] && succeeded(results[`check:${c.name}`]!)]));
    components.checks = Object.fromEntries(Object.entries(ev.checks).map(([n, ok]) => [n, ok ? 1 : 0]));
  }
  if (opts.commands.test) {
    const r = results.test;
    ev.tests = r ? parseTests(r.output, { cwd: realCwd, ...(junitXml !== undefined ? { junitXml } : {}) }) : null;
    if (ev.tests && r && !succeeded(r) && ev.tests.failed === 0) {
      // The runner failed but reported no failing test (a crash, a timeout, an error outside tests):
      // that is a failure the counts alone would hide.
      ev.tests = { ...ev.tests, failed: ev.tests.failed + 1, total: ev.tests.total + 1, failures: [...ev.tests.failures, { name: r.timedOut ? "(test command timed out)" : `(test command exited ${r.exitCode ?? r.signal})` }] };
    }
    // Skipped tests count for nothing; one that ran at an earlier step counts as failed (judge.ts).
    components.test = ev.tests ? testScore(ev.tests.passed, ev.tests.passed + ev.tests.failed) : 0;
    ev.testsPass = !!ev.tests && ev.tests.total > 0 && ev.tests.failed === 0 && !!r && succeeded(r);
  }
  if (opts.commands.bench) {
    const r = results.bench;
    const value = r && succeeded(r) ? parseBenchValue(r.output.stdout || r.output.all) : null;
    const score = value === null ? 0 : perfScore(value, opts.previousBestPerf, opts.perfDirection);
    ev.perf = { value, score };
    components.perf = score;
  }
  ev.score = weightedScore(components, opts.weights, checkWeights(opts.checks));

  for (const [key, r] of Object.entries(results)) {
    if (key !== "bench" && !succeeded(r)) ev.diagnostics.push(...parseDiagnostics(r.output.all, { cwd: realCwd }).map((d) => ({ ...d, command: key })));
  }
  ev.diagnostics = dedupe(ev.diagnostics);
  ev.notices.push(...environmentNotices(opts.cwd, results, opts.checkout));
  if (opts.checkout) {
    // Node prints real paths (macOS /tmp is a link), Python the paths as it was given them: both forms.
    const { root, linked } = opts.checkout;
    const roots = [...new Set([root, await realpath(root).catch(() => root)])];
    const worktrees = [...new Set([opts.cwd, realCwd])];
    const named = (out: string) => [...new Set(roots.flatMap((r) => checkoutPathsIn(out, r, worktrees, linked)))];
    const leak = checkoutLeakNotice(Object.fromEntries(Object.entries(results).map(([k, r]) => [k, named(r.output.all)])));
    // First, so that it is read before the score is trusted.
    if (leak) ev.notices.unshift(leak);
  }
  return { evaluation: ev, logs };
}

function succeeded(r: RunResult): boolean {
  return r.exitCode === 0 && !r.timedOut;
}

function dedupe(ds: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return ds.filter((d) => {
    const k = `${d.file}:${d.line}:${d.column}:${d.code}:${d.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

const MISSING_DEP_RE = /Cannot find module|ERR_MODULE_NOT_FOUND|Cannot find package|: command not found|: not found\b|ModuleNotFoundError/;

/** Node and tsc resolve node_modules by walking up, so a worktree inside .git may still find the checkout's. */
function nodeModulesReachable(dir: string): boolean {
  let d = dir;
  for (;;) {
    if (existsSync(path.join(d, "node_modules"))) return true;
    const up = path.dirname(d);
    if (up === d) return false;
    d = up;
  }
}

const lexists = (p: string) => {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

function environmentNotices(cwd: string, results: Record<string, RunResult>, checkout?: { root: string }): string[] {
  const notices: string[] = [];
  for (const r of Object.values(results)) {
    if (r?.timedOut) notices.push(`"${r.cmd}" timed out and was killed with its child processes; raise timeoutSec if it needs longer.`);
  }
  if (checkout) {
    for (const r of Object.values(results)) {
      const n = missingPathNotice(r.cmd, r.timedOut ? null : r.exitCode, r.output.all, (rel) => lexists(path.join(cwd, rel)), (rel) => lexists(path.join(checkout.root, rel)));
      if (n && !notices.includes(n)) notices.push(n);
    }
  }
  const missing = Object.values(results).some((r) => r && !succeeded(r) && MISSING_DEP_RE.test(r.output.all));
  if (missing && existsSync(path.join(cwd, "package.json")) && !nodeModulesReachable(cwd)) {
    notices.push("Dependencies not installed: the worktree has no node_modules. Start the session with setupCmd (e.g. \"npm ci\") or linkPaths: [\"node_modules\"].");
  } else if (missing) {
    notices.push("A command could not find a module or program: dependencies may be missing in the worktree (setupCmd / linkPaths), or the candidate imports something that does not exist.");
  }
  return notices;
}

/**
 * Re-derives the perf component and the score of an evaluation against the current best bench value.
 * Needed when an evaluation is reused from the cache: its perf score was relative to another history.
 */
export function rescore(ev: Evaluation, weights: Weights, checks: CheckSpec[], perfDirection: PerfDirection, previousBestPerf: number | undefined): Evaluation {
  if (!ev.perf) return { ...ev, score: weightedScore(ev.components, weights, checkWeights(checks)) };
  const score = ev.perf.value === null ? 0 : perfScore(ev.perf.value, previousBestPerf, perfDirection);
  const components = { ...ev.components, perf: score };
  return { ...ev, perf: { ...ev.perf, score }, components, score: weightedScore(components, weights, checkWeights(checks)) };
}

/** At most `max` bytes of a file as text, never through a link (a report is a regular file the command wrote). */
async function readHead(file: string, max: number): Promise<string> {
  const fh = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const buf = Buffer.alloc(Math.min(max, (await fh.stat()).size));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).toString("utf8");
  } finally {
    await fh.close();
  }
}
