/**
 * For the crash tests only: CODE_TRM_CRASH_AT=<point>[:<n>] makes the server stop the n-th time (default
 * 1st) it reaches that named point of a step, after writing the point's name to CODE_TRM_CRASH_FILE, and
 * wait there forever, so a test can kill it with SIGKILL exactly between two writes. Unset, a call costs
 * one comparison.
 */
import { writeFileSync } from "node:fs";

const [AT, NTH] = (process.env.CODE_TRM_CRASH_AT ?? "").split(":");
const FILE = process.env.CODE_TRM_CRASH_FILE;
let hits = 0;

export async function crashPoint(name: string): Promise<void> {
  if (!AT || AT !== name || ++hits < Number(NTH ?? 1)) return;
  if (FILE) writeFileSync(FILE, name);
  await new Promise(() => undefined);
}
