/**
 * One of a step's commands, run in the worktree (evaluate.ts orders them): a test command's `&&` chain is
 * wrapped so that each part's output is read apart (chain.ts), a JUnit report is removed before the run and
 * read after it, and the output is kept in the record. Every run of a step goes into one StepRuns, which the
 * scoring reads (score-evaluation.ts).
 */
import { constants } from "node:fs";
import { mkdir, open, rm } from "node:fs/promises";
import path from "node:path";
import { type RunResult, runCommand } from "../exec/run.js";
import { LIMITS } from "../util/limits.js";
import { resolveInside } from "../util/paths.js";
import { capHeadTail } from "../util/text.js";
import { markersSeen, splitAndChain, splitChainOutput, stripMarkers, type WrappedChain, wrapChain } from "./chain.js";
import type { CommandKind, EvaluateOptions, Evaluation } from "./evaluate.js";
import { parseTests } from "./parsers/index.js";
import { readChainTests } from "./read-tests.js";
import type { CommandOutput, TestCounts } from "./types.js";

export class EvaluationCancelled extends Error {
  constructor() {
    super("Evaluation cancelled by the client.");
  }
}

/** A test command run as a wrapped chain: the chain and its raw output (markers included), read part by part. */
export interface ChainRun {
  chain: WrappedChain;
  raw: CommandOutput;
}

/** What a step's commands produced so far, by the keys of `Evaluation.commands`. */
export interface StepRuns {
  commands: Evaluation["commands"];
  results: Record<string, RunResult>;
  /** Output of each command as parsed (up to the parse cap). */
  logs: Record<string, string>;
  chains: Record<string, ChainRun>;
  /** The JUnit report the test command wrote, when it wrote one. */
  junitXml?: string;
  notices: string[];
  /** The worktree's real path (the parsers make paths relative by prefix) and its Go module, for reading tests. */
  realCwd: string;
  goModule?: string;
}

export function newStepRuns(realCwd: string, goModule: string | undefined): StepRuns {
  return { commands: {}, results: {}, logs: {}, chains: {}, notices: [], realCwd, ...(goModule !== undefined ? { goModule } : {}) };
}

export function succeeded(r: RunResult): boolean {
  return r.exitCode === 0 && !r.timedOut;
}

/** The tests a run printed (a chain read part by part, a JUnit report when the run wrote one). */
export function testsOf(runs: StepRuns, r: RunResult, chain: ChainRun | undefined, xml: string | undefined): TestCounts | null {
  const { realCwd, goModule } = runs;
  const whole = () => parseTests(r.output, { cwd: realCwd, ...(xml !== undefined ? { junitXml: xml } : {}), ...(goModule !== undefined ? { goModule } : {}) });
  // A chain whose parts hold no test output on their own (`echo 'ok 1' && echo '1..1'`) is read whole.
  return chain ? (readChainTests(splitChainOutput(chain.chain, chain.raw, r.exitCode), realCwd, xml, goModule, chain.chain.parts) ?? whole()) : whole();
}

/** Records a command that did not run, and why. */
export function skipCommand(runs: StepRuns, key: string, cmd: string, why: string): void {
  runs.commands[key] = { cmd, exitCode: null, timedOut: false, durationMs: 0, skipped: why, output: "", truncated: false };
}

/** Runs one command under `key` and records it in `runs`; throws EvaluationCancelled when the client cancelled. */
export async function runStepCommand(
  runs: StepRuns,
  opts: EvaluateOptions,
  key: string,
  kind: CommandKind | "check" | "quick",
  cmd: string,
  groupFile: string | undefined,
): Promise<void> {
  const { commands, results, logs, chains } = runs;
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
    runs.junitXml = await resolveInside(opts.cwd, opts.testReport!)
      .then(({ real }) => readHead(real, LIMITS.maxParseOutputChars))
      .catch(() => undefined);
    if (runs.junitXml === undefined)
      runs.notices.push(`The test command did not write the report ${opts.testReport}; counts were read from its output instead.`);
  }
}

/**
 * At most `max` bytes of a file as text, never through a link (a report is a regular file the command wrote).
 * Opened non-blocking and refused unless a regular file: a FIFO in its place hung the server for good (h30).
 */
async function readHead(file: string, max: number): Promise<string> {
  const fh = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new Error(`${file} is not a regular file`);
    const buf = Buffer.alloc(Math.min(max, st.size));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).toString("utf8");
  } finally {
    await fh.close();
  }
}
