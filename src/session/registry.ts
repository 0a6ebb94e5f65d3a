import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/**
 * A small index from sessionId to repository, kept in the user's state directory, so that after a
 * server restart a tool called with only a sessionId finds its repository. Git stays the source of
 * truth: a stale entry is harmless and is dropped when the session is not found there.
 */
function stateDir(): string {
  if (process.env.CODE_TRM_STATE_DIR) return process.env.CODE_TRM_STATE_DIR;
  const base = process.env.XDG_STATE_HOME || path.join(os.homedir(), ".local", "state");
  return path.join(base, "code-trm");
}

const file = () => path.join(stateDir(), "sessions.json");

async function readAll(): Promise<Record<string, string>> {
  try {
    return JSON.parse(await readFile(file(), "utf8")) as Record<string, string>;
  } catch {
    return {};
  }
}

async function writeAll(data: Record<string, string>): Promise<void> {
  await mkdir(stateDir(), { recursive: true });
  // Unique per write: two writes of this process at once must not share one temporary file.
  const tmp = `${file()}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(tmp, JSON.stringify(data, null, 1));
  await rename(tmp, file());
}

export async function registryGet(id: string): Promise<string | undefined> {
  return (await readAll())[id];
}

export async function registrySet(id: string, commonDir: string): Promise<void> {
  try {
    const all = await readAll();
    all[id] = commonDir;
    await writeAll(all);
  } catch (err) {
    // The index is a convenience; a read-only home must not break sessions.
    process.stderr.write(`code-trm: could not update the session index: ${(err as Error).message}\n`);
  }
}

export async function registryDelete(id: string): Promise<void> {
  try {
    const all = await readAll();
    if (!(id in all)) return;
    delete all[id];
    await writeAll(all);
  } catch {
    /* see registrySet */
  }
}
