import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import path from "node:path";
import { type RunResult, runCommand } from "../../exec/run.js";
import type { Sandbox } from "../../exec/sandbox.js";
import { errorMessage } from "../../util/errors.js";
import { firstLine, shellQuote, truncate } from "../../util/text.js";
import type { FileRewrite } from "../types.js";
import { copyTracked, escapingLinks, escapingPaths, rewritesOf } from "./scratch.js";
import type { FixTarget, ToolFixer } from "./types.js";

/**
 * Runs one fixer of the repository's toolchain in a scratch copy of the session's tracked files
 * (never in the worktree, never through a link out of the copy), with the evaluation's runner
 * (process group killed on timeout or cancel, output capped), and reads back what it changed.
 */

export interface ToolRunOptions {
  worktree: string;
  /** The session's sandbox: the fixer is the repository's own code (its node_modules, its .venv). */
  sandbox?: Sandbox;
  /** Directory that receives the scratch copy (removed afterwards). */
  scratchParent: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  onTick?: (elapsedMs: number) => void;
}

export interface ToolRun {
  rewrites: FileRewrite[];
  notes: string[];
  version?: string;
  /** What the fixer printed on stdout (eslint's JSON report), and where its copy was (real path, now removed). */
  stdout: string;
  scratch: string;
  ms: number;
  copyMs: number;
}

/** Files handed to one run at most (a command line has a length limit too). */
export const MAX_FIX_FILES = 500;

const commandLine = (argv: string[]) => argv.map(shellQuote).join(" ");

function failure(label: string, run: RunResult, timeoutMs: number, okExit: number[]): string | null {
  if (run.cancelled) return `${label} was cancelled.`;
  if (run.timedOut) return `${label} did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped.`;
  if (run.spawnError) return `${label} could not start: ${truncate(run.spawnError, 300)}`;
  if (run.exitCode === null || !okExit.includes(run.exitCode)) {
    return `${label} failed (exit ${run.exitCode ?? run.signal}): ${truncate(run.output.stderr.trim() || run.output.all.trim(), 300)}`;
  }
  return null;
}

export async function runToolFixer(fixer: ToolFixer, bin: string, target: FixTarget, opts: ToolRunOptions): Promise<ToolRun> {
  const started = Date.now();
  const result: ToolRun = { rewrites: [], notes: [], stdout: "", scratch: "", ms: 0, copyMs: 0 };
  const done = () => ({ ...result, ms: Date.now() - started });
  const timeoutMs = opts.timeoutMs ?? fixer.timeoutMs;
  await mkdir(opts.scratchParent, { recursive: true });
  const root = await mkdtemp(path.join(opts.scratchParent, `${fixer.name}-`));
  const scratch = path.join(root, "w");
  const aside = path.join(root, "aside");
  try {
    const t0 = Date.now();
    const tracked = await copyTracked(opts.worktree, scratch, fixer.label);
    await fixer.prepare?.(opts.worktree, scratch);
    result.copyMs = Date.now() - t0;
    result.scratch = await realpath(scratch);
    const trackedSet = new Set(tracked);
    let files = (target.files ?? tracked.filter((f) => fixer.extensions.some((e) => f.endsWith(e)))).filter((f) => trackedSet.has(f));
    if (files.length === 0) {
      result.notes.push(
        `${fixer.label}: none of the files it would fix (${truncate((target.files ?? []).join(", "), 200) || fixer.extensions.join(" ")}) is tracked in the session.`,
      );
      return done();
    }
    if (files.length > MAX_FIX_FILES) {
      result.notes.push(`${fixer.label} ran on the first ${MAX_FIX_FILES} of ${files.length} files.`);
      files = files.slice(0, MAX_FIX_FILES);
    }
    const escaping = await escapingPaths(scratch, files);
    for (const f of escaping) result.notes.push(`${f} is a symbolic link to a file outside the repository: ${fixer.label} was not run on it.`);
    files = files.filter((f) => !escaping.includes(f));
    if (files.length === 0) return done();
    // A fixer that rewrites a whole tree (cargo) may reach files through any link: none may lead out.
    if (target.files === null) {
      const out = await escapingLinks(scratch, tracked);
      if (out.length) {
        result.notes.push(`${fixer.label} was not run: ${truncate(out.join(", "), 200)} link(s) to outside the repository, which it could write through.`);
        return done();
      }
    }

    const cmd = fixer.command({ bin, target, files, tracked, aside });
    // Credentials are left out by the runner itself (commandEnv), as for every session command.
    const env = cmd.env;
    const cwd = path.join(scratch, cmd.cwd ?? "");
    // Confined like the session's own commands: only the scratch copy is writable, no network.
    const sandbox = opts.sandbox ? { ...opts.sandbox, writable: [...new Set([cwd, result.scratch!])], network: false } : undefined;
    const versionArgv = fixer.version(bin);
    if (versionArgv) {
      const v = await runCommand(commandLine(versionArgv), { cwd, timeoutMs: 10_000, signal: opts.signal, env, sandbox });
      if (v.exitCode === 0) result.version = truncate(firstLine(v.output.stdout.trim() || v.output.all.trim()), 120);
    }
    const run = await runCommand(commandLine(cmd.argv), { cwd, timeoutMs, signal: opts.signal, onTick: opts.onTick, tickMs: 5000, env, sandbox });
    const failed = failure(fixer.label, run, timeoutMs, fixer.okExit);
    if (failed) {
      result.notes.push(failed);
      return done();
    }
    result.stdout = run.output.stdout;
    result.rewrites = await rewritesOf(opts.worktree, scratch, files);
    if (result.rewrites.length === 0) result.notes.push(`${fixer.label}${result.version ? ` (${result.version})` : ""} changed nothing for: ${target.what}.`);
  } catch (err) {
    result.notes.push(`${fixer.label} could not run: ${truncate(errorMessage(err), 300)}`);
  } finally {
    // Links inside are removed as links: rm never follows them.
    await rm(root, { recursive: true, force: true });
  }
  return done();
}
