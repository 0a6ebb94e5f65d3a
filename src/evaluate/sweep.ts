import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * A process that leaves the command's process group (`setsid`, a double-forking daemon) cannot be
 * killed through the group. It still carries the environment it inherited, so every command gets a
 * marker variable and, when it ends, every process whose /proc/<pid>/environ holds that marker is
 * killed. Limits (without the sandbox's pid namespace): a process that re-executes itself with an
 * emptied environment (`env -i`), or runs as another user, is not found. Linux only; elsewhere a no-op.
 *
 * Reading every process's environment cost 0.56 ms per command here (CPU profile of 300 runCommand
 * calls, 67 processes; a step runs three), more on a busier machine. Right after a command, only
 * processes it could have started are read: the kernel hands out pids in increasing order until it
 * wraps at pid_max, so everything the command started has a pid
 * between the command's own and the last one handed out, unless the counter wrapped meanwhile (processes
 * above the last predate the command: left from before a wrap). The narrow sweep is used only when a wrap
 * cannot have gone unseen: the last pid handed out is still above the command's, pid_max is at least
 * Linux's default, /proc is this process's own pid namespace, the command ran for less than a second,
 * and too few processes and threads were created since its start (the kernel's count, /proc/stat) to go
 * round: coming back past the command's pid takes one creation per pid not in use, and at pid_max 32768
 * short-lived threads do that in half a second, so time alone does not rule it out. Otherwise all are read.
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

let pidMax: number | undefined;
/**
 * pid_max when /proc is this process's pid namespace (its pids are the ones the kernel counts here) and
 * pid_max is not lowered; else 0.
 */
function narrowPidMax(): number {
  if (pidMax === undefined) {
    let self: string | null = null;
    try {
      self = readlinkSync("/proc/self");
    } catch {
      // No /proc.
    }
    const max = procNumber("/proc/sys/kernel/pid_max") ?? 0;
    pidMax = self === String(process.pid) && max >= 32_768 ? max : 0;
  }
  return pidMax;
}

/** The last pid the kernel handed out in this pid namespace, or null. */
export function lastPid(): number | null {
  return narrowPidMax() > 0 ? procNumber("/proc/sys/kernel/ns_last_pid") : null;
}

/** The number `re` captures in a /proc file, or null (not Linux, not readable, not found). */
function procMatch(file: string, re: RegExp): number | null {
  try {
    const m = re.exec(readFileSync(file, "latin1"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** Processes and threads created since boot (/proc/stat "processes"), or null. */
const created = (): number | null => procMatch("/proc/stat", /^processes (\d+)$/m);

/** Tasks (threads) alive now: pids the counter skips without creating anything (/proc/loadavg). */
const tasks = (): number | null => procMatch("/proc/loadavg", /^\S+ \S+ \S+ \d+\/(\d+) /);

/** Taken just before a command is spawned: what sweepRange compares against afterwards. */
export interface SweepStart {
  at: number;
  created: number | null;
  tasks: number | null;
}

export function sweepStart(): SweepStart {
  const narrow = narrowPidMax() > 0;
  return { at: performance.now(), created: narrow ? created() : null, tasks: narrow ? tasks() : null };
}

/** The pids a process started by a command can have, if the narrow sweep is safe (see above); else null. */
export function sweepRange(since: { pid: number } & SweepStart): { from: number; to: number } | null {
  const max = narrowPidMax();
  if (max === 0 || performance.now() - since.at >= 1000 || since.created === null || since.tasks === null) return null;
  // Going round takes a creation for every pid (RESERVED_PIDS = 300 up to pid_max) not in use; those in
  // use at the start are at most the tasks then, plus a few held by groups and sessions: half is margin.
  const now = created();
  if (now === null || now - since.created + since.tasks >= (max - 300) / 2) return null;
  const last = lastPid();
  return last !== null && last >= since.pid ? { from: since.pid, to: last } : null;
}

/** Checked one by one below this many: a missing pid costs one failed open, less than listing /proc. */
const PROBE_MAX = 256;

/** The pids to read: the range's own when it is short, else every process /proc lists (within it, if any). */
function candidates(range: { from: number; to: number } | null): number[] | null {
  if (range && range.to - range.from < PROBE_MAX) return Array.from({ length: range.to - range.from + 1 }, (_, i) => range.from + i);
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return null;
  }
  const pids = names.map(Number).filter((pid) => Number.isInteger(pid));
  return range ? pids.filter((pid) => pid >= range.from && pid <= range.to) : pids;
}

/**
 * Kills every process (but this one) whose environment contains `name=value`; repeated a few times,
 * since a daemon may fork while it is being killed. Returns how many were killed. `since`: the
 * command's first process (its pid, and sweepStart() taken before its spawn): only processes it could
 * have started are read, when that is safe (sweepRange).
 */
export function killMarked(name: string, value: string, since?: { pid: number } & SweepStart): number {
  // Entries are NUL-separated: the leading NUL (or the start) keeps FOO_TRM_RUN=... from matching.
  const needles = [Buffer.from(`\0${name}=${value}\0`), Buffer.from(`${name}=${value}\0`)];
  // Distinct processes: SIGKILL lands asynchronously, so a dying one can still be read in the next round.
  const killed = new Set<number>();
  for (let round = 0; round < 5; round++) {
    let found = 0;
    const pids = candidates(since ? sweepRange(since) : null);
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
