import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";

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
      if (
        [real, `${real} (deleted)`].includes(readlinkSync(`/proc/${pid}/cwd`)) &&
        (running === undefined || readFileSync(`/proc/${pid}/cmdline`, "latin1").includes(running))
      )
        pids.push(pid);
    } catch {
      // Gone meanwhile, or another user's.
    }
  }
  return pids;
}
