import { readdirSync, readFileSync } from "node:fs";

/**
 * A process that leaves the command's process group (`setsid`, a double-forking daemon) cannot be
 * killed through the group. It still carries the environment it inherited, so every command gets a
 * marker variable and, when it ends, every process whose /proc/<pid>/environ holds that marker is
 * killed. Limits (without the sandbox's pid namespace): a process that re-executes itself with an
 * emptied environment (`env -i`), or runs as another user, is not found. Linux only; elsewhere a no-op.
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

/**
 * Kills every process (but this one) whose environment contains `name=value`; repeated a few times,
 * since a daemon may fork while it is being killed. Returns how many were killed.
 */
export function killMarked(name: string, value: string): number {
  // Entries are NUL-separated: the leading NUL (or the start) keeps FOO_TRM_RUN=... from matching.
  const needles = [Buffer.from(`\0${name}=${value}\0`), Buffer.from(`${name}=${value}\0`)];
  let killed = 0;
  for (let round = 0; round < 5; round++) {
    let found = 0;
    let pids: string[];
    try {
      pids = readdirSync("/proc");
    } catch {
      return killed;
    }
    for (const p of pids) {
      const pid = Number(p);
      if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue;
      if (!marked(pid, needles[0]!, needles[1]!)) continue;
      try {
        process.kill(pid, "SIGKILL");
        found++;
      } catch {
        /* already gone */
      }
    }
    killed += found;
    if (found === 0) break;
  }
  return killed;
}
