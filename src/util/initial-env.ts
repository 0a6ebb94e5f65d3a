import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { holdCredentials } from "./secrets.js";

/**
 * /proc/<pid>/environ shows the environment block the process was started with, not process.env:
 * deleting a variable in Node leaves its bytes there, readable by every process of the same user (a
 * build or test command walking up to its parent reads the server's GITHUB_TOKEN and prints it
 * reversed, past redaction). Node 20 cannot re-execute itself with a cleaner environment, and a
 * launcher that stays alive as the parent would keep the same bytes in its own block. So the server
 * overwrites the credential entries of its own block in place, through /proc/self/mem (a process may
 * always write its own memory), after moving the values into the in-memory store (secrets.ts).
 */

export interface ScrubOutcome {
  /** Credential variables moved out of process.env. */
  held: string[];
  /** Of those, the ones whose bytes were found and overwritten in the initial environment block. */
  scrubbed: string[];
  /** Why the block could not be changed (not Linux, no /proc, a kernel that refuses the write). */
  error?: string;
}

/** [env_start, env_end) of this process, from /proc/self/stat fields 50 and 51 (proc(5)). */
function envBlock(): [number, number] {
  const stat = readFileSync("/proc/self/stat", "latin1");
  // The command name (field 2) is in parentheses and may contain spaces or ')': fields start after the last one.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const start = Number(fields[50 - 3]);
  const end = Number(fields[51 - 3]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start <= 0 || end <= start || end - start > 64 * 1024 * 1024) {
    throw new Error("no environment block in /proc/self/stat");
  }
  return [start, end];
}

/** The offsets of the entries `NAME=value` (NUL-terminated, at an entry start) for the given names. */
export function credentialEntries(block: Buffer, names: ReadonlySet<string>): Array<{ name: string; offset: number; length: number }> {
  const out: Array<{ name: string; offset: number; length: number }> = [];
  let i = 0;
  while (i < block.length) {
    let end = block.indexOf(0, i);
    if (end < 0) end = block.length;
    const eq = block.indexOf(0x3d, i);
    if (eq > i && eq < end) {
      const name = block.toString("latin1", i, eq);
      if (names.has(name)) out.push({ name, offset: i, length: end - i });
    }
    i = end + 1;
  }
  return out;
}

/**
 * Holds the credentials (secrets.ts) and blanks them in this process's initial environment block.
 * Never throws: a failure is reported in `error`, the credentials are held all the same.
 */
export function holdAndScrubCredentials(): ScrubOutcome {
  const moved = holdCredentials();
  const outcome: ScrubOutcome = { held: [...moved.keys()], scrubbed: [] };
  if (moved.size === 0 || process.platform !== "linux") return outcome;
  let fd: number | undefined;
  try {
    const [start, end] = envBlock();
    fd = openSync("/proc/self/mem", "r+");
    const block = Buffer.alloc(end - start);
    // Positions as numbers: Node 20's writeSync fails with EIO on a bigint position here (user-space addresses fit in 2^53).
    readSync(fd, block, 0, block.length, start);
    for (const e of credentialEntries(block, new Set(moved.keys()))) {
      writeSync(fd, Buffer.alloc(e.length), 0, e.length, start + e.offset);
      outcome.scrubbed.push(e.name);
    }
  } catch (err) {
    outcome.error = (err as Error).message;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return outcome;
}
