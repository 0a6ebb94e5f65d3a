import { allPids, environOf } from "./proc.js";

/**
 * A process that leaves the command's process group (`setsid`, a double-forking daemon) cannot be
 * killed through the group. It still carries the environment it inherited, so every command gets a
 * marker variable and, when it ends, every process whose /proc/<pid>/environ holds that marker is
 * killed. Limits (without the sandbox's pid namespace): a process that re-executes itself with an
 * emptied environment (`env -i`), or runs as another user, is not found. Linux only; elsewhere a no-op.
 *
 * Every process is read, whatever its pid: reading only those newer than the command by the kernel's
 * pid counter let daemons outlive their command once the counter wrapped. It saved ~0.4 ms per command
 * on an idle machine, 6-12 ms on a loaded one (~100 processes, load 5 on 2 cores: killMarked timed).
 */
export const RUN_MARKER = "TRM_RUN";

function marked(pid: number, inner: Buffer, first: Buffer): boolean {
  const env = environOf(pid);
  return env !== null && (env.indexOf(inner) !== -1 || env.subarray(0, first.length).equals(first));
}

/**
 * Kills every process (but this one) whose environment contains `name=value`; repeated a few times,
 * since a daemon may fork while it is being killed. Returns how many were killed.
 */
export function killMarked(name: string, value: string): number {
  // Entries are NUL-separated: the leading NUL (or the start) keeps FOO_TRM_RUN=... from matching.
  const needles = [Buffer.from(`\0${name}=${value}\0`), Buffer.from(`${name}=${value}\0`)];
  // Distinct processes: SIGKILL lands asynchronously, so a dying one can still be read in the next round.
  const killed = new Set<number>();
  for (let round = 0; round < 5; round++) {
    let found = 0;
    const pids = allPids();
    if (pids === null) return killed.size;
    for (const pid of pids) {
      if (pid <= 1 || pid === process.pid) continue;
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
