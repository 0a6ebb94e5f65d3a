import type { Diagnostic } from "../../evaluate/types.js";

/**
 * A fixer of the repository's own toolchain (ruff, autoflake, gofmt, goimports, cargo clippy): what it
 * can fix among the last evaluation's problems (pure), and the command that fixes it in a scratch copy.
 * Finding the tool, the copy, the run and turning its changes into a candidate are common (run.ts).
 */

export type ToolFixerName = "eslint" | "ruff" | "ruff-format" | "autoflake" | "gofmt" | "goimports" | "clippy";

/** A session command as it ran at the last evaluation. */
export interface RanCommand {
  cmd: string;
  failed: boolean;
  output: string;
}

export interface FixInput {
  /** Only file, line, code, message and source are read. */
  diagnostics: Diagnostic[];
  commands: RanCommand[];
}

/** What a fixer would work on. */
export interface FixTarget {
  /** The reported problems it should remove (may be empty when only a command's failure shows it). */
  problems: Diagnostic[];
  /** Worktree-relative files to fix; null: every tracked file with one of the fixer's extensions. */
  files: string[] | null;
  /** The problem in words, for the suggestion and for "no fixer installed" ("unused import"). */
  what: string;
  /** Codes to ask the tool for (ruff's --select), when it filters by code. */
  codes?: string[];
  /** Options of the session's own command that the fix must share (cargo's --all-targets). */
  args?: string[];
}

export interface ToolCommand {
  /** The program and its arguments (never a shell string: each word is quoted by the runner). */
  argv: string[];
  env?: Record<string, string>;
  /** Directory to run in, relative to the scratch copy's root (default: the root). */
  cwd?: string;
}

export interface CommandContext {
  /** Where the tool was found. */
  bin: string;
  target: FixTarget;
  /** Worktree-relative files to fix, proven to stay inside the copy. */
  files: string[];
  /** Every tracked file (e.g. to find the nearest Cargo.toml). */
  tracked: string[];
  /** A directory outside the copy for build output (cargo's target dir), removed with it. */
  aside: string;
}

export interface ToolFixer {
  name: ToolFixerName;
  /** The executable looked up in the worktree's node_modules/.bin, its .venv/bin or venv/bin, then PATH. */
  tool: string;
  /** How people call the fix ("ruff check --fix"), for rationales and hints. */
  label: string;
  /** Names of the codes it fixes, for hints ("F401": "unused import"). */
  names?: Record<string, string>;
  /** Extensions of the files it rewrites (compared after the run when files is null). */
  extensions: string[];
  targets(input: FixInput): FixTarget | null;
  command(ctx: CommandContext): ToolCommand;
  /** The command that prints the tool's version, if it has one. */
  version(bin: string): string[] | null;
  /** Sets the copy up before the run (eslint links the worktree's node_modules into it). */
  prepare?(worktree: string, scratch: string): Promise<void>;
  /** Exit codes that mean "ran" (problems left over are not a failure). */
  okExit: number[];
  timeoutMs: number;
}

/** Worktree-relative files of `ds` (deduplicated, in order) that end with one of `exts`. */
export function filesOf(ds: Diagnostic[], exts: string[]): string[] {
  const out = new Set<string>();
  for (const d of ds) if (d.file && !d.file.startsWith("/") && !d.file.startsWith("../") && exts.some((e) => d.file!.endsWith(e))) out.add(d.file);
  return [...out];
}

/**
 * Files with one of `exts` that a formatter's check names: a path alone on its line (gofmt -l), the
 * header of gofmt -d, "Would reformat: path" and "--> path:line:col" (ruff format --check, old and new).
 */
export function filesNamedIn(output: string, exts: string[]): string[] {
  const out = new Set<string>();
  for (const raw of output.split("\n")) {
    const line = raw
      .trim()
      .replace(/^(Would reformat|would reformat):\s*/, "")
      .replace(/^diff (-u )?(\S+)\.orig .*$/, "$2")
      .replace(/^--> (\S+):\d+:\d+$/, "$1");
    if (!/^[\w./@+-]+$/.test(line) || line.startsWith("/") || line.split("/").includes("..")) continue;
    if (exts.some((e) => line.endsWith(e))) out.add(line.replace(/^\.\//, ""));
  }
  return [...out];
}

/** The failed session commands whose command line calls `tool` (a word of it). */
export function failedCalls(commands: RanCommand[], tool: RegExp): RanCommand[] {
  return commands.filter((c) => c.failed && tool.test(c.cmd));
}
