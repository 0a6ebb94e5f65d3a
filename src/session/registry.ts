import { randomBytes } from "node:crypto";
import { link, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { startTime } from "../exec/proc.js";
import { stateDir } from "../util/state-dir.js";

/**
 * A small index from sessionId to repository, kept in the user's state directory, so that after a
 * server restart a tool called with only a sessionId finds its repository. Git stays the source of
 * truth: a stale entry is harmless and is dropped when the session is not found there.
 *
 * Several servers (and parallel starts in one) update it at once: every change is a read-modify-write
 * under a lock file (one chain per process, `sessions.json.lock` across processes), written to a
 * temporary file and renamed over the index, so no entry is lost and no reader sees half a file.
 */

const file = () => path.join(stateDir(), "sessions.json");

async function readAll(): Promise<Record<string, string>> {
  try {
    return JSON.parse(await readFile(file(), "utf8")) as Record<string, string>;
  } catch {
    return {};
  }
}

async function writeAll(data: Record<string, string>): Promise<void> {
  // Unique per write: two writes of this process at once must not share one temporary file.
  const tmp = `${file()}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(tmp, JSON.stringify(data, null, 1));
    await rename(tmp, file());
  } finally {
    await rm(tmp, { force: true });
  }
}

/** A lock older than this is left by a process that died holding it (a write takes milliseconds). */
const LOCK_STALE_MS = 10_000;

async function lockDead(lock: string): Promise<boolean> {
  const text = await readFile(lock, "utf8").catch(() => null);
  if (text === null) return false;
  const [pid, st] = text.trim().split(" ");
  const n = Number(pid);
  if (Number.isInteger(n) && n > 0 && st && startTime(n) !== st) return true;
  const s = await stat(lock).catch(() => null);
  return !!s && Date.now() - s.mtimeMs > LOCK_STALE_MS;
}

async function withFileLock<T>(fn: () => Promise<T>): Promise<T> {
  await mkdir(stateDir(), { recursive: true });
  const lock = `${file()}.lock`;
  for (let i = 0; ; i++) {
    try {
      const h = await open(lock, "wx");
      await h.writeFile(`${process.pid} ${startTime(process.pid) ?? ""}\n`);
      await h.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      if (await lockDead(lock)) await takeOver(lock);
      if (i > 1000) throw new Error(`the lock ${lock} is held for too long`);
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 15));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { force: true });
  }
}

/**
 * Moves a dead lock aside (a rename: of two processes finding it dead, one moves it). If what was moved
 * turns out to be a fresh lock taken in between, it is put back (link fails if yet another exists).
 */
async function takeOver(lock: string): Promise<void> {
  const aside = `${lock}.${randomBytes(4).toString("hex")}.dead`;
  if (
    !(await rename(lock, aside).then(
      () => true,
      () => false,
    ))
  )
    return;
  if (!(await lockDead(aside))) await link(aside, lock).catch(() => undefined);
  await rm(aside, { force: true });
  await cleanLeftovers();
}

/** Temporary files of writers killed between write and rename (kill -9 during a start). */
async function cleanLeftovers(): Promise<void> {
  for (const n of await readdir(stateDir()).catch(() => [] as string[])) {
    const m = /^sessions\.json\.(\d+)\.[0-9a-f]+\.tmp$/.exec(n);
    if (m && startTime(Number(m[1])) === null) await rm(path.join(stateDir(), n), { force: true });
  }
}

/** One change at a time in this process; the file lock orders it with other processes. */
let chain: Promise<unknown> = Promise.resolve();
let cleaned = false;
function update(change: (all: Record<string, string>) => boolean): Promise<void> {
  const next = chain.then(() =>
    withFileLock(async () => {
      if (!cleaned) {
        cleaned = true;
        await cleanLeftovers();
      }
      const all = await readAll();
      if (change(all)) await writeAll(all);
    }),
  );
  chain = next.catch(() => undefined);
  return next;
}

export async function registryGet(id: string): Promise<string | undefined> {
  return (await readAll())[id];
}

export async function registrySet(id: string, commonDir: string): Promise<void> {
  try {
    await update((all) => {
      if (all[id] === commonDir) return false;
      all[id] = commonDir;
      return true;
    });
  } catch (err) {
    // The index is a convenience; a read-only home must not break sessions.
    process.stderr.write(`code-trm: could not update the session index: ${(err as Error).message}\n`);
  }
}

export async function registryDelete(id: string): Promise<void> {
  try {
    await update((all) => {
      if (!(id in all)) return false;
      delete all[id];
      return true;
    });
  } catch {
    /* see registrySet */
  }
}
