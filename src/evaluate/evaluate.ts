import type { Sandbox } from "../exec/sandbox.js";
import { profileMark } from "../util/profile.js";
import { shellQuote } from "../util/text.js";
import { relatedVerdict } from "./affected-first.js";
import { readGoModule, realOr } from "./environment.js";
import { type FailingFirst, type GateVerdict, gateVerdict, type PartialRun, type RelatedRan } from "./failing-first.js";
import type { Components, PerfDirection, Weights } from "./score.js";
import { type GateOutcome, scoreRuns } from "./score-evaluation.js";
import { newStepRuns, runStepCommand, skipCommand, succeeded, testsOf } from "./step-command.js";
import type { TestIdentity } from "./test-identity.js";
import type { Diagnostic, TestCounts } from "./types.js";

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
 * cancellation throws (EvaluationCancelled). Each command is run by step-command.ts, the results scored by
 * score-evaluation.ts.
 */
export async function evaluate(opts: EvaluateOptions): Promise<EvaluationRun> {
  profileMark("eval-start");
  const wallStart = performance.now();
  const expand = (cmd: string) => expandFiles(cmd, opts.changedFiles ?? []);
  // The parsers make paths relative by prefix; they need the real path (e.g. macOS /tmp is a symlink).
  // Read in place, as go.mod below: each asynchronous call is a thread-pool round trip (~65 µs here).
  const runs = newStepRuns(realOr(opts.cwd), opts.commands.test ? readGoModule(opts.cwd) : undefined);
  const { commands, results, logs, chains, notices } = runs;
  let partial: Extract<GateVerdict, { partial: PartialRun }> | undefined;
  let relatedRan: RelatedRan | undefined;

  const run = (key: string, kind: CommandKind | "check" | "quick", cmd: string, groupFile: string | undefined): Promise<void> =>
    runStepCommand(runs, opts, key, kind, cmd, groupFile);
  const skip = (key: string, cmd: string, why: string) => skipCommand(runs, key, cmd, why);

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
            const v = (ff.related ? relatedVerdict : gateVerdict)(ff, testsOf(runs, r, chains.test, runs.junitXml), {
              ok: succeeded(r),
              timedOut: r.timedOut,
              code: r.exitCode,
            });
            if ("partial" in v) {
              partial = v;
              return;
            }
            if ("full" in v) {
              notices.push(v.full);
              return;
            }
            // The whole suite runs; the selected run stays in the record (and its output in the logs), not
            // in what the environment notices read: a test id pytest did not find is no missing dependency.
            notices.push(v.whole);
            relatedRan = v.relatedRan;
            commands.failingFirst = commands.test;
            logs.failingFirst = logs.test!;
            for (const o of [commands, logs, results, chains]) delete o.test;
            runs.junitXml = undefined;
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

  const gate: GateOutcome = { ...(partial ? { partial } : {}), ...(relatedRan ? { relatedRan } : {}) };
  const evaluation = scoreRuns(opts, runs, gate, commandsMs);
  profileMark("parse-score");
  return { evaluation, logs };
}
