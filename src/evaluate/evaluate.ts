import { constants } from "node:fs";
import { mkdir, open, rm } from "node:fs/promises";
import path from "node:path";
import { type RunResult, runCommand } from "../exec/run.js";
import type { Sandbox } from "../exec/sandbox.js";
import { LIMITS } from "../util/limits.js";
import { resolveInside } from "../util/paths.js";
import { profileMark } from "../util/profile.js";
import { capHeadTail, shellQuote } from "../util/text.js";
import { relatedVerdict } from "./affected-first.js";
import { markersSeen, splitAndChain, splitChainOutput, stripMarkers, type WrappedChain, wrapChain } from "./chain.js";
import { checkoutLeakNotice, checkoutPathsIn } from "./checkout-leak.js";
import { environmentNotices, readGoModule, realOr } from "./environment.js";
import { type FailingFirst, type GateVerdict, gateVerdict, type PartialRun, type RelatedRan } from "./failing-first.js";
import { testsLine } from "./feedback.js";
import { parseBenchValue, parseDiagnostics, parseTests } from "./parsers/index.js";
import { readChainDiagnostics, readChainTests } from "./read-tests.js";
import { countsNotices } from "./runner-hint.js";
import { type Components, type PerfDirection, perfScore, testsPassed, testsScore, type Weights, weightedScore } from "./score.js";
import type { TestIdentity } from "./test-identity.js";
import type { CommandOutput, Diagnostic, TestCounts } from "./types.js";

export type CommandKind = "build" | "test" | "lint" | "bench" | "quickTest";

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
  /**
   * The verdict came from the tests that failed at step `since` alone, run first and still failing
   * (failing-first.ts): the other tests count as they were then. Never best, never a success.
   */
  partial?: PartialRun;
  /** Affected first ran the related tests, which passed, before the whole suite: how many of how many. */
  relatedRan?: RelatedRan;
  /** Tests of earlier steps now skipped or missing, counted in `tests` as failed (judge.ts). */
  testIdentity?: TestIdentity;
  perf?: { value: number | null; score: number };
  components: Components;
  score: number;
  /**
   * testStrength with a weight lowered `score` from `unweighted` (score.ts strengthScore); `scaled`, the
   * score before the floor, decides success (haltDecision). Absent in records made before it.
   */
  strength?: { value: number; unweighted: number; scaled?: number };
  testsPass: boolean;
  diagnostics: Diagnostic[];
  /** Plain statements about the environment, e.g. dependencies missing in the worktree. */
  notices: string[];
  /** Wall time of the configured commands (concurrent ones overlap; each one's own time is in `commands`). */
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
  /** Files the step changed: `{files}` in a command expands to them, shell-quoted. */
  changedFiles?: string[];
  /** Run these tests first; the whole suite only when they pass (or their run shows too little). */
  failingFirst?: FailingFirst;
  /** false runs test, lint and the checks one after another instead of at the same time. */
  parallel?: boolean;
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
  /** Credential-named variables the commands may see, and the sandbox (exec/run.ts). */
  passEnv?: string[];
  sandbox?: Sandbox;
  /** The user's checkout and the folders linked from it: output naming other files of it is reported. */
  checkout?: { root: string; linked: string[] };
}

/** `{files}` in a command: the changed files, shell-quoted. */
export function expandFiles(cmd: string, changed: string[]): string {
  return cmd.includes("{files}") ? cmd.split("{files}").join(changed.map(shellQuote).join(" ")) : cmd;
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
 * result. After the build, test, lint and the checks do not depend on each other and run at the same
 * time (each with its own output, timeout and kill) unless `parallel` is false; bench runs last, alone,
 * so that its timing is not disturbed. A failing command is a normal, scored outcome; only a
 * cancellation throws.
 */
export async function evaluate(opts: EvaluateOptions): Promise<EvaluationRun> {
  const commands: Evaluation["commands"] = {};
  const results: Record<string, RunResult> = {};
  const logs: Record<string, string> = {};
  const chains: Record<string, { chain: WrappedChain; raw: CommandOutput }> = {};
  let junitXml: string | undefined;
  const notices: string[] = [];
  profileMark("eval-start");
  const wallStart = performance.now();
  const expand = (cmd: string) => expandFiles(cmd, opts.changedFiles ?? []);
  // The parsers make paths relative by prefix; they need the real path (e.g. macOS /tmp is a symlink).
  // Read in place, as go.mod below: each asynchronous call is a thread-pool round trip (~65 µs here).
  const realCwd = realOr(opts.cwd);
  const goModule = opts.commands.test ? readGoModule(opts.cwd) : undefined;
  /** The tests a run printed (a chain read part by part, a JUnit report when the run wrote one). */
  const testsOf = (r: RunResult, chain: { chain: WrappedChain; raw: CommandOutput } | undefined, xml: string | undefined) => {
    const whole = () =>
      parseTests(r.output, { cwd: realCwd, ...(xml !== undefined ? { junitXml: xml } : {}), ...(goModule !== undefined ? { goModule } : {}) });
    // A chain whose parts hold no test output on their own (`echo 'ok 1' && echo '1..1'`) is read whole.
    return chain ? (readChainTests(splitChainOutput(chain.chain, chain.raw, r.exitCode), realCwd, xml, goModule, chain.chain.parts) ?? whole()) : whole();
  };
  let partial: Extract<GateVerdict, { partial: PartialRun }> | undefined;
  let relatedRan: RelatedRan | undefined;

  const run = async (key: string, kind: CommandKind | "check" | "quick", cmd: string, groupFile: string | undefined): Promise<void> => {
    // A report left by an earlier step must not be read as this step's result.
    // Where the kernel lands, checked: a report path through a link must not delete or read outside.
    const report = kind === "test" && opts.testReport ? (await resolveInside(opts.cwd, opts.testReport)).real : undefined;
    if (report) {
      await rm(report, { force: true });
      // Some reporters (node --test's junit) do not create the report's folder themselves.
      await mkdir(path.dirname(report), { recursive: true });
    }
    const parts = kind === "test" ? splitAndChain(cmd) : null;
    let chain = parts ? wrapChain(parts) : undefined;
    opts.onProgress?.(`running ${key}: ${cmd}`);
    const exec = (line: string) =>
      runCommand(line, {
        cwd: opts.cwd,
        timeoutMs: opts.timeoutSec * 1000,
        signal: opts.signal,
        env: opts.env,
        onTick: (ms) => opts.onProgress?.(`running ${key} (${Math.round(ms / 1000)}s): ${cmd}`),
        tickMs: opts.tickMs,
        groupFile,
        passEnv: opts.passEnv,
        sandbox: opts.sandbox,
      });
    let res = await exec(chain ? chain.cmd : cmd);
    // A success that printed fewer markers than parts means the wrapping changed what the command does
    // (shell syntax the splitter misread): bash -c exits 0 on some syntax errors. Run it as typed instead.
    if (chain && res.exitCode === 0 && !res.cancelled && markersSeen(res.output.stdout, chain) < chain.parts.length) {
      chain = undefined;
      res = await exec(cmd);
    }
    if (res.cancelled) throw new EvaluationCancelled();
    if (chain) {
      chains[key] = { chain, raw: res.output };
      const all = stripMarkers(res.output.all, chain.nonce);
      results[key] = {
        ...res,
        cmd,
        output: { stdout: stripMarkers(res.output.stdout, chain.nonce), stderr: stripMarkers(res.output.stderr, chain.nonce), all },
      };
      logs[key] = all;
    } else {
      results[key] = res;
      logs[key] = res.output.all;
    }
    const stored = capHeadTail(logs[key]!, LIMITS.maxStoredOutputChars);
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
  };
  const skip = (key: string, cmd: string, why: string) => {
    commands[key] = { cmd, exitCode: null, timedOut: false, durationMs: 0, skipped: why, output: "", truncated: false };
  };

  let buildFailed = false;
  if (opts.commands.build) {
    await run("build", "build", expand(opts.commands.build), opts.groupFile);
    buildFailed = !succeeded(results.build!);
  }
  const cascadeSkip = buildFailed && opts.cascade;

  // Test (behind its quick gate), lint and the checks: independent of each other.
  const jobs: { key: string; start: (groupFile: string | undefined) => Promise<void> }[] = [];
  if (opts.commands.test) {
    const test = expand(opts.commands.test);
    if (cascadeSkip) skip("test", test, "build failed");
    else {
      const quick =
        opts.commands.quickTest && !(opts.commands.quickTest.includes("{files}") && !opts.changedFiles?.length) ? expand(opts.commands.quickTest) : undefined;
      jobs.push({
        key: "test",
        start: async (gf) => {
          if (quick) {
            await run("quickTest", "quick", quick, gf);
            if (!succeeded(results.quickTest!)) return skip("test", test, "quickTestCmd failed");
          }
          const ff = opts.failingFirst;
          if (ff) {
            await run("test", "test", ff.cmd, gf);
            const r = results.test!;
            const v = (ff.related ? relatedVerdict : gateVerdict)(ff, testsOf(r, chains.test, junitXml), {
              ok: succeeded(r),
              timedOut: r.timedOut,
              code: r.exitCode,
            });
            if ("partial" in v) {
              partial = v;
              return;
            }
            // The whole suite runs; the selected run stays in the record (and its output in the logs), not
            // in what the environment notices read: a test id pytest did not find is no missing dependency.
            notices.push(v.whole);
            relatedRan = v.relatedRan;
            commands.failingFirst = commands.test;
            logs.failingFirst = logs.test!;
            for (const o of [commands, logs, results, chains]) delete o.test;
            junitXml = undefined;
          }
          await run("test", "test", test, gf);
        },
      });
    }
  }
  if (opts.commands.lint) jobs.push({ key: "lint", start: (gf) => run("lint", "lint", expand(opts.commands.lint!), gf) });
  for (const c of opts.checks ?? []) jobs.push({ key: `check:${c.name}`, start: (gf) => run(`check:${c.name}`, "check", expand(c.cmd), gf) });
  if (opts.parallel === false || jobs.length < 2) {
    for (const j of jobs) await j.start(opts.groupFile);
  } else {
    // Each concurrent command records its own process group (exec/orphans.ts reaps the numbered files too).
    const settled = await Promise.allSettled(jobs.map((j, i) => j.start(opts.groupFile && i > 0 ? `${opts.groupFile}.${i}` : opts.groupFile)));
    const failure = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failure) throw failure.reason;
  }
  if (opts.commands.bench) {
    if (cascadeSkip) skip("bench", expand(opts.commands.bench), "build failed");
    else await run("bench", "bench", expand(opts.commands.bench), opts.groupFile);
  }
  const commandsMs = Math.round(performance.now() - wallStart);
  profileMark("commands");
  // Concurrent commands finish in any order; the record lists them in the order they are configured.
  const order = ["build", "quickTest", "failingFirst", "test", "lint", ...(opts.checks ?? []).map((c) => `check:${c.name}`), "bench"];
  for (const k of order) {
    const rec = commands[k];
    if (rec === undefined) continue;
    delete commands[k];
    commands[k] = rec;
  }

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
  if (opts.commands.test && partial) {
    // Read before (gateVerdict): the selected tests' counts, every other test as at the last full run.
    ev.tests = partial.tests;
    ev.partial = partial.partial;
    components.test = testsScore(ev.tests, false);
    ev.testsPass = false;
    notices.push(partial.notice);
  } else if (opts.commands.test) {
    if (relatedRan) ev.relatedRan = relatedRan;
    const gate = results.quickTest && !succeeded(results.quickTest) ? results.quickTest : undefined;
    const r = gate ?? results.test;
    ev.tests = r ? testsOf(r, gate ? undefined : chains.test, gate ? undefined : junitXml) : null;
    const ok = !gate && !!r && succeeded(r);
    const coverageExit = !!ev.tests && !!r && !ok && !r.timedOut && ev.tests.failed === 0 && (ev.tests.passed ?? 0) > 0 && COVERAGE_TABLE_RE.test(r.output.all);
    if (coverageExit) {
      // Every test passed and the runner printed a coverage table: the exit code is its coverage gate.
      // No failing test is made up; the tests do not count as passing while the command fails.
      notices.push(
        `All ${ev.tests!.passed} tests passed, but "${opts.commands.test}" exited ${r!.exitCode}: its coverage check failed (node-tap: --disable-coverage or --allow-incomplete-coverage; c8/nyc: --check-coverage=false).`,
      );
    } else if (ev.tests && r && !ok && ev.tests.failed === 0) {
      // The runner failed but reported no failing test (a crash, a timeout, an error outside tests):
      // that is a failure the counts alone would hide.
      const t = ev.tests;
      ev.tests = {
        ...t,
        failed: 1,
        total: t.total === null ? null : t.total + 1,
        failures: [...t.failures, { name: r.timedOut ? "(test command timed out)" : `(test command exited ${r.exitCode ?? r.signal})` }],
      };
    }
    // Skipped tests count for nothing; one that ran at an earlier step counts as failed (judge.ts).
    // A failed gate fails the test signal whatever its counts say: the full suite did not run, so a
    // ratio of the gate's few tests would be no measure of it (its failures stay, for the feedback).
    components.test = gate ? 0 : testsScore(ev.tests, ok);
    ev.testsPass = testsPassed(ev.tests, ok);
    if (gate) {
      const t = ev.tests;
      notices.push(
        `quickTestCmd failed${t ? ` (${testsLine(t)})` : ` (exit ${gate.exitCode ?? "killed"})`}, so the full test command was skipped and the test signal counts as failing.`,
      );
    } else if (r) notices.push(...countsNotices(ev.tests, r.exitCode, ok, opts.commands.test, opts.cwd));
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
    if (key === "bench" || succeeded(r)) continue;
    const chain = chains[key];
    const found = chain
      ? readChainDiagnostics(splitChainOutput(chain.chain, chain.raw, r.exitCode), realCwd)
      : parseDiagnostics(r.output.all, { cwd: realCwd });
    // Where the test results were read, the tracebacks in the output are the failing tests' own (already
    // their messages and places): not errors of their own (unittest's IndexError was listed twice).
    const testsRead = (key === "test" || key === "quickTest") && !!ev.tests;
    ev.diagnostics.push(...found.filter((d) => !(testsRead && d.source === "python")).map((d) => ({ ...d, command: key })));
  }
  ev.diagnostics = dedupe(ev.diagnostics);
  ev.notices.push(...environmentNotices(opts.cwd, results, opts.checkout, !!opts.sandbox));
  if (opts.checkout) {
    // Node prints real paths (macOS /tmp is a link), Python the paths as it was given them: both forms.
    const { root, linked } = opts.checkout;
    const roots = [...new Set([root, realOr(root)])];
    const worktrees = [...new Set([opts.cwd, realCwd])];
    const named = (out: string) => [...new Set(roots.flatMap((r) => checkoutPathsIn(out, r, worktrees, linked)))];
    const leak = checkoutLeakNotice(Object.fromEntries(Object.entries(results).map(([k, r]) => [k, named(r.output.all)])));
    // First, so that it is read before the score is trusted.
    if (leak) ev.notices.unshift(leak);
  }
  profileMark("parse-score");
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

const COVERAGE_TABLE_RE = /^\s*File\s+\|\s*% Stmts\s*\|/m;

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
