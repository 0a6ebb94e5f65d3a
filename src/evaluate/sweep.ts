import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * A process that leaves the command's process group (`setsid`, a double-forking daemon) cannot be
 * killed through the group. It still carries the environment it inherited, so every command gets a
 * marker variable and, when it ends, every process whose /proc/<pid>/environ holds that marker is
 * killed. Limits (without the sandbox's pid namespace): a process that re-executes itself with an
 * emptied environment (`env -i`), or runs as another user, is not found. Linux only; elsewhere a no-op.
 *
 * Reading every process's environment costs ~1 ms per command on an ordinary machine (a step runs
 * three). Right after a command, only processes it could have started are read: the kernel hands out
 * pids in increasing order until it wraps at pid_max, so everything the command started has a pid above
 * the command's own, unless the counter wrapped meanwhile. The narrow sweep is used only when a wrap
 * cannot have gone unseen: the last pid handed out is still above the command's, the command ran for
 * less than a second (coming back past it within that time takes tens of thousands of forks), pid_max
 * is at least Linux's default, and /proc is this process's own pid namespace. Otherwise all are read.
 */
export const RUN_MARKER = "TRM_RUN";

function marked(pid: number, inner: Buffer, first: Buffer): boolean {
  try {
    const env = readFileSync(`/proc/${pid}/environ`);
    return env.indexOf(inner) !== -1 || env.subarray(0, first.length).equals(first);
  } catch {
    return false; // gone, or another user's
  }
}

/** A number from /proc, or null (not Linux, not readable). */
function procNumber(file: string): number | null {
  try {
    const n = Number(readFileSync(file, "utf8").trim());
    return Number.isSafeInteger(n) ? n : null;
  } catch {
    return null;
  }
}

let narrowable: boolean | undefined;
/** /proc is this process's pid namespace (its pids are the ones the kernel counts here) and pid_max is not lowered. */
function canNarrow(): boolean {
  if (narrowable === undefined) {
    let self: string | null = null;
    try {
      self = readlinkSync("/proc/self");
    } catch {
      // No /proc.
    }
    narrowable = self === String(process.pid) && (procNumber("/proc/sys/kernel/pid_max") ?? 0) >= 32_768;
  }
  return narrowable;
}

/** The lowest pid a process started by a command can have, if the narrow sweep is safe (see above). */
export function sweepFloor(since: { pid: number; at: number }): number {
  if (!canNarrow() || performance.now() - since.at >= 1000) return 0;
  const last = procNumber("/proc/sys/kernel/ns_last_pid");
  return last !== null && last >= since.pid ? since.pid : 0;
}

/**
 * Kills every process (but this one) whose environment contains `name=value`; repeated a few times,
 * since a daemon may fork while it is being killed. Returns how many were killed. `since`: the
 * command's first process (its pid, and performance.now() at its spawn): only processes it could have
 * started are read, when that is safe (sweepFloor).
 */
export function killMarked(name: string, value: string, since?: { pid: number; at: number }): number {
  // Entries are NUL-separated: the leading NUL (or the start) keeps FOO_TRM_RUN=... from matching.
  const needles = [Buffer.from(`\0${name}=${value}\0`), Buffer.from(`${name}=${value}\0`)];
  // Distinct processes: SIGKILL lands asynchronously, so a dying one can still be read in the next round.
  const killed = new Set<number>();
  for (let round = 0; round < 5; round++) {
    let found = 0;
    let pids: string[];
    try {
      pids = readdirSync("/proc");
    } catch {
      return killed.size;
    }
    const floor = since ? sweepFloor(since) : 0;
    for (const p of pids) {
      const pid = Number(p);
      if (!Number.isInteger(pid) || pid <= 1 || pid < floor || pid === process.pid) continue;
      if (!marked(pid, needles[0]!, needles[1]!)) continue;
      try {
        process.kill(pid, "SIGKILL");
        if (!killed.has(pid)) found++;
        killed.add(pid);
      } catch {
        /* already gone */
      }
    }
    if (found === 0) break;
  }
  return killed.size;
}
