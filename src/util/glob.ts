/**
 * A small glob matcher for repository-relative paths (`protectTests`). node's path.matchesGlob is
 * experimental before node 22 and absent before 20.17 (we support 20.5), and the few shapes people
 * write for test folders need no library: `*`, `?`, `**`, `{a,b}`. As in .gitignore, a pattern without
 * a slash matches a name at any depth, and a pattern that matches a folder covers everything in it.
 * Matching is by segments with memoisation, so it stays polynomial on any input.
 */

const MAX_EXPANSIONS = 32;

export function matchesAnyGlob(file: string, globs: string[]): string | undefined {
  return globs.find((g) => matchesGlob(file, g));
}

export function matchesGlob(file: string, glob: string): boolean {
  const segs = file.split("/").filter((s) => s !== "" && s !== ".");
  for (const alt of expandBraces(glob.trim())) {
    let pat = alt.replace(/^\.\//, "").replace(/\/+$/, "");
    if (pat === "") continue;
    if (!pat.includes("/")) pat = `**/${pat}`;
    const ps = pat.split("/").filter((s) => s !== "");
    // A match of any leading part of the path: a folder pattern covers its files.
    for (let n = 1; n <= segs.length; n++) if (matchSegments(ps, segs.slice(0, n))) return true;
  }
  return false;
}

/** The whole path against the whole pattern: no any-depth names, no folder covering its contents. */
export function matchesGlobExactly(file: string, glob: string): boolean {
  const segs = file.split("/").filter((s) => s !== "" && s !== ".");
  return expandBraces(glob.trim()).some((alt) =>
    matchSegments(
      alt
        .replace(/^\.\//, "")
        .split("/")
        .filter((s) => s !== ""),
      segs,
    ),
  );
}

function matchSegments(ps: string[], ss: string[]): boolean {
  const memo = new Map<number, boolean>();
  const go = (i: number, j: number): boolean => {
    const key = i * (ss.length + 1) + j;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    let r: boolean;
    if (i === ps.length) r = j === ss.length;
    else if (ps[i] === "**") r = go(i + 1, j) || (j < ss.length && go(i, j + 1));
    else r = j < ss.length && matchName(ps[i]!, ss[j]!) && go(i + 1, j + 1);
    memo.set(key, r);
    return r;
  };
  return go(0, 0);
}

/** `*` and `?` within one name (iterative, with one backtrack point: linear-ish, no regex). */
function matchName(p: string, s: string): boolean {
  let pi = 0;
  let si = 0;
  let star = -1;
  let mark = 0;
  while (si < s.length) {
    if (pi < p.length && (p[pi] === "?" || p[pi] === s[si])) {
      pi++;
      si++;
    } else if (pi < p.length && p[pi] === "*") {
      star = pi++;
      mark = si;
    } else if (star >= 0) {
      pi = star + 1;
      si = ++mark;
    } else return false;
  }
  while (pi < p.length && p[pi] === "*") pi++;
  return pi === p.length;
}

function expandBraces(p: string): string[] {
  const out: string[] = [];
  const stack = [p];
  while (stack.length > 0 && out.length < MAX_EXPANSIONS) {
    const cur = stack.pop()!;
    const m = /\{([^{}]*)\}/.exec(cur);
    if (!m) {
      out.push(cur);
      continue;
    }
    for (const opt of m[1]!.split(",").reverse()) stack.push(cur.slice(0, m.index) + opt + cur.slice(m.index + m[0].length));
  }
  return out;
}
