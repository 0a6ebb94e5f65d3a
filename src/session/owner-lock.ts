import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { mkdir, readFile, rm, rmdir, stat } from "node:fs/promises";
import path from "node:path";
import { processAlive, startTime } from "../exec/proc.js";
import { UserError } from "../util/errors.js";

/**
 * One live owner per session across server processes. The owner's pid and its /proc start time are in
 * `<common>/trm/run/<id>.owner`; a lock whose pid is gone, or now belongs to another process (start
 * time differs), is taken over. A second live server gets an error at once rather than waiting: the
 * owner keeps the session for its whole life (its client may submit again at any time), so a short
 * wait would almost always end in the same error, only later.
 */
export interface OwnerInfo {
  pid: number;
  start: string;
  since: string;
}

const held = new Set<string>();
let exitHook = false;

export function ownerFile(commonDir: string, id: string): string {
  return path.join(commonDir, "trm", "run", `${id}.owner`);
}

/** Present while a start is in progress; with a dead owner it marks a start that was killed half-way. */
export function startingFile(commonDir: string, id: string): string {
  return path.join(commonDir, "trm", "run", `${id}.starting`);
}

function parse(text: string | null): OwnerInfo | null {
  if (!text) return null;
  const [pid, start, since] = text.trim().split(" ");
  const n = Number(pid);
  return Number.isInteger(n) && n > 0 && start ? { pid: n, start, since: since ?? "" } : null;
}

export function readOwner(file: string): OwnerInfo | null {
  try {
    return parse(readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}

export function ownerAlive(o: OwnerInfo): boolean {
  return processAlive(o.pid, o.start);
}

/** The live owner of a session when it is another process, else null. */
export function liveOtherOwner(commonDir: string, id: string): OwnerInfo | null {
  const o = readOwner(ownerFile(commonDir, id));
  return o && o.pid !== process.pid && ownerAlive(o) ? o : null;
}

const me = (): OwnerInfo | null => {
  const st = startTime(process.pid);
  return st === null ? null : { pid: process.pid, start: st, since: new Date().toISOString() };
};

/**
 * Takes the session for this process, or throws a UserError naming the live owner. False when nothing
 * could be claimed (no /proc, not Linux: ownership cannot be verified there).
 */
export async function acquireOwner(commonDir: string, id: string): Promise<boolean> {
  const file = ownerFile(commonDir, id);
  if (held.has(file)) return true;
  const self = me();
  if (!self) return false;
  await mkdir(path.dirname(file), { recursive: true });
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const fd = openSync(file, "wx");
      try {
        writeSync(fd, `${self.pid} ${self.start} ${self.since}\n`);
      } finally {
        closeSync(fd);
      }
      hold(file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const text = await readFile(file, "utf8").catch(() => null);
    const o = parse(text);
    if (o && o.pid === self.pid && o.start === self.start) {
      hold(file);
      return true;
    }
    if (o && ownerAlive(o)) {
      throw new UserError(
        `Session ${id} is in use by process ${o.pid} (a code-trm server, owner since ${o.since || "an unknown time"}).`,
        `Stop that server (kill ${o.pid}) or wait until it ends the session; a dead owner's lock is taken over automatically.`,
      );
    }
    // A dead owner (or a half-written lock): removed under a guard, and only if it is still that one,
    // so two servers taking over at once cannot remove each other's fresh lock.
    await withGuard(`${file}.takeover`, async () => {
      const again = await readFile(file, "utf8").catch(() => null);
      if (again === text) await rm(file, { force: true });
    });
  }
  throw new UserError(`Could not take session ${id}: its owner lock keeps changing.`, "Another process is starting and stopping on this session; retry.");
}

async function withGuard(dir: string, fn: () => Promise<void>): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await mkdir(dir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      // A guard is held for a few file operations; an old one was left by a process killed inside it.
      const st = await stat(dir).catch(() => null);
      if (st && Date.now() - st.mtimeMs > 5000) await rmdir(dir).catch(() => undefined);
      if (i > 200) throw new UserError(`The lock guard ${dir} stays in place.`, "Remove it if no code-trm server is running, then retry.");
      await new Promise((r) => setTimeout(r, 10 + Math.random() * 20));
    }
  }
  try {
    await fn();
  } finally {
    await rmdir(dir).catch(() => undefined);
  }
}

function hold(file: string): void {
  held.add(file);
  if (!exitHook) {
    exitHook = true;
    process.on("exit", releaseAllOwners);
  }
}

/** Gives the session up (end, discard, failed start). */
export async function releaseOwner(commonDir: string, id: string): Promise<void> {
  const file = ownerFile(commonDir, id);
  if (!held.delete(file)) return;
  const o = readOwner(file);
  if (o && o.pid === process.pid) await rm(file, { force: true });
}

export function releaseAllOwners(): void {
  for (const file of held) {
    const o = readOwner(file);
    if (o && o.pid === process.pid) rmSync(file, { force: true });
  }
  held.clear();
}
