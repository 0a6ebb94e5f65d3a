/**
 * Loose objects and trees written in-process, the way git writes them: content hashed first, an object
 * already present is not written again, and a new one is written under a temporary name and renamed into
 * place, so a process killed mid-write leaves a stray temporary file, never a truncated object under its
 * final name (isomorphic-git writes the final path directly, and then never rewrites an object that
 * exists: one crash would corrupt the object for good). Reading goes through object-read.ts (loose objects
 * in-process, packed ones from git); trees are immutable, so the entries of a tree read once are kept by id.
 */
import { createHash, randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { lstat, mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { constants, deflateSync, type ZlibOptions } from "node:zlib";
import { readObjectRaw } from "./object-read.js";

export type ObjectType = "blob" | "tree" | "commit" | "tag";

export interface TreeEntry {
  /** As git writes it: "100644", "100755", "120000", "160000" or "40000". */
  mode: string;
  name: string;
  oid: string;
}

export const TREE_MODE = "40000";
export const GITLINK_MODE = "160000";

/** The id git gives `content` as a blob. */
export function blobId(content: Buffer): string {
  return createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex");
}

/** Hashes and, unless it exists, writes one loose object; returns its id. */
export async function writeObject(commonDir: string, type: ObjectType, content: Buffer): Promise<string> {
  const writes: Promise<void>[] = [];
  const oid = putObject(commonDir, type, content, writes);
  await writes[0];
  return oid;
}

/**
 * The id of one object, hashed at once; its write joins `writes`, which the caller awaits before
 * anything that refers to the object is written (the trees on a path, a note's blob, tree and commit
 * are then written side by side rather than one file after the other). `background`: the write goes to
 * libuv's thread pool instead of being done in place, so that it overlaps what the caller does next
 * (the candidate's blob and trees are written while its commands run).
 */
export function putObject(commonDir: string, type: ObjectType, content: Buffer, writes: Promise<void>[], background = false): string {
  const body = Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]);
  const oid = createHash("sha1").update(body).digest("hex");
  const zlib = type === "tree" ? TREE_ZLIB : ZLIB;
  writes.push(storeObject(background ? IN_POOL : IN_PLACE, commonDir, oid, body, zlib));
  return oid;
}

/**
 * git's own level for loose objects (core.looseCompression unset: 1, best speed); zlib's default 6 took
 * a third longer. A tree is mostly object ids (random bytes) and, in a notes tree (an entry per step),
 * their hex names: Huffman coding alone keeps nearly all of level 1's saving there in half the time
 * (10,275 against 9,933 bytes, 119 against 261 µs for 200 entries, measured).
 */
const ZLIB = { level: 1 };
const TREE_ZLIB = { level: 1, strategy: constants.Z_HUFFMAN_ONLY };

/** The file operations a store needs, done in place (synchronous calls) or through libuv's thread pool. */
interface StoreIo {
  exists(file: string): boolean | Promise<boolean>;
  write(file: string, data: Buffer): void | Promise<void>;
  mkdir(dir: string): unknown;
  rename(from: string, to: string): void | Promise<void>;
  remove(file: string): void | Promise<void>;
}

/**
 * In place: a step writes about ten small objects, and each asynchronous call (lstat, open, write, close,
 * rename) is a thread-pool round trip of ~65 µs measured here, against a few µs for the call itself.
 */
const IN_PLACE: StoreIo = {
  exists: (f) => lstatSync(f, { throwIfNoEntry: false }) !== undefined,
  write: (f, d) => writeFileSync(f, d, { mode: 0o444 }),
  mkdir: (d) => mkdirSync(d, { recursive: true }),
  rename: renameSync,
  remove: (f) => rmSync(f, { force: true }),
};

/** Through the thread pool: the write overlaps what the caller does meanwhile (the candidate's commands). */
const IN_POOL: StoreIo = {
  exists: (f) =>
    lstat(f).then(
      () => true,
      () => false,
    ),
  write: (f, d) => writeFile(f, d, { mode: 0o444 }),
  mkdir: (d) => mkdir(d, { recursive: true }),
  rename,
  remove: (f) => rm(f, { force: true }),
};

/**
 * One loose object, as git writes it: skipped when present, else deflated, written whole under a
 * temporary name and renamed into place.
 */
async function storeObject(io: StoreIo, commonDir: string, oid: string, body: Buffer, zlib: ZlibOptions): Promise<void> {
  const dir = path.join(commonDir, "objects", oid.slice(0, 2));
  const file = path.join(dir, oid.slice(2));
  if (await io.exists(file)) return;
  const data = deflateSync(body, zlib);
  // git's own temporary-object prefix: `git gc` / `git prune` remove such leftovers after a crash.
  const tmp = path.join(dir, `tmp_obj_trm${randomBytes(6).toString("hex")}`);
  try {
    // The fan-out folder nearly always exists: made only when the write says it does not (git prune
    // removes empty ones).
    try {
      await io.write(tmp, data);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      await io.mkdir(dir);
      await io.write(tmp, data);
    }
    await io.rename(tmp, file);
  } catch (err) {
    await io.remove(tmp);
    throw err;
  }
}

/** git's order: names compared bytewise, a tree's name as if it ended with "/". */
function sortKey(e: TreeEntry): string {
  return e.mode === TREE_MODE ? `${e.name}/` : e.name;
}

/** Bytewise is code-unit order for ASCII; other names are compared as their UTF-8 bytes. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII includes the control characters
const ASCII = /^[\x00-\x7f]*$/;

/**
 * A tree object's bytes, written into one buffer: a notes tree holds an entry per step, so per-entry
 * buffers and their sort keys made each note cost more the longer the history (0.76 ms at 10 notes,
 * 1.51 ms at 200, measured).
 */
export function encodeTree(entries: TreeEntry[]): Buffer {
  const keyed = entries.map((e) => ({ e, k: sortKey(e) }));
  if (keyed.every(({ k }) => ASCII.test(k))) keyed.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  else keyed.sort((a, b) => Buffer.compare(Buffer.from(a.k, "utf8"), Buffer.from(b.k, "utf8")));
  let size = 0;
  for (const { e } of keyed) size += e.mode.length + 1 + Buffer.byteLength(e.name, "utf8") + 1 + 20;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const { e } of keyed) {
    at += out.write(`${e.mode} ${e.name}\0`, at, "utf8");
    at += out.write(e.oid, at, "hex");
  }
  return out;
}

export async function writeTreeObject(commonDir: string, entries: TreeEntry[]): Promise<string> {
  const writes: Promise<void>[] = [];
  const oid = putTreeObject(commonDir, entries, writes);
  await writes[0];
  return oid;
}

/** A tree's id at once, its write joining `writes` (see putObject). */
export function putTreeObject(commonDir: string, entries: TreeEntry[], writes: Promise<void>[], background = false): string {
  const oid = putObject(commonDir, "tree", encodeTree(entries), writes, background);
  // The next step starts from this tree: no need to read back what was just written.
  remember(oid, entries);
  return oid;
}

const treeCache = new Map<string, TreeEntry[]>();
const TREE_CACHE_MAX = 4096;
/** The entries of a tree (loose or packed). */
export async function readTreeEntries(commonDir: string, oid: string): Promise<TreeEntry[]> {
  const hit = treeCache.get(oid);
  if (hit) return hit;
  const o = await readObjectRaw(commonDir, oid);
  if (o.type !== "tree") throw new Error(`${oid} is a ${o.type}, not a tree`);
  const entries = decodeTree(o.content);
  remember(oid, entries);
  return entries;
}

/** A tree object's entries: `<mode> <name>\0<20-byte id>` each; modes as git writes them ("40000" for a folder). */
export function decodeTree(body: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < body.length) {
    const sp = body.indexOf(32, at);
    const nul = body.indexOf(0, sp + 1);
    if (sp < 0 || nul < 0 || nul + 21 > body.length) throw new Error("a damaged tree object");
    const raw = body.toString("latin1", at, sp);
    // Old git wrote group-writable files as 100664, and some tools a folder as 040000: git reads both so.
    const mode = raw === "040000" ? TREE_MODE : raw === "100664" ? "100644" : raw;
    entries.push({ mode, name: body.toString("utf8", sp + 1, nul), oid: body.toString("hex", nul + 1, nul + 21) });
    at = nul + 21;
  }
  return entries;
}

/** A blob's bytes (loose or packed). */
export async function readBlobBytes(commonDir: string, oid: string): Promise<Buffer> {
  const o = await readObjectRaw(commonDir, oid);
  if (o.type !== "blob") throw new Error(`${oid} is a ${o.type}, not a blob`);
  return o.content;
}

function remember(oid: string, entries: TreeEntry[]): void {
  if (treeCache.size >= TREE_CACHE_MAX) treeCache.delete(treeCache.keys().next().value!);
  treeCache.set(oid, entries);
}

/** A change to one path of a tree: the new entry, or null to remove the path. */
export interface PathChange {
  path: string;
  entry: { mode: string; oid: string } | null;
}

/** Thrown when a change cannot be made without git's own rules (e.g. a path inside a submodule). */
export class NeedsGit extends Error {}

/**
 * Writes the tree that is `base` with `changes` applied; only the trees on the changed paths are read
 * and written. A directory left empty disappears, as in git. Throws NeedsGit for a path inside a
 * submodule (gitlink) or a path that is both a file and a folder in `changes`.
 */
export async function writeTreeWith(commonDir: string, base: string | null, changes: PathChange[]): Promise<string> {
  const writes: Promise<void>[] = [];
  const oid = await putTreeWith(commonDir, base, changes, writes);
  // Every tree is on disk before its id is answered (a commit may then refer to it).
  await Promise.all(writes);
  return oid;
}

/**
 * {@link writeTreeWith} whose writes join `writes`, done in the thread pool with `background` (see
 * putObject): the caller awaits them before anything that refers to the tree is written.
 */
export async function putTreeWith(commonDir: string, base: string | null, changes: PathChange[], writes: Promise<void>[], background = false): Promise<string> {
  const split = changes.map((c) => ({ parts: c.path.split("/"), entry: c.entry }));
  const mine: Promise<void>[] = [];
  const oid =
    (await rewrite(commonDir, base, split, mine, background).catch(async (err: unknown) => {
      await Promise.allSettled(mine);
      throw err;
    })) ?? putTreeObject(commonDir, [], mine, background);
  writes.push(...mine);
  return oid;
}

async function rewrite(
  commonDir: string,
  base: string | null,
  changes: { parts: string[]; entry: PathChange["entry"] }[],
  writes: Promise<void>[],
  background: boolean,
): Promise<string | null> {
  const entries = new Map((base ? await readTreeEntries(commonDir, base) : []).map((e) => [e.name, e]));
  const direct = new Map<string, PathChange["entry"]>();
  const nested = new Map<string, { parts: string[]; entry: PathChange["entry"] }[]>();
  for (const c of changes) {
    const [name, ...rest] = c.parts;
    if (!name) throw new NeedsGit("empty path component");
    if (rest.length === 0) direct.set(name, c.entry);
    else nested.set(name, [...(nested.get(name) ?? []), { parts: rest, entry: c.entry }]);
  }
  for (const [name, sub] of nested) {
    const existing = entries.get(name);
    if (existing?.mode === GITLINK_MODE) throw new NeedsGit(`inside the submodule ${name}`);
    if (direct.get(name)) {
      // A folder that became a file: its paths are all removals, and the file replaces it below.
      if (sub.every((c) => c.entry === null)) continue;
      throw new NeedsGit(`${name} is both a file and a folder`);
    }
    direct.delete(name);
    const oid = await rewrite(commonDir, existing?.mode === TREE_MODE ? existing.oid : null, sub, writes, background);
    if (oid) entries.set(name, { mode: TREE_MODE, name, oid });
    else entries.delete(name);
  }
  for (const [name, entry] of direct) {
    if (entries.get(name)?.mode === GITLINK_MODE) throw new NeedsGit(`the submodule ${name}`);
    if (entry) entries.set(name, { ...entry, name });
    else entries.delete(name);
  }
  if (entries.size === 0) return null;
  return putTreeObject(commonDir, [...entries.values()], writes, background);
}

/** The entry at `relPath` in tree `root`, or null (read through the cache). */
export async function entryAt(commonDir: string, root: string, relPath: string): Promise<TreeEntry | null> {
  let tree = root;
  const parts = relPath.split("/");
  for (let i = 0; i < parts.length; i++) {
    const e = (await readTreeEntries(commonDir, tree)).find((x) => x.name === parts[i]);
    if (!e) return null;
    if (i === parts.length - 1) return e;
    if (e.mode !== TREE_MODE) return e.mode === GITLINK_MODE ? e : null;
    tree = e.oid;
  }
  return null;
}

/**
 * The paths whose entry differs between trees `a` and `b` (added, removed, changed content or mode),
 * as `git diff --name-only --no-renames a b` lists them; only subtrees that differ are read.
 */
export async function diffPaths(commonDir: string, a: string | null, b: string | null, prefix = ""): Promise<string[]> {
  if (a === b) return [];
  const left = new Map((a ? await readTreeEntries(commonDir, a) : []).map((e) => [e.name, e]));
  const right = new Map((b ? await readTreeEntries(commonDir, b) : []).map((e) => [e.name, e]));
  const out: string[] = [];
  for (const name of [...new Set([...left.keys(), ...right.keys()])].sort()) {
    const l = left.get(name);
    const r = right.get(name);
    if (l && r && l.mode === r.mode && l.oid === r.oid) continue;
    const lTree = l?.mode === TREE_MODE ? l.oid : null;
    const rTree = r?.mode === TREE_MODE ? r.oid : null;
    if (lTree || rTree) out.push(...(await diffPaths(commonDir, lTree, rTree, `${prefix}${name}/`)));
    if ((l && l.mode !== TREE_MODE) || (r && r.mode !== TREE_MODE)) out.push(`${prefix}${name}`);
  }
  return out.sort();
}
