/**
 * What code-trm reads of /proc (Linux; elsewhere each answers null or false): the processes listed, a
 * process's start time and state (a pid names the same process only while its start time is unchanged:
 * pids are reused), and the environment block it was started with.
 */
import { readdirSync, readFileSync } from "node:fs";

/** When `pid` started (field 22 of /proc/<pid>/stat, clock ticks since boot), or null: gone, or not Linux. */
export function startTime(pid: number): string | null {
  try {
    // Field 22 (starttime).
    return statFields(pid)[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * The fields of /proc/<pid>/stat after the command name, which is parenthesised and may itself contain
 * spaces: the first is the state (field 3). Throws when the process is gone (or not Linux).
 */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * True when `pid` is the process that had start time `st` and has not exited. An exited process that
 * its parent has not reaped yet (a zombie, e.g. a server killed by a client still holding it) still
 * has its /proc entry, with the same start time, but owns nothing any more.
 */
export function processAlive(pid: number, st: string): boolean {
  try {
    const rest = statFields(pid);
    return rest[0] !== "Z" && rest[0] !== "X" && rest[19] === st;
  } catch {
    return false;
  }
}

/** Every process /proc lists, or null (not Linux). */
export function allPids(): number[] | null {
  try {
    return readdirSync("/proc")
      .map(Number)
      .filter((pid) => Number.isInteger(pid));
  } catch {
    return null;
  }
}

/** The environment block `pid` was started with (NUL-separated entries), or null: gone, or another user's. */
export function environOf(pid: number): Buffer | null {
  try {
    return readFileSync(`/proc/${pid}/environ`);
  } catch {
    return null;
  }
}
