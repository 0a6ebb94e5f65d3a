import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";

/**
 * The shells started ahead (src/evaluate/warm-shells.ts) that wait in `dir`, found through /proc (no
 * pgrep needed); other tests' servers have their own. A folder removed since still counts: a shell left
 * in it shows it as "<path> (deleted)".
 */
export function waitingShellsIn(dir: string): number[] {
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
      if (readFileSync(`/proc/${pid}/cmdline`, "latin1").includes("__trm_c_") && [real, `${real} (deleted)`].includes(readlinkSync(`/proc/${pid}/cwd`))) pids.push(pid);
    } catch {
      // Gone meanwhile, or another user's.
    }
  }
  return pids;
}
