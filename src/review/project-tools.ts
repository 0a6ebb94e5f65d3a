import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { symlink } from "node:fs/promises";
import path from "node:path";
import { parseDiagnostics } from "../evaluate/parsers/index.js";
import { runCommand } from "../evaluate/run.js";
import type { Diagnostic } from "../evaluate/types.js";
import { openRepo } from "../git/cli.js";
import { addWorktree, removeWorktree } from "../git/session-git.js";
import { shellQuote } from "../util/text.js";
import { fileKind } from "./lang.js";
import type { FileChange, ReviewComment } from "./types.js";

/**
 * The project's own tools on the changed lines, as reviewdog does: the repository's ESLint (with its
 * own configuration) and `tsc --noEmit` run on the head commit in a temporary detached worktree (the
 * user's checkout is never involved), and only diagnostics on added lines become comments, with the
 * tool's rule id. The tools come from the repository's node_modules (linked into the worktree, which
 * lacks ignored files); when they are not installed, a note says so and nothing runs.
 */

export interface ToolsResult {
  comments: ReviewComment[];
  notes: string[];
}

export interface ToolsOptions {
  timeoutSec?: number;
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
}

const ESLINT_CONFIGS = ["eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", "eslint.config.ts", ".eslintrc", ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.json", ".eslintrc.yml", ".eslintrc.yaml"];
const MAX_TOOL_COMMENTS = 100;

/** Diagnostics on added lines of the change, as review comments. */
export function toolComments(diags: Diagnostic[], files: FileChange[]): ReviewComment[] {
  const added = new Map(files.map((f) => [f.path, new Set(f.added)]));
  const out: ReviewComment[] = [];
  for (const d of diags) {
    if (!d.file || d.line === undefined || !added.get(d.file)?.has(d.line)) continue;
    const isTsc = d.source === "tsc";
    out.push({
      file: d.file,
      line: d.line,
      severity: isTsc ? (d.severity === "error" ? "critical" : "warning") : d.severity === "error" ? "warning" : "info",
      category: isTsc ? "type-safety" : "code-quality",
      rule: `${isTsc ? "tsc" : "eslint"}/${d.code ?? "error"}`,
      message: `${isTsc ? "tsc" : "ESLint"}: ${d.message}`,
    });
    if (out.length >= MAX_TOOL_COMMENTS) break;
  }
  return out;
}

export async function runProjectTools(repoPath: string, headSha: string, files: FileChange[], opts: ToolsOptions = {}): Promise<ToolsResult> {
  const repo = await openRepo(repoPath);
  const notes: string[] = [];
  const bin = (name: string): string => path.join(repo.top, "node_modules", ".bin", name);
  const hasEslint = existsSync(bin("eslint"));
  const hasTsc = existsSync(bin("tsc"));
  const lintable = files.filter((f) => f.status !== "deleted" && f.added.length > 0 && fileKind(f.path).isJsLike && !fileKind(f.path).isGenerated).map((f) => f.path);
  if (lintable.length === 0) return { comments: [], notes };
  if (!hasEslint && !hasTsc) {
    notes.push("The project's ESLint and tsc were not run: neither is installed in the repository (node_modules/.bin); run the package manager's install first.");
    return { comments: [], notes };
  }
  const wt = path.join(repo.commonDir, "trm", "review", `trm-review-${randomBytes(4).toString("hex")}-tools`);
  const diags: Diagnostic[] = [];
  try {
    opts.onProgress?.(`checking out head ${headSha.slice(0, 12)} for the project's tools`);
    await addWorktree(repo.top, wt, headSha, "review-tools");
    // Node and the tools resolve node_modules by walking up: link the checkout's into the worktree.
    if (!existsSync(path.join(wt, "node_modules"))) await symlink(path.join(repo.top, "node_modules"), path.join(wt, "node_modules"), "dir");
    const run = async (name: string, cmd: string): Promise<void> => {
      opts.onProgress?.(`running the project's ${name}`);
      const r = await runCommand(cmd, { cwd: wt, timeoutMs: (opts.timeoutSec ?? 300) * 1000, ...(opts.signal ? { signal: opts.signal } : {}) });
      if (r.timedOut) notes.push(`The project's ${name} did not finish within ${opts.timeoutSec ?? 300} s: its diagnostics are missing.`);
      else if (r.spawnError) notes.push(`The project's ${name} could not start: ${r.spawnError}.`);
      diags.push(...parseDiagnostics(`${r.output.stdout}\n${r.output.stderr}`, { cwd: wt }).filter((d) => d.source === (name === "ESLint" ? "eslint" : "tsc")));
    };
    // An ESLint configuration is code: one the reviewed change wrote (or a local plugin it touched)
    // would run the branch's code on this machine. tsc only reads JSON and type-checks.
    const touchesLintCode = files.some((f) => /(^|\/)(\.?eslint[^/]*|eslint[-_]?(rules|plugins?)\/.*)$/i.test(f.path) || /(^|\/)\.?eslintrc/i.test(f.oldPath ?? ""));
    if (!hasEslint) notes.push("ESLint is not installed in the repository (node_modules/.bin/eslint): not run.");
    else if (touchesLintCode) notes.push("ESLint was not run: this change modifies the ESLint configuration or a local ESLint plugin, which is code the branch would run on this machine.");
    else if (!ESLINT_CONFIGS.some((c) => existsSync(path.join(wt, c)))) notes.push("The repository has no ESLint configuration at its root: ESLint not run.");
    else await run("ESLint", `${shellQuote(bin("eslint"))} --format json -- ${lintable.map(shellQuote).join(" ")}`);
    if (!hasTsc) notes.push("TypeScript is not installed in the repository (node_modules/.bin/tsc): tsc not run.");
    else if (!existsSync(path.join(wt, "tsconfig.json"))) notes.push("The repository has no tsconfig.json at its root: tsc not run.");
    else await run("tsc", `${shellQuote(bin("tsc"))} --noEmit --pretty false -p tsconfig.json`);
  } finally {
    await removeWorktree(repo.top, wt).catch(() => undefined);
  }
  return { comments: toolComments(diags, files), notes };
}
