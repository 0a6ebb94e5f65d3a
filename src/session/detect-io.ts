/**
 * The I/O edge of command detection: a RepoView over a checkout's folder (the files the session's
 * baseline is made of) and the server's PATH. Files are read bounded, non-blocking and never through a link (a repository's
 * package.json may be a FIFO or a link to /dev/zero); programs are looked up, never run.
 */
import { accessSync, constants, lstatSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { isInside } from "../util/paths.js";
import { readPrefix } from "../util/read-prefix.js";
import type { RepoView } from "./detect-commands.js";

const MAX_READ = 256 * 1024;
const MAX_LIST = 2000;

/** Whether `program` is an executable file in one of PATH's folders. */
export function onPath(program: string, pathVar = process.env.PATH ?? ""): boolean {
  if (!/^[\w.+@-]+$/.test(program)) return false;
  return pathVar.split(path.delimiter).some((dir) => {
    if (!dir) return false;
    const file = path.join(dir, program);
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * Whether a folder on the way to `p` (and `p` itself when `self`) is a symbolic link: a repository's
 * `tests` or `src` linked to the user's home is not the repository's. The checkout's own node_modules
 * may be a link (a second worktree's install): only whether its programs exist is asked there.
 */
function throughLink(root: string, p: string, self: boolean): boolean {
  const parts = path.relative(root, p).split(path.sep).filter(Boolean);
  let cur = root;
  for (let i = 0; i < (self ? parts.length : parts.length - 1); i++) {
    cur = path.join(cur, parts[i]!);
    if (i === 0 && parts[0] === "node_modules") continue;
    try {
      if (lstatSync(cur).isSymbolicLink()) return true;
    } catch {
      return false;
    }
  }
  return false;
}

/** A RepoView of the folder `root`: paths outside it, or reached through a link, read as absent. */
export function folderView(root: string, pathVar?: string): RepoView {
  const at = (rel: string, self = false) => {
    const p = path.resolve(root, rel);
    if (p !== path.resolve(root) && !isInside(root, p)) return undefined;
    return throughLink(root, p, self) ? undefined : p;
  };
  const onPathCache = new Map<string, boolean>();
  return {
    read: (rel, max = MAX_READ) => {
      const p = at(rel);
      // Not through a link: a package.json linked to a file outside the repository is not the repository's.
      return p ? readPrefix(p, max, "refuse") : "";
    },
    has: (rel) => {
      const p = at(rel);
      if (!p) return false;
      try {
        lstatSync(p);
        return true;
      } catch {
        return false;
      }
    },
    list: (rel) => {
      const p = at(rel, true);
      if (!p) return [];
      try {
        return readdirSync(p).slice(0, MAX_LIST);
      } catch {
        return [];
      }
    },
    onPath: (program) => {
      if (!onPathCache.has(program)) onPathCache.set(program, onPath(program, pathVar));
      return onPathCache.get(program)!;
    },
  };
}
