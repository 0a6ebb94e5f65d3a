import { type ChildProcess, type StdioOptions, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import type { Writable } from "node:stream";
import { LIMITS } from "../util/limits.js";
import { heldCredential, isSecretName, redact, StreamRedactor, secretValues } from "../util/secrets.js";
import { stripAnsi } from "../util/text.js";
import { cleanEnv } from "./env.js";
import { forgetGroup, recordGroup, recordMarker } from "./orphans.js";
import { assertSandboxAvailable, type Sandbox, SECCOMP_FD, sandboxArgv } from "./sandbox.js";
import { keyringFilter } from "./sandbox-seccomp.js";
import { killMarked, RUN_MARKER } from "./sweep.js";

export interface RunOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  env?: Record<string, string>;
  /** Called every `tickMs` while the command runs (progress notifications keep clients from timing out). */
  onTick?: (elapsedMs: number) => void;
  tickMs?: number;
  /** Grace period between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  /** Where to record the command's process group while it runs (see orphans.ts). */
  groupFile?: string;
  /** Credential-named variables the command may see anyway (see util/secrets.ts); still redacted. */
  passEnv?: string[];
  /** Run under bubblewrap (sandbox.ts). */
  sandbox?: Sandbox;
}

/**
 * The command's environment: the server's, without what points git elsewhere and without credentials
 * (unless passed), with `CI=true` as a CI job has it. Nothing else is injected: a colour switch of ours
 * (NO_COLOR, FORCE_COLOR) would fail a project's colour tests that pass in its own CI, and colours are
 * stripped from the output anyway. runCommand adds the run's marker (sweep.ts), which finds its
 * processes again when they leave its group.
 */
export function commandEnv(extra: Record<string, string> | undefined, passEnv: readonly string[] = []): Record<string, string> {
  const env = cleanEnv({ CI: "true", ...extra });
  for (const k of Object.keys(env)) if (isSecretName(k) && !passEnv.includes(k)) delete env[k];
  // The server's own credentials are no longer in process.env (secrets.ts holds them): passed ones come from there.
  for (const k of passEnv) {
    const v = heldCredential(k);
    if (v !== undefined && env[k] === undefined) env[k] = v;
  }
  return env;
}

/** What a command printed, split as the parsers need it (JSON reporters write only to stdout). */
export interface CommandOutput {
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as they arrived. */
  all: string;
}

export interface RunResult {
  cmd: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  output: CommandOutput;
  /** True when output beyond the parse cap was dropped (head and tail are kept). */
  truncated: boolean;
  /** Set when the command could not be started at all. */
  spawnError?: string;
}

/**
 * Keeps the first and the last part of a stream. Compilers print the first error first and test
 * runners print their summary last, so both ends matter; the middle of a huge log does not.
 */
class CappedText {
  private head = "";
  private tail = "";
  private dropped = 0;
  constructor(private readonly cap: number) {}
  push(s: string): void {
    const headCap = Math.floor(this.cap / 4);
    if (this.head.length < headCap) {
      const take = s.slice(0, headCap - this.head.length);
      this.head += take;
      s = s.slice(take.length);
      if (s.length === 0) return;
    }
    this.tail += s;
    const tailCap = this.cap - headCap;
    // Trim lazily (at twice the cap) so appending stays amortised O(1).
    if (this.tail.length > tailCap * 2) {
      this.dropped += this.tail.length - tailCap;
      this.tail = this.tail.slice(this.tail.length - tailCap);
    }
  }
  finish(): { text: string; truncated: boolean } {
    const tailCap = this.cap - Math.floor(this.cap / 4);
    if (this.tail.length > tailCap) {
      this.dropped += this.tail.length - tailCap;
      this.tail = this.tail.slice(this.tail.length - tailCap);
    }
    if (this.dropped === 0) return { text: this.head + this.tail, truncated: false };
    return { text: `${this.head}\n… [${this.dropped} characters omitted] …\n${this.tail}`, truncated: true };
  }
}

const SHELL = existsSync("/bin/bash") ? "/bin/bash" : true;

/** How a child ended: its exit once its output is closed, or why it could not start. */
type ChildEnd = { code: number | null; signal: NodeJS.Signals | null } | { error: NodeJS.ErrnoException };

/** Settles when `child` is gone and its output closed, or could not start. */
function endOf(child: ChildProcess): Promise<ChildEnd> {
  return new Promise((resolve) => {
    child.once("error", (error) => resolve({ error }));
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
}

/** Why a command could not start, with what the bare error code leaves unsaid. */
function startFailure(err: NodeJS.ErrnoException, cwd: string): string {
  let where = "";
  if (err.code === "ENOENT" && !existsSync(cwd)) where = ` (the working folder ${cwd} does not exist)`;
  else if (err.code === "ENOTDIR" && statSync(cwd, { throwIfNoEntry: false })?.isDirectory() === false) where = ` (the working folder ${cwd} is not a folder)`;
  else if (err.code === "E2BIG") where = " (the command line is longer than the system accepts)";
  return `${err.message}${where}`;
}

/** How long output may still arrive after the shell exited before the pipes are closed. */
const DRAIN_MS = 1000;

/** Process groups of commands still running, so they can be killed when the server exits. */
const liveGroups = new Set<number>();
/** Markers of commands still running (sweep.ts), for what left their groups. */
const liveMarkers = new Set<string>();

function killGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    // ESRCH: the group is already gone.
  }
}

export function killAllRunning(): void {
  for (const pid of liveGroups) killGroup(pid, "SIGKILL");
  liveGroups.clear();
  for (const m of liveMarkers) killMarked(RUN_MARKER, m);
  liveMarkers.clear();
}

/**
 * Runs `cmd` through the shell as a person would type it, in its own process group, so that a
 * timeout or a cancellation kills the whole tree (e.g. jest workers under npm), not just the shell.
 * Never throws for a failing command: a non-zero exit is data for scoring.
 */
export async function runCommand(cmd: string, opts: RunOptions): Promise<RunResult> {
  const started = performance.now();
  const stdout = new CappedText(LIMITS.maxParseOutputChars);
  const stderr = new CappedText(LIMITS.maxParseOutputChars);
  const all = new CappedText(LIMITS.maxParseOutputChars);
  let timedOut = false;
  let cancelled = false;
  const grace = opts.killGraceMs ?? 2000;

  // Every value the server knows is redacted, passed ones included: the command may use them, not print them.
  const secrets = secretValues();
  const clean = (t: string) => redact(stripAnsi(t), secrets);
  // One redactor per sink: each holds back a possible secret's start until the next chunk, and `all` must
  // have its own so that holding back never reorders stdout and stderr in it (chain markers rely on order).
  const redactors = { out: new StreamRedactor(secrets), err: new StreamRedactor(secrets), all: new StreamRedactor(secrets) };
  const finish = (exitCode: number | null, signal: string | null, spawnError?: string): RunResult => {
    stdout.push(redactors.out.end());
    stderr.push(redactors.err.end());
    all.push(redactors.all.end());
    const o = stdout.finish();
    const e = stderr.finish();
    const a = all.finish();
    return {
      cmd,
      exitCode,
      signal,
      timedOut,
      cancelled,
      durationMs: Math.round(performance.now() - started),
      output: { stdout: clean(o.text), stderr: clean(e.text), all: clean(a.text) },
      truncated: o.truncated || e.truncated || a.truncated,
      spawnError: spawnError === undefined ? undefined : redact(spawnError, secrets),
    };
  };

  if (opts.signal?.aborted) {
    cancelled = true;
    return finish(null, null);
  }

  const shell = SHELL === true ? "/bin/sh" : SHELL;
  const marker = randomBytes(8).toString("hex");
  const env = { ...commandEnv(opts.env, opts.passEnv), [RUN_MARKER]: marker };
  // The marker is on disk before the command exists (orphans.ts recordMarker).
  if (opts.groupFile) {
    try {
      recordMarker(opts.groupFile, marker);
    } catch {
      // Not recorded: like a record that failed after the spawn, the command runs unrecorded.
    }
  }
  const argv = opts.sandbox ? sandboxArgv(assertSandboxAvailable(), opts.sandbox, shell, cmd, opts.passEnv) : [shell, "-c", cmd];
  // node's own spawn, not execa: nothing of execa's is used here (output is streamed, the group and the
  // timeout are handled below), and it cost ~1 ms more per command (bench/command-cost.mjs).
  // spawn throws for most start failures (ENOTDIR, E2BIG, ...): only a few come as an 'error' event.
  let child: ChildProcess;
  try {
    const stdio: StdioOptions = opts.sandbox ? ["ignore", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"];
    child = spawn(argv[0]!, argv.slice(1), { cwd: opts.cwd, env, stdio, detached: true });
    // bwrap reads its seccomp program to the end before it starts the command (sandbox.ts SECCOMP_FD).
    const filter = opts.sandbox ? (child.stdio[SECCOMP_FD] as Writable | null) : null;
    filter?.on("error", () => undefined);
    filter?.end(keyringFilter());
  } catch (err) {
    if (opts.groupFile) await forgetGroup(opts.groupFile).catch(() => undefined);
    return finish(null, null, startFailure(err as NodeJS.ErrnoException, opts.cwd));
  }
  const ended = endOf(child);
  const pid = child.pid;
  if (pid !== undefined) liveGroups.add(pid);
  liveMarkers.add(marker);

  const onData = (sink: CappedText, r: StreamRedactor) => (s: string) => {
    sink.push(r.push(s));
    all.push(redactors.all.push(s));
  };
  // Decoded by the stream: a character split between two reads is joined, not read as two broken halves.
  for (const [stream, sink, r] of [
    [child.stdout, stdout, redactors.out],
    [child.stderr, stderr, redactors.err],
  ] as const) {
    if (!stream) continue; // EMFILE, ENFILE: no pipes; the 'error' event follows
    stream.setEncoding("utf8");
    stream.on("data", onData(sink, r));
    stream.on("error", () => undefined);
  }
  // Only after the listeners are attached: output of a fast command would be lost during an await.
  const recorded = pid !== undefined && opts.groupFile ? recordGroup(opts.groupFile, pid, marker).catch(() => undefined) : undefined;
  let killTimer: NodeJS.Timeout | undefined;
  const terminate = () => {
    if (pid === undefined) return;
    killGroup(pid, "SIGTERM");
    killTimer ??= setTimeout(() => killGroup(pid, "SIGKILL"), grace);
  };
  const timeout = setTimeout(() => {
    timedOut = true;
    terminate();
  }, opts.timeoutMs);
  const onAbort = () => {
    cancelled = true;
    terminate();
  };
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  const ticker = opts.onTick ? setInterval(() => opts.onTick!(Math.round(performance.now() - started)), opts.tickMs ?? 5000) : undefined;

  // When the shell exits, anything it left running in the background would keep the pipes open and
  // outlive the evaluation; it belongs to this command, so it goes too. A process that left the group
  // (setsid, a daemon) cannot be killed that way and would hold the pipes open forever: after a short
  // drain they are closed, so the result never waits on it. The exit code is the shell's, as it exited.
  let exited: { code: number | null; signal: string | null } | undefined;
  let drainTimer: NodeJS.Timeout | undefined;
  child.on("exit", (code, signal) => {
    exited = { code, signal };
    clearTimeout(timeout);
    if (pid !== undefined) killGroup(pid, "SIGKILL");
    drainTimer = setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    }, DRAIN_MS);
  });
  try {
    const res = await ended;
    if ("error" in res) {
      if (exited) return finish(exited.code, exited.signal);
      return finish(null, null, timedOut || cancelled ? undefined : startFailure(res.error, opts.cwd));
    }
    return finish(exited ? exited.code : res.code, exited ? exited.signal : res.signal);
  } finally {
    clearTimeout(timeout);
    if (drainTimer) clearTimeout(drainTimer);
    if (killTimer) clearTimeout(killTimer);
    if (ticker) clearInterval(ticker);
    opts.signal?.removeEventListener("abort", onAbort);
    // Whatever left the group (setsid, daemons) goes too: nothing a command starts outlives it.
    killMarked(RUN_MARKER, marker);
    liveMarkers.delete(marker);
    if (pid !== undefined) {
      killGroup(pid, "SIGKILL");
      liveGroups.delete(pid);
    }
    // Also when nothing started: the marker recorded before the spawn goes.
    if (opts.groupFile) {
      await recorded;
      await forgetGroup(opts.groupFile).catch(() => undefined);
    }
  }
}
