/**
 * Which added lines of Go files ran, from the cover profile `go test -coverprofile` writes (runners/go.ts
 * places the flag). A profile names files by import path (`example.com/mod/pkg/file.go`): the changed
 * files' own names are worked out from their nearest go.mod, and only those names are looked up in the
 * profile, which the tests wrote (any path in it is just a string that matches a changed file or not).
 */
import path from "node:path";
import { readPrefix } from "../../util/read-prefix.js";
import type { LineHits } from "./line-hits.js";

/** `module example.com/x` of a go.mod's text (quoted or not), else null. Pure. */
export function modulePath(goMod: string): string | null {
  const m = /^\s*module\s+("([^"\n]+)"|`([^`\n]+)`|(\S+))/m.exec(goMod);
  return m ? (m[2] ?? m[3] ?? m[4] ?? null) : null;
}

/**
 * Each changed Go file's name in a cover profile: the module path of the nearest go.mod at or above its
 * folder (inside the checkout), then its path from that folder. Files of no module are left out.
 */
export function profileNames(cwd: string, files: string[]): Map<string, string> {
  const names = new Map<string, string>();
  const modules = new Map<string, string | null>();
  const moduleOf = (dir: string): { dir: string; path: string } | null => {
    for (let d = dir; ; d = path.posix.dirname(d)) {
      if (!modules.has(d)) modules.set(d, modulePath(readPrefix(path.join(cwd, d, "go.mod"), 100_000, "refuse")));
      const m = modules.get(d);
      if (m) return { dir: d, path: m };
      if (d === "." || d === "/" || d === "") return null;
    }
  };
  for (const file of files) {
    const mod = moduleOf(path.posix.dirname(file));
    if (!mod) continue;
    const rel = mod.dir === "." ? file : path.posix.relative(mod.dir, file);
    names.set(`${mod.path}/${rel}`, file);
  }
  return names;
}

/**
 * The lines of Go source that hold code: not blank, not only a comment, not only braces or brackets (a
 * profile's blocks span whole line ranges, a closing `}` and comments included). Pure.
 */
export function goCodeLines(text: string): Set<number> {
  const out = new Set<number>();
  let inBlock = false;
  text.split("\n").forEach((raw, i) => {
    let line = raw;
    let code = "";
    while (line.length > 0) {
      if (inBlock) {
        const end = line.indexOf("*/");
        if (end < 0) {
          line = "";
          break;
        }
        inBlock = false;
        line = line.slice(end + 2);
        continue;
      }
      // The first comment opener outside a string literal (strings are skipped whole).
      const m = /\/\/|\/\*|"(?:[^"\\]|\\.)*"|`[^`]*`|'(?:[^'\\]|\\.)*'/.exec(line);
      if (!m) {
        code += line;
        break;
      }
      code += line.slice(0, m.index);
      if (m[0] === "//") break;
      if (m[0] === "/*") {
        inBlock = true;
        line = line.slice(m.index + 2);
        continue;
      }
      code += m[0];
      line = line.slice(m.index + m[0].length);
    }
    if (!/^[\s{}()[\],;]*$/.test(code)) out.add(i + 1);
  });
  return out;
}

export interface GoCoverage {
  hits: LineHits;
  /** Lines inside a block of statements, per file named in the profile. */
  executable: Map<string, Set<number>>;
}

/** The most lines a Go file is taken to have when its length is not given. */
const MAX_GO_LINES = 1_000_000;

/**
 * Reads a cover profile (`mode: set`, then `name.go:l1.c1,l2.c2 statements count` per block): a line
 * ran when a block of statements holding it ran, and has the most any of them ran. Only names in `names`
 * (profile name → repository path) are kept, and lines up to each file's length (`lineCounts`). The
 * tests wrote it: blocks are taken most-run first and each line is set once, so blocks that overlap
 * (20,000 over the same 100,000 lines held the server hours) cost what the lines do. Pure.
 */
export function parseGoProfile(text: string, names: Map<string, string>, lineCounts = new Map<string, number>()): GoCoverage {
  const out: GoCoverage = { hits: new Map(), executable: new Map() };
  const blocks = new Map<string, Array<{ start: number; end: number; count: number }>>();
  for (const m of text.matchAll(/^(.+\.go):(\d+)\.\d+,(\d+)\.\d+ (\d+) (\d+)$/gm)) {
    const file = names.get(m[1]!);
    const start = Number(m[2]);
    const end = Math.min(Number(m[3]), lineCounts.get(file ?? "") ?? MAX_GO_LINES);
    const count = Number(m[5]);
    // A block no statement is in, or one that is not a range of lines (of the file), says nothing.
    if (!file || Number(m[4]) === 0 || start < 1 || end < start || Number(m[3]) - start > 100_000) continue;
    let list = blocks.get(file);
    if (!list) blocks.set(file, (list = []));
    list.push({ start, end, count });
  }
  for (const [file, list] of blocks) {
    list.sort((a, b) => b.count - a.count);
    let top = 0;
    for (const b of list) top = Math.max(top, b.end);
    // next[l]: the first line at or after l not yet set (l itself until it is).
    const next = new Int32Array(top + 2);
    for (let i = 0; i < next.length; i++) next[i] = i;
    const unset = (l: number): number => {
      let r = l;
      while (next[r] !== r) r = next[r]!;
      while (next[l] !== r) [next[l], l] = [r, next[l]!];
      return r;
    };
    const lines = new Map<number, number>();
    const exec = new Set<number>();
    for (const b of list) {
      for (let l = unset(b.start); l <= b.end; l = unset(l + 1)) {
        lines.set(l, b.count);
        exec.add(l);
        next[l] = l + 1;
      }
    }
    out.hits.set(file, lines);
    out.executable.set(file, exec);
  }
  return out;
}
