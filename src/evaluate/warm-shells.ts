/**
 * Shells started ahead of the commands that will use them. Spawning from the server costs ~2 ms of its
 * own time per command (node forks its whole address space and waits for the exec), and a step runs
 * three: a warm shell is that spawn done while the server is idle, after a step's reply. It waits with
 * the command's folder and environment already set; the command arrives on its fd 3 and the shell
 * becomes `bash -c <command>` by exec, so what runs is exactly what a fresh spawn runs (same pid, group,
 * argv, environment, SHLVL, open files: fd 3 is closed first). Variables whose value changed since it
 * started (a step's number) are exported just before the exec.
 *
 * Only where nothing else differs: bash (sh's read cannot take a NUL-ended line), no sandbox (the
 * command line is part of bubblewrap's arguments), a command of at most MAX_COMMAND_BYTES (bash reads a
 * pipe one byte at a time), the same variable names, and the same folder, checked by device and inode (a
 * worktree removed and made again at the same path is another folder). A shell whose server goes away
 * reads end of file and exits without running anything; one that is no longer the waiting script when
 * it is taken (killed, or handed something by another process) is not used. Commands run with the
 * user's rights outside the sandbox: one that writes into a waiting shell's fd 3 through /proc gains
 * nothing it did not have (it could as well rewrite the test runner in node_modules).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import type { Writable } from "node:stream";
import { requestsInFlight, UnderWay } from "../util/activity.js";
import { statFields } from "./orphans.js";

export const WARM_SHELL = "/bin/bash";
/** Longer command lines are spawned as usual. */
export const MAX_COMMAND_BYTES = 2048;
/** Most shells kept waiting per folder (each an idle bash of ~3 MB). */
const MAX_PER_FOLDER = 6;
/** While requests are answered, shells are tried again this often, this many times. */
const RETRY_MS = 50;
const RETRIES = 40;

/**
 * The waiting script. Its own variables carry a random tag: a variable of the same name in the
 * environment would be exported, changed, to the command. It first exports the variables whose values
 * changed since it started (name and value, until an empty name: a step's number), then takes the
 * command and becomes `bash -c` with it. End of file at any point: exit without running anything.
 */
function waitScript(tag: string): string {
  const [k, v, c] = ["k", "v", "c"].map((x) => `__trm_${x}_${tag}`);
  // TMOUT (a default timeout of read, set in hardened profiles) is cleared for each read alone: a read
  // that timed out would take what the server sends next as the command (an empty one: exit 0).
  return [
    `while TMOUT= IFS= read -r -d "" -u 3 ${k}; do [ -n "$${k}" ] || break; TMOUT= IFS= read -r -d "" -u 3 ${v} || exit 0; export "$${k}=$${v}" 2>/dev/null; done`,
    `TMOUT= IFS= read -r -d "" -u 3 ${c} || exit 0`,
    "exec 3<&-",
    `exec /bin/bash -c "$${c}"`,
  ].join("\n");
}

/**
 * Variables bash acts on as it starts, before the waiting script: a file it sources (it would run at
 * warm-up and again in the command's shell), options (xtrace printing the script into the command's
 * output, allexport handing the script's own variables to the command), $0, and functions named like
 * the builtins the script calls. With any of these, commands are spawned as usual.
 */
const STARTUP = /^(BASH_ENV|SHELLOPTS|BASHOPTS|BASH_ARGV0|BASH_FUNC_(read|export|exec|exit|break|\[)%%)$/;

/** Names a waiting shell may set before the command: plain names bash gives no meaning of its own. */
const SETTABLE = /^(?!BASH|SHELLOPTS$|SHLVL$|PWD$|OLDPWD$|IFS$|ENV$|PS4$|POSIXLY_CORRECT$|_$)[A-Za-z_][A-Za-z0-9_]*$/;

/** How a child ended: its exit once its output is closed, or why it could not start. */
export type ChildEnd = { code: number | null; signal: NodeJS.Signals | null } | { error: NodeJS.ErrnoException };

/** Settles when `child` is gone and its output closed, or could not start (for a fresh spawn and a waiting shell alike). */
export function endOf(child: ChildProcess): Promise<ChildEnd> {
  return new Promise((resolve) => {
    child.once("error", (error) => resolve({ error }));
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
}

export interface WarmShell {
  child: ChildProcess;
  marker: string;
  ended: Promise<ChildEnd>;
}

interface Waiting extends WarmShell {
  folder: string;
  /** The environment it started with, without its marker. */
  env: Record<string, string>;
  tag: string;
  gone: boolean;
}

const waiting = new Map<string, Waiting[]>();
/** Evaluations under way per folder: shells are not started meanwhile. */
const busy = new UnderWay();

/** The folder as the kernel knows it: a folder made again at the same path is another one. */
function folderId(cwd: string): string | null {
  try {
    const st = statSync(cwd);
    return st.isDirectory() ? `${st.dev}:${st.ino}` : null;
  } catch {
    return null;
  }
}

/**
 * The locale: a shell warns on stderr when it starts with one that is not installed (a container's
 * LC_ALL=en_US.UTF-8), and the command's own shell warns again. A waiting shell starts without these
 * and is sent them with the command, set quietly: the command's shell alone warns, as a fresh one does.
 */
const LOCALE = /^(LANG|LC_[A-Z_]+)$/;

function withoutLocale(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([n]) => !LOCALE.test(n)));
}

/**
 * The variables to set in a shell that started with `then` so that its command sees exactly `now`, or
 * null when that cannot be done (another set of names, or a changed value of a name bash treats itself).
 */
function changes(then: Record<string, string>, now: Record<string, string>): [string, string][] | null {
  const names = Object.keys(now);
  if (names.length !== Object.keys(then).length) return null;
  const out: [string, string][] = [];
  for (const n of names) {
    if (!Object.hasOwn(then, n)) return null;
    if (then[n] === now[n]) continue;
    if (!SETTABLE.test(n)) return null;
    out.push([n, now[n]!]);
  }
  return out;
}

function hold(s: ChildProcess, on: boolean): void {
  for (const h of [s, s.stdout, s.stderr, s.stdio[3]] as unknown as ({ ref?: () => void; unref?: () => void } | null)[]) {
    if (on) h?.ref?.();
    else h?.unref?.();
  }
}

/**
 * Starts shells for `cwd` until `count` wait there with `env` (the commands' environment, as takeWarm
 * is given it: without a run's marker) plus each its own marker under `markerName`, one per timer turn;
 * shells with another environment or folder are ended. Waits while a request is answered (spawns block
 * the thread) or an evaluation runs in `cwd`.
 */
export function warmUp(cwd: string, env: Record<string, string>, markerName: string, count: number): void {
  if (closed.has(cwd)) return;
  // One chain of spawns per folder: a newer one (a later step's) replaces one still under way.
  const chain = (chains.get(cwd) ?? 0) + 1;
  chains.set(cwd, chain);
  warmStep(cwd, env, markerName, count, chain, 0);
}

const chains = new Map<string, number>();
/**
 * Folders whose session ended (endWarm): a warm-up still scheduled for one (a step's reply just before
 * the end, a retry) must not start a shell in a worktree being removed. An evaluation there opens it again.
 */
const closed = new Set<string>();

function warmStep(cwd: string, env: Record<string, string>, markerName: string, count: number, chain: number, tries: number): void {
  // A shell is checked through /proc before it is used: elsewhere none would ever be.
  if (process.platform !== "linux" || chains.get(cwd) !== chain || closed.has(cwd)) return;
  // A request under way (its reply not yet sent, or another that came right after it), or an
  // evaluation in this folder: later.
  if (requestsInFlight() > 0 || busy.count(cwd) > 0) {
    if (tries < RETRIES) setTimeout(() => warmStep(cwd, env, markerName, count, chain, tries + 1), RETRY_MS).unref();
    return;
  }
  const folder = folderId(cwd);
  if (Object.keys(env).some((n) => STARTUP.test(n))) {
    endWarm(cwd);
    return;
  }
  const list = (waiting.get(cwd) ?? []).filter((w) => {
    // One whose values differ only where they can be sent with the command (a step's number) is kept.
    const keep = !w.gone && w.folder === folder && changes(w.env, env) !== null;
    if (!keep) end(w);
    return keep;
  });
  waiting.set(cwd, list);
  if (folder === null || list.length >= Math.min(count, MAX_PER_FOLDER)) return;
  const marker = randomBytes(8).toString("hex");
  const tag = randomBytes(6).toString("hex");
  let child: ChildProcess;
  try {
    child = spawn(WARM_SHELL, ["-c", waitScript(tag)], { cwd, env: { ...withoutLocale(env), [markerName]: marker }, stdio: ["ignore", "pipe", "pipe", "pipe"], detached: true });
  } catch {
    return;
  }
  const w: Waiting = { child, marker, folder, env: env, tag, gone: false, ended: endOf(child) };
  void w.ended.then(() => (w.gone = true));
  child.once("exit", () => (w.gone = true));
  for (const st of [child.stdout, child.stderr, child.stdio[3]]) st?.on("error", () => undefined);
  // Idle, a waiting shell never keeps the server alive.
  hold(child, false);
  list.push(w);
  // One spawn (~2 ms of this thread) per timer turn: a request that arrives meanwhile waits for one at
  // most. (A chain of setImmediate instead left the next step's first git round trip 2 ms slower:
  // TRM_BENCH_PROFILE=1 bench/step-cost.mjs, phase "tree", 2.4 against 0.4 ms; the cause was not found.)
  if (list.length < Math.min(count, MAX_PER_FOLDER)) setTimeout(() => warmStep(cwd, env, markerName, count, chain, tries), 0).unref();
}

/**
 * What a fresh spawn inherits from this server and another process of the user's (an earlier command of
 * the step) can change on a waiting shell without tracing it: resource limits (prlimit), nice value and
 * scheduling policy, allowed processors (taskset), OOM score adjustment, control group (moved into a
 * delegated one with a CPU quota).
 */
function inherited(pid: number | "self", f = statFields(pid)): string {
  const cpus = /^Cpus_allowed:.*$/m.exec(readFileSync(`/proc/${pid}/status`, "latin1"))?.[0];
  // priority, nice (fields 18, 19), rt_priority, policy (40, 41)
  return [f[15], f[16], f[37], f[38], cpus, readFileSync(`/proc/${pid}/oom_score_adj`, "latin1"), readFileSync(`/proc/${pid}/cgroup`, "latin1"), readFileSync(`/proc/${pid}/limits`, "latin1")].join("\n");
}

/**
 * Still the waiting script (node's spawn returns once the exec is done), not exited, not stopped (a
 * SIGSTOP from an earlier command of the step: its command would never start, and be reported as timed
 * out), not handed anything else, and with `own`, what a fresh spawn would inherit (this server's
 * inherited("self")): what /proc says of its command line, state, limits and scheduling.
 */
function stillWaiting(w: Waiting, own: () => string): boolean {
  try {
    const pid = w.child.pid!;
    if (!readFileSync(`/proc/${pid}/cmdline`, "latin1").includes(`__trm_c_${w.tag}`)) return false;
    const f = statFields(pid);
    if ("ZXTt".includes(f[0]!)) return false;
    return inherited(pid, f) === own();
  } catch {
    return false;
  }
}

/**
 * A waiting shell for a command in `cwd` with this environment, taken out of the pool, or null: the
 * caller then spawns as usual. `run` hands it the command (warmable) and the variables that changed.
 */
export function takeWarm(cwd: string, env: Record<string, string>): (WarmShell & { run(cmd: string): void }) | null {
  const list = waiting.get(cwd);
  if (!list || list.length === 0) return null;
  const folder = folderId(cwd);
  let mine: string | undefined;
  const own = () => (mine ??= inherited("self"));
  while (list.length > 0) {
    const w = list.shift()!;
    const set = changes(w.env, env);
    if (w.gone || w.folder !== folder || set === null || w.child.pid === undefined || !stillWaiting(w, own)) {
      end(w);
      continue;
    }
    hold(w.child, true);
    // Each changed variable as name and value, an empty name, then the command: each ended by a NUL.
    // The locale always (the shell started without it), before the command is read.
    const locale = Object.entries(env).filter(([n]) => LOCALE.test(n));
    const vars = [...set.filter(([n]) => !LOCALE.test(n)), ...locale].map(([k, v]) => `${k}\0${v}\0`).join("");
    return {
      child: w.child,
      marker: w.marker,
      ended: w.ended,
      run: (cmd: string) => (w.child.stdio[3] as Writable).end(`${vars}\0${cmd}\0`),
    };
  }
  return null;
}

/** Whether `cmd` can run in a waiting shell at all (see the top of this file). */
export function warmable(cmd: string): boolean {
  return !cmd.includes("\0") && Buffer.byteLength(cmd) <= MAX_COMMAND_BYTES;
}

/** Counts an evaluation under way in `cwd` (no shell is started meanwhile); returns its end. */
export function evaluating(cwd: string): () => void {
  closed.delete(cwd);
  return busy.begin(cwd);
}

function end(w: Waiting): void {
  w.gone = true;
  // End of file on fd 3: the shell exits without running anything. A kill too, in case it is stuck.
  w.child.stdio[3]?.destroy();
  if (w.child.pid !== undefined) {
    try {
      process.kill(-w.child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** Ends the shells waiting in `cwd` (a session's end), or everywhere (the server's), and any to come there. */
export function endWarm(cwd?: string): void {
  for (const folder of cwd === undefined ? [...waiting.keys(), ...chains.keys()] : [cwd]) closed.add(folder);
  for (const [folder, list] of waiting) {
    if (cwd !== undefined && folder !== cwd) continue;
    for (const w of list) end(w);
    waiting.delete(folder);
  }
}

/** How many shells wait in `cwd` (for tests and the bench). */
export function warmCount(cwd: string): number {
  return (waiting.get(cwd) ?? []).filter((w) => !w.gone).length;
}
