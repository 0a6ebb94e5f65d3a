import { existsSync, readFileSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readFile, realpath, rm, symlink } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { runCommand } from "../evaluate/run.js";
import type { Diagnostic } from "../evaluate/types.js";
import { errorMessage } from "../util/errors.js";
import { normalizeRelPath } from "../util/paths.js";
import { shellQuote, truncate } from "../util/text.js";
import { copyTracked, escapingPaths, secretlessEnv } from "./fixers/scratch.js";
import type { FileRewrite } from "./types.js";

/**
 * `eslint --fix` for the files the last lint reported, run in a scratch copy of the session's tracked
 * files so the session worktree is never written. The scratch copy sits next to the worktrees (inside
 * the common git directory) so that Node resolves the same node_modules from it as from the worktree.
 */

export interface EslintFixOptions {
  worktree: string;
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
export function fixedByRule(before: Diagnostic[], after: EslintJsonResult[] | null, scratch: string, files: string[]): { fixed: { rule: string; count: number }[]; remaining: number } {
  const count = new Map<string, number>();
  const wanted = new Set(files);
  for (const d of before) if (d.source === "eslint" && d.file && wanted.has(d.file)) count.set(d.code ?? "(no rule)", (count.get(d.code ?? "(no rule)") ?? 0) + 1);
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
  const fixed = [...count.entries()].filter(([, n]) => n > 0).map(([rule, n]) => ({ rule, count: n })).sort((a, b) => b.count - a.count || a.rule.localeCompare(b.rule));
  return { fixed, remaining };
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
    result.notes.push("ESLint problems were reported but eslint is not resolvable from the worktree (no node_modules/eslint): no eslint --fix. Start the session with setupCmd or linkPaths: [\"node_modules\"].");
    return done();
  }
  result.eslintVersion = eslint.version;

  await mkdir(opts.scratchParent, { recursive: true });
  const scratch = await mkdtemp(path.join(opts.scratchParent, "eslint-"));
  try {
    const t0 = Date.now();
    await copyTracked(opts.worktree, scratch);
    // Dependencies installed in the worktree itself (setupCmd, linkPaths) are not tracked: link them.
    const nm = path.join(opts.worktree, "node_modules");
    // (A node_modules that is tracked, e.g. a committed symlink, was copied with the rest.)
    const scratchNm = path.join(scratch, "node_modules");
    if (existsSync(nm) && !(await lstat(scratchNm).catch(() => null))) await symlink(await realpath(nm), scratchNm);
    result.copyMs = Date.now() - t0;

    // ESLint writes its fixes with writeFile, which follows links: a file that is a link (copied as one)
    // to somewhere outside the scratch copy would be fixed in place there, so such files are left out.
    const escaping = await escapingPaths(scratch, files);
    for (const f of escaping) result.notes.push(`${f} is a symbolic link to a file outside the repository: eslint --fix was not run on it.`);
    const contained = files.filter((f) => !escaping.includes(f));
    if (contained.length === 0) return done();
    // Paths come from the lint output, normalised and inside the worktree; "./" and "--" keep them operands.
    const cmd = [process.execPath, eslint.bin, "--fix", "-f", "json", "--", ...contained.map((f) => `./${f}`)].map(shellQuote).join(" ");
    const run = await runCommand(cmd, { cwd: scratch, timeoutMs: opts.timeoutMs ?? ESLINT_TIMEOUT_MS, signal: opts.signal, onTick: opts.onTick, tickMs: 5000, env: secretlessEnv() });
    if (run.cancelled) {
      result.notes.push("eslint --fix was cancelled.");
      return done();
    }
    if (run.timedOut) {
      result.notes.push(`eslint --fix did not finish within ${Math.round((opts.timeoutMs ?? ESLINT_TIMEOUT_MS) / 1000)} s and was stopped.`);
      return done();
    }
    // ESLint exits 1 when problems remain (expected here) and 2 when it could not run.
    if (run.exitCode !== 0 && run.exitCode !== 1) {
      result.notes.push(`eslint --fix failed (exit ${run.exitCode ?? run.signal}): ${truncate(run.output.stderr.trim() || run.output.all.trim(), 300)}`);
      return done();
    }
    for (const f of contained) {
      const [before, after] = await Promise.all([readFile(path.join(opts.worktree, f), "utf8"), readFile(path.join(scratch, f), "utf8").catch(() => null)]);
      if (after !== null && after !== before) result.rewrites.push({ path: f, before, after });
    }
    const counts = fixedByRule(opts.diagnostics, parseJsonReport(run.output.stdout), await realpath(scratch), files);
    result.fixed = counts.fixed;
    result.remaining = counts.remaining;
  } catch (err) {
    result.notes.push(`eslint --fix could not run: ${truncate(errorMessage(err), 300)}`);
  } finally {
    // Links inside are removed as links: rm never follows them into node_modules.
    await rm(scratch, { recursive: true, force: true });
  }
  return done();
}
