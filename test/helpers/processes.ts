import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import type { TestServer } from "./client.js";
import { filesCandidate } from "./fixtures.js";

/**
 * Processes whose working folder is `dir`, found through /proc (no pgrep needed), and whose command line
 * holds `running` when given; other tests' processes have other folders. A folder removed since still
 * counts: a process left in it shows it as "<path> (deleted)".
 */
export function processesIn(dir: string, running?: string): number[] {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    real = path.resolve(dir);
  }
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      if ([real, `${real} (deleted)`].includes(readlinkSync(`/proc/${pid}/cwd`)) && (running === undefined || readFileSync(`/proc/${pid}/cmdline`, "latin1").includes(running))) pids.push(pid);
    } catch {
      // Gone meanwhile, or another user's.
    }
  }
  return pids;
}

/** The shells started ahead (src/evaluate/warm-shells.ts) that wait in `dir`. */
export function waitingShellsIn(dir: string): number[] {
  return processesIn(dir, "__trm_c_");
}

/** Whether `pid` runs: a zombie (dead, not yet reaped: some containers' PID 1 never reaps) does not. */
export function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

/** Waits until `check` holds, polling every 20 ms for at most `ms`; the caller asserts what it waited for. */
export async function until(check: () => boolean, ms = 5000): Promise<void> {
  for (let waited = 0; waited < ms && !check(); waited += 20) await new Promise((r) => setTimeout(r, 20));
}

/** Submits a first step (js-stats fixture) and returns the shells started ahead for the next, once `count` wait. */
export async function shellsAfterFirstStep(srv: TestServer, sessionId: string, worktree: string, count = 3): Promise<number[]> {
  await srv.call("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", "export const a = 1;\n") });
  await until(() => waitingShellsIn(worktree).length === count);
  return waitingShellsIn(worktree);
}
