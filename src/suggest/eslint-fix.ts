import { existsSync, readFileSync } from "node:fs";
import { lstat, realpath, symlink } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { Diagnostic } from "../evaluate/types.js";
import type { Sandbox } from "../exec/sandbox.js";
import { normalizeRelPath } from "../util/paths.js";
import { runToolFixer } from "./fixers/run.js";
import type { ToolFixer } from "./fixers/types.js";
import type { FileRewrite } from "./types.js";

/**
 * `eslint --fix` for the files the last lint reported, run in a scratch copy of the session's tracked
 * files so the session worktree is never written. The scratch copy sits next to the worktrees (inside
 * the common git directory) so that Node resolves the same node_modules from it as from the worktree.
 */

export interface EslintFixOptions {
  worktree: string;
  /** The session's sandbox (eslint and its plugins are the repository's own code). */
  sandbox?: Sandbox;
  /** Directory that receives the scratch copy (removed afterwards). */
  scratchParent: string;
  diagnostics: Diagnostic[];
  timeoutMs?: number;
  signal?: AbortSignal;
  onTick?: (elapsedMs: number) => void;
}

export interface EslintFixResult {
  rewrites: FileRewrite[];
  /** Problems eslint fixed, by rule, and how many it left. */
  fixed: { rule: string; count: number }[];
  remaining: number;
  notes: string[];
  eslintVersion?: string;
  ms: number;
  /** Time spent copying the tracked files into the scratch directory. */
  copyMs: number;
}

export const ESLINT_TIMEOUT_MS = 60_000;
const MAX_FILES = 50;

/** Where the worktree's eslint CLI is, if the repository has eslint installed. */
export function resolveEslint(worktree: string): { bin: string; version: string } | null {
  try {
    const req = createRequire(path.join(worktree, "package.json"));
    const pkgPath = req.resolve("eslint/package.json");
    const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as { version?: string; bin?: string | Record<string, string> };
    const rel = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.eslint;
    if (!rel) return null;
    const bin = path.resolve(path.dirname(pkgPath), rel);
    return existsSync(bin) ? { bin, version: pkg.version ?? "unknown" } : null;
  } catch {
    return null;
  }
}

/** Files of the worktree that ESLint reported problems in (relative, normalised, deduplicated). */
export function eslintFiles(diagnostics: Diagnostic[]): string[] {
  const out = new Set<string>();
  for (const d of diagnostics) {
    if (d.source !== "eslint" || !d.file || /(^|\/)node_modules\//.test(d.file)) continue;
    try {
      out.add(normalizeRelPath(d.file));
    } catch {
      // An absolute path outside the worktree, or a path into .git: not a file we may touch.
    }
  }
  return [...out].sort();
}

interface EslintJsonResult {
  filePath: string;
  messages: { ruleId: string | null; severity: number }[];
}

function parseJsonReport(stdout: string): EslintJsonResult[] | null {
  const at = stdout.indexOf("[");
  if (at < 0) return null;
  try {
    const v = JSON.parse(stdout.slice(at)) as unknown;
    return Array.isArray(v) ? (v as EslintJsonResult[]) : null;
  } catch {
    return null;
  }
}

/** Fixed problems by rule: what the lint reported minus what eslint still reports after fixing. */
export function fixedByRule(
  before: Diagnostic[],
  after: EslintJsonResult[] | null,
  scratch: string,
  files: string[],
): { fixed: { rule: string; count: number }[]; remaining: number } {
  const count = new Map<string, number>();
  const wanted = new Set(files);
  for (const d of before)
    if (d.source === "eslint" && d.file && wanted.has(d.file)) count.set(d.code ?? "(no rule)", (count.get(d.code ?? "(no rule)") ?? 0) + 1);
  let remaining = 0;
  for (const r of after ?? []) {
    const rel = path.relative(scratch, r.filePath).split(path.sep).join("/");
    if (!wanted.has(rel)) continue;
    for (const m of r.messages) {
      remaining++;
      const k = m.ruleId ?? "(no rule)";
      if (count.has(k)) count.set(k, count.get(k)! - 1);
    }
  }
  const fixed = [...count.entries()]
    .filter(([, n]) => n > 0)
    .map(([rule, n]) => ({ rule, count: n }))
    .sort((a, b) => b.count - a.count || a.rule.localeCompare(b.rule));
  return { fixed, remaining };
}

/** ESLint as a fixer of the common interface; its CLI is run by the Node that runs the server. */
function eslintFixer(): ToolFixer {
  return {
    name: "eslint",
    tool: "eslint",
    label: "eslint --fix",
    extensions: [".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"],
    targets: () => null,
    // Paths come from the lint output, normalised and inside the worktree; "./" and "--" keep them operands.
    command: ({ bin, files }) => ({ argv: [process.execPath, bin, "--fix", "-f", "json", "--", ...files.map((f) => `./${f}`)] }),
    version: () => null,
    // Dependencies installed in the worktree itself (setupCmd, linkPaths) are not tracked: link them.
    // (A node_modules that is tracked, e.g. a committed symlink, was copied with the rest.)
    async prepare(worktree, scratch) {
      const nm = path.join(worktree, "node_modules");
      const scratchNm = path.join(scratch, "node_modules");
      if (existsSync(nm) && !(await lstat(scratchNm).catch(() => null))) await symlink(await realpath(nm), scratchNm);
    },
    // ESLint exits 1 when problems remain (expected here) and 2 when it could not run.
    okExit: [0, 1],
    timeoutMs: ESLINT_TIMEOUT_MS,
  };
}

export async function eslintFixes(opts: EslintFixOptions): Promise<EslintFixResult> {
  const started = Date.now();
  const result: EslintFixResult = { rewrites: [], fixed: [], remaining: 0, notes: [], ms: 0, copyMs: 0 };
  const done = () => ({ ...result, ms: Date.now() - started });
  let files = eslintFiles(opts.diagnostics).filter((f) => existsSync(path.join(opts.worktree, f)));
  if (files.length === 0) return done();
  if (files.length > MAX_FILES) {
    result.notes.push(`ESLint reported problems in ${files.length} files; eslint --fix ran on the first ${MAX_FILES}.`);
    files = files.slice(0, MAX_FILES);
  }
  const eslint = resolveEslint(opts.worktree);
  if (!eslint) {
    result.notes.push(
      'ESLint problems were reported but eslint is not resolvable from the worktree (no node_modules/eslint): no eslint --fix. Start the session with setupCmd or linkPaths: ["node_modules"].',
    );
    return done();
  }
  result.eslintVersion = eslint.version;
  // The copy sits next to the worktrees (inside the common git directory), so Node resolves the same
  // node_modules from it; ESLint writes with writeFile, so files linked out of the copy are left out.
  const run = await runToolFixer(eslintFixer(), eslint.bin, { problems: [], files, what: "ESLint problems" }, opts);
  result.notes.push(...run.notes.filter((n) => !n.startsWith("eslint --fix changed nothing")));
  result.rewrites = run.rewrites;
  result.copyMs = run.copyMs;
  if (run.scratch && run.stdout) {
    const counts = fixedByRule(opts.diagnostics, parseJsonReport(run.stdout), run.scratch, files);
    result.fixed = counts.fixed;
    result.remaining = counts.remaining;
  }
  return done();
}
