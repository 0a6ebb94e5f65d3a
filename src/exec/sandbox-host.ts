import { lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { isInside } from "../util/paths.js";
import { isRealDir, realOrSelf } from "./sandbox-git.js";

/** What of the machine the sandbox hides besides files (sandbox.ts): its unix sockets, its shared temporary folders. */

/** The paths of the unix sockets bound in this network namespace (`/proc/net/unix`, Linux). */
export function listeningSockets(table = readTable()): string[] {
  const out = new Set<string>();
  for (const line of table.split("\n").slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path: the path is the eighth field (abstract ones start with @).
    const p = line.trim().split(/\s+/).slice(7).join(" ");
    if (!p.startsWith("/")) continue;
    try {
      if (lstatSync(p).isSocket()) out.add(p);
    } catch {
      // Gone, or its folder unreadable: nothing to mask.
    }
  }
  return [...out];
}

function readTable(): string {
  try {
    return readFileSync("/proc/net/unix", "utf8");
  } catch {
    return "";
  }
}

/**
 * The server's TMPDIR where the other temporary folders do not hide it (`TMPDIR=/scratch/tmp`): what the
 * server and the user's other programs write there. Not one in the home (hidden already) or that holds it
 * or a folder on PATH.
 */
export function sharedTmpdir(home: string): string | null {
  const t = process.env.TMPDIR ? realOrSelf(path.resolve(process.env.TMPDIR)) : null;
  if (!t || t === "/" || !isRealDir(t) || (home && (isInside(t, home) || isInside(home, t)))) return null;
  const onPath = (process.env.PATH ?? "").split(path.delimiter).filter((e) => path.isAbsolute(e));
  return onPath.some((e) => isInside(t, realOrSelf(e))) ? null : t;
}
