/**
 * Which lines of the changed files ran, from the two coverage formats the field writes: Node's own V8
 * coverage (a NODE_V8_COVERAGE folder, one JSON per process, converted with v8-to-istanbul through the
 * source maps Node cached, so TypeScript lines are the .ts file's) and Istanbul's coverage-final.json
 * (Jest, Vitest's coverage providers). Files are read with readPrefix: the repository may be hostile (a
 * link to /dev/zero, a FIFO) and a source map may name any path.
 */
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isInside } from "../../util/paths.js";
import { readPrefix } from "../../util/read-prefix.js";

/** Repository-relative file → line → how often it ran (the most any process saw). */
export type LineHits = Map<string, Map<number, number>>;

interface IstanbulFile {
  statementMap: Record<string, { start: { line: number }; end: { line: number } }>;
  s: Record<string, number>;
}

const MAX_FILE = 20_000_000;
const MAX_JSON_FILES = 2000;
/**
 * What the V8 folder's files may hold in all, and one of them: each is read and parsed whole and at
 * once, and the command writes them (60 sparse files of 190 MB, nothing on disk, blocked the server for
 * five minutes). Real ones are a few MB per process, with the source maps Node cached.
 */
const MAX_V8_TOTAL = 400_000_000;
const MAX_V8_FILE = 150_000_000;
/**
 * How long turning the V8 reports into lines may take in all. v8-to-istanbul walks every line a range
 * spans, for each range, and the report chooses both (8,000 ranges over 40,000 lines, 500 KB, held the
 * server 25 s; a few MB, hours): ranges are applied a slice at a time, other calls going on between, and
 * past this the reports are not used.
 */
export const V8_CONVERT_MS = 30_000;
/** Line visits per slice of ranges (a range visits the lines it spans, in the script and in its original). */
const SLICE_WORK = 2_000_000;
/** The most lines a script may have: a range's own cost. */
const MAX_LINES = 1_000_000;

function add(hits: LineHits, file: string, line: number, count: number): void {
  let lines = hits.get(file);
  if (!lines) hits.set(file, (lines = new Map()));
  lines.set(line, Math.max(lines.get(line) ?? 0, count));
}

/** A statement longer than this counts on its first line only (a hostile report could span millions). */
const MAX_STATEMENT_LINES = 400;
/** Lines of one file given a count from inside a statement, in all: past it, first lines only. */
const MAX_SPANNED_LINES = 2_000_000;

/**
 * Adds an Istanbul file coverage: each line takes the count of the innermost statement that spans it, so
 * a line inside a multi-line expression (an argument, a property of a returned object, a chained call:
 * unjs/ufo 768210a and 47f4070) counts as its statement ran, where only the line a statement starts on
 * counted before, and an inner statement that did not run (a callback's body) is not hidden by the one
 * around it. Pure.
 */
export function addIstanbul(hits: LineHits, file: string, cov: IstanbulFile): void {
  const stmts: { start: number; end: number; n: number }[] = [];
  for (const [id, loc] of Object.entries(cov.statementMap ?? {})) {
    const n = cov.s?.[id];
    const start = loc?.start?.line;
    if (typeof n !== "number" || !Number.isInteger(start)) continue;
    const end = loc.end?.line;
    const long = !Number.isInteger(end) || end! < start! || end! - start! >= MAX_STATEMENT_LINES;
    stmts.push({ start: start!, end: long ? start! : end!, n });
  }
  // Outer statements first, so that inner ones (shorter spans) overwrite them.
  stmts.sort((a, b) => b.end - b.start - (a.end - a.start));
  const own = new Map<number, number>();
  // Lines a statement starts on: two starting on one line (`a(); b()`) count as the more run of the two.
  const started = new Set<number>();
  let spanned = 0;
  for (const st of stmts) {
    const last = spanned + (st.end - st.start) <= MAX_SPANNED_LINES ? st.end : st.start;
    spanned += last - st.start;
    for (let l = st.start + 1; l <= last; l++) if (!started.has(l)) own.set(l, st.n);
    own.set(st.start, started.has(st.start) ? Math.max(own.get(st.start)!, st.n) : st.n);
    started.add(st.start);
  }
  for (const [l, n] of own) add(hits, file, l, n);
}

/** The repository-relative path of an absolute one inside `root`, else null. */
const relIn = (root: string, abs: string): string | null => (isInside(root, abs) ? path.relative(root, abs).split(path.sep).join("/") : null);

/** Reads a coverage-final.json (paths absolute, as Jest and Vitest write them), keeping `wanted` files. */
export function readIstanbulJson(file: string, root: string, wanted: Set<string>): LineHits {
  const hits: LineHits = new Map();
  let data: Record<string, IstanbulFile>;
  try {
    data = JSON.parse(readPrefix(file, MAX_FILE)) as Record<string, IstanbulFile>;
  } catch {
    return hits;
  }
  for (const [abs, cov] of Object.entries(data ?? {})) {
    const rel = relIn(root, path.resolve(root, abs));
    if (rel && wanted.has(rel) && cov && typeof cov === "object") addIstanbul(hits, rel, cov);
  }
  return hits;
}

interface ScriptCoverage {
  url: string;
  functions: { functionName: string; ranges: { startOffset: number; endOffset: number; count: number }[]; isBlockCoverage: boolean }[];
}
interface SourceMapData {
  sources?: string[];
  sourceRoot?: string;
  sourcesContent?: (string | null)[];
  [k: string]: unknown;
}
interface CachedMap {
  lineLengths?: number[];
  data?: SourceMapData | null;
}

/** The map a script names in its last `sourceMappingURL` comment: inline, or a file beside it inside root. */
function mapOf(source: string, scriptPath: string, root: string): SourceMapData | null {
  const m = /\/\/[#@] sourceMappingURL=(\S+)\s*$/.exec(source.slice(-200_000));
  if (!m) return null;
  try {
    const url = m[1]!;
    const inline = /^data:application\/json(?:;charset=[\w-]+)?;base64,(.+)$/.exec(url);
    if (inline) return JSON.parse(Buffer.from(inline[1]!, "base64").toString("utf8")) as SourceMapData;
    if (/^[a-z]+:/i.test(url)) return null;
    const file = path.resolve(path.dirname(scriptPath), decodeURIComponent(url));
    return isInside(root, file) ? (JSON.parse(readPrefix(file, MAX_FILE)) as SourceMapData) : null;
  } catch {
    return null;
  }
}

/** The one original file a single-source map points at, resolved as v8-to-istanbul resolves it. */
function mappedSource(map: SourceMapData, scriptPath: string): string | null {
  if (!Array.isArray(map.sources) || map.sources.length !== 1) return null;
  const src = map.sources[0]!;
  if (src.startsWith("file://")) return fileURLToPath(src);
  return path.resolve(path.dirname(scriptPath), map.sourceRoot ?? "", src);
}

/**
 * Reads a NODE_V8_COVERAGE folder: every script of every process that is, or maps to, a `wanted` file
 * of `root` is converted to line counts. Scripts of node_modules and maps of several sources (bundles)
 * are left out.
 */
export async function readV8Dir(
  dir: string,
  root: string,
  wanted: Set<string>,
  budgetMs = V8_CONVERT_MS,
): Promise<{ hits: LineHits; projectScripts: number; cut: boolean }> {
  const hits: LineHits = new Map();
  let projectScripts = 0;
  const { default: v8toIstanbul } = await import("v8-to-istanbul");
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith(".json"))
      .slice(0, MAX_JSON_FILES);
  } catch {
    return { hits, projectScripts, cut: false };
  }
  const clock = new Turns(performance.now() + budgetMs);
  // Past the budget nothing of the reports is used: lines of the scripts not converted would read as unrun.
  const cut = () => ({ hits: new Map() as LineHits, projectScripts, cut: true });
  let budget = MAX_V8_TOTAL;
  for (const name of names) {
    let report: { result?: ScriptCoverage[]; "source-map-cache"?: Record<string, CachedMap> };
    try {
      const size = statSync(path.join(dir, name)).size;
      if (size > MAX_V8_FILE || size > budget) continue;
      budget -= size;
      report = JSON.parse(readPrefix(path.join(dir, name), size)) as typeof report;
    } catch {
      continue;
    }
    // Other calls of the server go on between two processes' files.
    await new Promise((r) => setImmediate(r));
    for (const script of Array.isArray(report.result) ? report.result : []) {
      if (!(await clock.turn())) return cut();
      if (!script?.url?.startsWith("file://")) continue;
      let scriptPath: string;
      try {
        scriptPath = fileURLToPath(script.url);
      } catch {
        continue;
      }
      if (!relIn(root, scriptPath) || /\/node_modules\//.test(scriptPath)) continue;
      projectScripts++;
      const cached = report["source-map-cache"]?.[script.url];
      // The executed text: its line shape from the cache (a loader's output is not on disk), else the file.
      const source = cached?.lineLengths ? lineShape(cached.lineLengths) : readPrefix(scriptPath, MAX_FILE);
      if (source === "" || lineCount(source) > MAX_LINES) continue;
      const map = cached?.data ?? (cached ? null : mapOf(source, scriptPath, root));
      const original = map ? mappedSource(map, scriptPath) : scriptPath;
      const rel = original ? relIn(root, original) : null;
      if (!rel || !wanted.has(rel)) continue;
      try {
        const originalSource = readPrefix(path.join(root, rel), MAX_FILE);
        const sources = map ? { source, originalSource, sourceMap: { sourcemap: { ...map, sourcesContent: [originalSource] } } } : { source };
        const conv = v8toIstanbul(scriptPath, 0, sources as Parameters<typeof v8toIstanbul>[2]);
        await conv.load();
        const done = await applyInSlices(conv, script.functions, lineCount(source) + (map ? lineCount(originalSource) : 0), clock);
        if (done) for (const cov of Object.values(conv.toIstanbul())) addIstanbul(hits, rel, cov as unknown as IstanbulFile);
        conv.destroy();
        if (!done) return cut();
      } catch {
        // A map that does not fit its script: that script's lines stay unknown, not "not run".
      }
    }
  }
  return { hits, projectScripts, cut: false };
}

/** A deadline, and turns of the event loop given to the server's other calls every 20 ms of work. */
class Turns {
  private since = performance.now();
  constructor(private readonly deadline: number) {}
  /** False once the deadline has passed. */
  async turn(): Promise<boolean> {
    const now = performance.now();
    if (now > this.deadline) return false;
    if (now - this.since > 20) {
      await new Promise((r) => setImmediate(r));
      this.since = performance.now();
    }
    return true;
  }
}

/**
 * Applies a script's ranges a slice at a time (each range costs the lines it spans, up to `lines`), as
 * one call would: in order, a function's first range alone making it a function. False when the deadline
 * passed first.
 */
async function applyInSlices(
  conv: { applyCoverage(blocks: ScriptCoverage["functions"]): void },
  functions: unknown,
  lines: number,
  clock: Turns,
): Promise<boolean> {
  const size = Math.max(1, Math.floor(SLICE_WORK / Math.max(1, lines)));
  for (const fn of Array.isArray(functions) ? (functions as ScriptCoverage["functions"]) : []) {
    const ranges = Array.isArray(fn?.ranges) ? fn.ranges : [];
    for (let i = 0; i < ranges.length; i += size) {
      conv.applyCoverage([{ ...fn, functionName: i === 0 ? fn.functionName : "", ranges: ranges.slice(i, i + size) }]);
      if (!(await clock.turn())) return false;
    }
  }
  return true;
}

/** The text of Node's cached line lengths (`.` for each character), or "" when no file has them. Pure. */
function lineShape(lengths: unknown): string {
  if (!Array.isArray(lengths) || lengths.length > MAX_LINES) return "";
  let total = 0;
  for (const n of lengths) {
    if (!Number.isInteger(n) || n < 0) return "";
    total += n + 1;
    if (total > MAX_FILE) return "";
  }
  return lengths.map((n: number) => ".".repeat(n)).join("\n");
}

function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i >= 0 && n <= MAX_LINES; i = text.indexOf("\n", i + 1)) n++;
  return n;
}
