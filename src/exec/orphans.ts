import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { removeFile } from "../util/remove-file.js";
import { startTime } from "./proc.js";
import { killMarked, RUN_MARKER } from "./sweep.js";

/**
 * A server killed in the middle of a step cannot stop the command it was running: that process group
 * lives on. Each command's group is therefore recorded in a file while it runs, and whoever next
 * operates on the session kills what is still there. The process is identified by its pid AND its
 * start time (proc.ts), so a pid reused by an unrelated process is never killed.
 */

// The record files are written, read and removed in place (synchronous calls): a few per command and
// per operation, each an asynchronous thread-pool round trip of ~65 µs otherwise (measured here).
/**
 * Written whole beside the record, then renamed over it: the record is read (by the command, a later server)
 * while it is rewritten with the pid, and a truncated one read in between was empty, its marker lost (CI,
 * run.test.ts). The temporary name starts with a dot, so reapRecordedAll never takes it for a sibling.
 */
function writeRecord(file: string, text: string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, text);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(tmp, text);
  }
  renameSync(tmp, file);
}

/**
 * Before the command is spawned: its run marker (sweep.ts), which every process it starts inherits. A
 * server killed between the spawn and the pid's record left a command no later server could find (CI's
 * crash test: the orphan outlived the next server); the marker finds it.
 */
export function recordMarker(file: string, marker: string): void {
  writeRecord(file, `0 - ${marker}\n`);
}

export async function recordGroup(file: string, pid: number, marker = "-"): Promise<void> {
  const st = startTime(pid);
  if (st === null) return; // no /proc (not Linux): nothing can be verified later, so nothing is recorded
  writeRecord(file, `${pid} ${st} ${marker}\n`);
}

export async function forgetGroup(file: string): Promise<void> {
  removeFile(file);
}

/**
 * Kills the groups recorded in `file` and in its siblings (`file.1`, ...: commands that ran at the same
 * time; `file.<pool worktree>[.1]`: the candidates of a batch); returns true if one was killed.
 */
export async function reapRecordedAll(file: string): Promise<boolean> {
  const dir = path.dirname(file);
  const base = path.basename(file);
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    // No run folder yet: nothing was recorded.
  }
  let killed = await reapRecorded(file);
  for (const n of names) if (n.startsWith(`${base}.`) && /^[\w.-]+$/.test(n.slice(base.length + 1))) killed = (await reapRecorded(path.join(dir, n))) || killed;
  return killed;
}

/** Kills a recorded group that is still the same process; returns true if one was killed. */
export async function reapRecorded(file: string): Promise<boolean> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return false;
  }
  removeFile(file);
  const [pidText, st, marker] = text.trim().split(" ");
  const pid = Number(pidText);
  // The marker first: it also finds what left the group, and a command whose pid was never recorded.
  const marked = marker && marker !== "-" && /^[0-9a-f]{8,64}$/.test(marker) ? killMarked(RUN_MARKER, marker) > 0 : false;
  if (!Number.isInteger(pid) || pid <= 1 || startTime(pid) !== st) return marked;
  try {
    process.kill(-pid, "SIGKILL");
    return true;
  } catch {
    return marked;
  }
}

/** True while the group recorded in `file` is still running (a live command of some server). */
export function recordedAlive(file: string): number | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const [pidText, st] = text.trim().split(" ");
  const pid = Number(pidText);
  return Number.isInteger(pid) && pid > 1 && startTime(pid) === st ? pid : null;
}
