/**
 * Reads a ref of the files backend in-process and synchronously: the loose file `<commonDir>/<ref>`,
 * else its line in `packed-refs`; a symbolic ref (`ref: ...`) is followed. Every operation of a session
 * checks its branch this way (a move by someone else is noticed), so it is one small read, not
 * isomorphic-git's resolveRef, whose open / stat / read / close of two files are each a round trip to
 * libuv's thread pool (~65 µs apiece measured on this machine, against ~2 µs for a synchronous call).
 * git replaces a loose ref by renaming a lock file over it, so a read sees the old or the new value,
 * never half of one. `packed-refs` is parsed again only when its inode, size or time changed.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileStamp } from "../util/file-stamp.js";

const OID = /^[0-9a-f]{40}$/;

interface Packed {
  stamp: string;
  refs: Map<string, string>;
}
const packedCache = new Map<string, Packed>();

function packedRefs(commonDir: string): Map<string, string> {
  const file = path.join(commonDir, "packed-refs");
  let stamp: string | null = null;
  try {
    stamp = fileStamp(file);
  } catch {
    // Unreadable: as if absent.
  }
  if (stamp === null) {
    packedCache.delete(commonDir);
    return new Map();
  }
  const hit = packedCache.get(commonDir);
  if (hit?.stamp === stamp) return hit.refs;
  const refs = new Map<string, string>();
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return refs;
  }
  for (const line of text.split("\n")) {
    // `# pack-refs with: ...` header, `^<oid>` peeled values of the tag above: not refs.
    if (line.length < 42 || line[0] === "#" || line[0] === "^") continue;
    const oid = line.slice(0, 40);
    if (OID.test(oid) && line[40] === " ") refs.set(line.slice(41).trimEnd(), oid);
  }
  packedCache.set(commonDir, { stamp, refs });
  return refs;
}

/** The object id `ref` (a full name such as refs/heads/x) points at, or null when it does not exist. */
export function readRefSync(commonDir: string, ref: string): string | null {
  let name = ref;
  for (let depth = 0; depth < 5; depth++) {
    // Only names below the git directory, as git's own ref names are (no `..`, not absolute).
    if (path.isAbsolute(name) || name.split("/").includes("..") || name.includes("\0")) return null;
    let text: string | null = null;
    try {
      text = readFileSync(path.join(commonDir, name), "utf8").trim();
    } catch (err) {
      // Missing, or a folder of refs (refs/heads/trm holding trm/<id>): then only packed-refs may have it.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR" && code !== "EISDIR") throw err;
    }
    if (text === null) return packedRefs(commonDir).get(name) ?? null;
    if (OID.test(text)) return text;
    if (!text.startsWith("ref: ")) return null;
    name = text.slice(5).trim();
  }
  return null;
}
