import { execFileSync } from "node:child_process";
import { readlinkSync, realpathSync } from "node:fs";

/** The shells started ahead (src/evaluate/warm-shells.ts) that wait in `dir`; other tests' servers have their own. */
export function waitingShellsIn(dir: string): number[] {
  let out = "";
  try {
    out = execFileSync("pgrep", ["-f", "__trm_c_"], { encoding: "utf8" });
  } catch {
    return []; // none at all (pgrep exits 1)
  }
  const real = realpathSync(dir);
  return out
    .trim()
    .split("\n")
    .map(Number)
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`) === real;
      } catch {
        return false;
      }
    });
}
