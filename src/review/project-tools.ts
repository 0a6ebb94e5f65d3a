import { randomBytes } from "node:crypto";
import { existsSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { parseDiagnostics } from "../evaluate/parsers/index.js";
import type { Diagnostic } from "../evaluate/types.js";
import { runCommand } from "../exec/run.js";
import { INSTALL_BWRAP } from "../exec/sandbox.js";
import { gitOrNull, openRepo } from "../git/cli.js";
import { workRoot } from "../git/refs.js";
import { addWorktree, removeWorktree } from "../git/worktrees.js";
import { layerWorkspaces } from "../session/workspaces.js";
import { codeSpan, shellQuote } from "../util/text.js";
import { confinement } from "./confinement.js";
import { findRemote } from "./evaluate-pr.js";
import { fileKind } from "./lang.js";
import { type LintCode, lintCodeOfChange } from "./lint-code.js";
import type { PrRef } from "./pr-url.js";
import { declaredTools, type ToolStatus, toolsNote } from "./tool-notes.js";
import type { FileChange, ReviewComment } from "./types.js";

/**
 * The project's own tools on the changed lines, as reviewdog does: the repository's ESLint (with its
 * own configuration) and `tsc --noEmit` run on the head commit in a temporary detached worktree (the
 * user's checkout is never involved), and only diagnostics on added lines become comments, with the
 * tool's rule id. The tools come from the repository's node_modules (linked into the worktree, which
 * lacks ignored files); when they are not installed, a note says so and nothing runs. For a pull
 * request the head commit must already be in the local clone: it is never fetched behind the
 * user's back, the note says what to run instead. ESLint runs only code the base already had (its
 * configuration, what that imports, node_modules: lint-code.ts) unless the caller passes trustPr.
 */

export interface ToolsResult {
  comments: ReviewComment[];
  notes: string[];
}

export interface ToolsOptions {
  /** The commit the head is compared with (a pull request's base): ESLint runs only what it already had. */
  base?: string;
  /** Why there is no trustworthy base, when there is none. */
  baseUnknown?: string;
  /** Run ESLint even when the change modifies code it would run (the caller trusts the change). */
  trustPr?: boolean;
  timeoutSec?: number;
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
}

const ESLINT_CONFIGS = [
  "eslint.config.js",
  "eslint.config.mjs",
  "eslint.config.cjs",
  "eslint.config.ts",
  ".eslintrc",
  ".eslintrc.js",
  ".eslintrc.cjs",
  ".eslintrc.json",
  ".eslintrc.yml",
  ".eslintrc.yaml",
];
const MAX_TOOL_COMMENTS = 100;

/**
 * The worktree lives in the user's git directory, inside their checkout: ESLint 9, looking upwards
 * for a flat config the head lacks, would take the checkout's own and then ignore every file as
 * being under `.git/` (seen on unjs/destr). The head's configuration is therefore named: a flat one
 * with -c (no lookup), an .eslintrc with the eslintrc mode that ESLint 9 still offers.
 */
export function eslintCommand(eslint: string, config: string, files: string[]): string {
  const flat = config.startsWith("eslint.config.");
  return `${flat ? "" : "ESLINT_USE_FLAT_CONFIG=false "}${shellQuote(eslint)} ${flat ? `-c ${shellQuote(config)} ` : ""}--format json -- ${files.map(shellQuote).join(" ")}`;
}

/** The line of a tool's failure output that says what went wrong (Node warnings and banners skipped). */
export function why(output: string): string {
  const line = output
    .split("\n")
    .map((l) => l.trim())
    .find((l) => /[a-z]/i.test(l) && !/^(\(node:\d+\)|\(Use `node|Oops! Something went wrong|ESLint: \d)/.test(l));
  if (!line) return "no output.";
  const cut = line.length > 200 ? `${line.slice(0, 199)}…` : line;
  return /[.!?:]$/.test(cut) ? cut : `${cut}.`;
}

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
      // The tool quotes the PR's code (tsc a string literal's type): a code span, so none of it renders.
      message: `${isTsc ? "tsc" : "ESLint"}: ${codeSpan(d.message)}`,
    });
    if (out.length >= MAX_TOOL_COMMENTS) break;
  }
  return out;
}

const lintableFiles = (files: FileChange[]): string[] =>
  files.filter((f) => f.status !== "deleted" && f.added.length > 0 && fileKind(f.path).isJsLike && !fileKind(f.path).isGenerated).map((f) => f.path);

/**
 * Changed paths that are plain files of the worktree, reached without any symbolic link: a link
 * committed as `src/a.ts -> ~/.npmrc` would have the tools read a file of the user's and quote it in
 * a diagnostic that may end up posted on GitHub. Paths from the GitHub API are not trusted either.
 */
function plainFiles(wt: string, paths: string[]): Set<string> {
  const root = realpathSync(wt);
  return new Set(
    paths.filter((p) => {
      const abs = path.join(root, p);
      if (path.isAbsolute(p) || path.relative(root, abs).split(path.sep).includes("..")) return false;
      try {
        return realpathSync(abs) === abs && statSync(abs).isFile();
      } catch {
        return false;
      }
    }),
  );
}

/**
 * The project's tools on a pull request's head, when that commit is in the clone at `repoPath`. The
 * probe does not fetch (no lazy fetch of a partial clone either): a missing head gets a note with
 * the command that brings it.
 */
export async function runProjectToolsOnPr(
  repoPath: string,
  ref: PrRef,
  headSha: string | undefined,
  files: FileChange[],
  opts: ToolsOptions = {},
): Promise<ToolsResult> {
  const { top } = await openRepo(repoPath);
  if (lintableFiles(files).length === 0) return { comments: [], notes: [] };
  // The id comes from the API answer, which a host the model named may have written.
  if (!headSha || !/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(headSha))
    return { comments: [], notes: ["The project's ESLint and tsc were skipped: GitHub gave no valid head commit id for the pull request."] };
  if ((await gitOrNull(top, ["cat-file", "-e", `${headSha}^{commit}`], { env: { GIT_NO_LAZY_FETCH: "1" } })) === null) {
    const remote = await findRemote(top, ref).catch(() => `https://${ref.host}/${ref.owner}/${ref.repo}.git`);
    const arg = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : shellQuote(s));
    return {
      comments: [],
      notes: [
        `The project's ESLint and tsc were skipped: the pull request's head commit ${headSha.slice(0, 12)} is not in ${top}. Fetch it with \`git -C ${arg(top)} fetch ${arg(remote)} pull/${ref.number}/head\` and review again.`,
      ],
    };
  }
  return runProjectTools(top, headSha, files, opts);
}

export async function runProjectTools(repoPath: string, headSha: string, files: FileChange[], opts: ToolsOptions = {}): Promise<ToolsResult> {
  const repo = await openRepo(repoPath);
  const notes: string[] = [];
  const bin = (name: string): string => path.join(repo.top, "node_modules", ".bin", name);
  const hasEslint = existsSync(bin("eslint"));
  const hasTsc = existsSync(bin("tsc"));
  let lintable = lintableFiles(files);
  if (lintable.length === 0) return { comments: [], notes };
  const declared = declaredTools(
    await gitOrNull(repo.top, ["cat-file", "blob", `${headSha}:package.json`]),
    ((await gitOrNull(repo.top, ["ls-tree", "--name-only", headSha])) ?? "").split("\n"),
  );
  // ESLint is the project's linter unless it declares another one (oxlint, Biome, xo): then that one is named as not run.
  const eslintProject = declared.linter === undefined || declared.linter === "ESLint";
  const status: ToolStatus = { ran: [], notRun: [], notInstalled: false };
  const other = eslintProject ? undefined : `${declared.linter} (the project's linter; the review runs ESLint and tsc only)`;
  const tscMissing = `tsc (not installed in node_modules/.bin${declared.typeChecker ? `; the project type-checks with ${declared.typeChecker}, which the review does not run` : ""})`;
  if ((!hasEslint || !eslintProject) && !hasTsc) {
    if (eslintProject) status.notRun.push("ESLint (not installed in node_modules/.bin)");
    else status.notRun.push(other!);
    status.notRun.push(tscMissing);
    status.notInstalled = true;
    notes.push(toolsNote(status, declared));
    return { comments: [], notes };
  }
  const wt = path.join(workRoot(repo.commonDir), "review", `trm-review-${randomBytes(4).toString("hex")}-tools`);
  const diags: Diagnostic[] = [];
  let plain = new Set<string>();
  try {
    opts.onProgress?.(`checking out head ${headSha.slice(0, 12)} for the project's tools`);
    await addWorktree(repo.top, wt, headSha, "review-tools");
    plain = plainFiles(wt, lintable);
    if (plain.size < lintable.length)
      notes.push(
        `${lintable.length - plain.size} changed file(s) are not plain files of the head (symbolic links or outside it): the project's tools do not report on them.`,
      );
    lintable = lintable.filter((p) => plain.has(p));
    if (lintable.length === 0) return { comments: [], notes };
    // Node and the tools resolve node_modules by walking up: a layer of links to the checkout's, the head's
    // own workspace packages linked to its copies (session/workspaces.ts), as in a session's worktree.
    await layerWorkspaces(repo.top, wt);
    // ESLint runs its configuration, what that imports and its plugins: only when the change left all of
    // them as the base had them (lint-code.ts), or the caller trusts the change. Confined when bubblewrap
    // works here (confinement.ts: the session's sandbox, no network); tsc only reads JSON and type-checks.
    const sandbox = confinement(repo, wt);
    const run = async (name: string, cmd: string): Promise<void> => {
      opts.onProgress?.(`running the project's ${name}`);
      const r = await runCommand(cmd, {
        cwd: wt,
        timeoutMs: (opts.timeoutSec ?? 300) * 1000,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(sandbox ? { sandbox } : {}),
      });
      if (r.timedOut) notes.push(`The project's ${name} did not finish within ${opts.timeoutSec ?? 300} s: its diagnostics are missing.`);
      else if (r.spawnError) notes.push(`The project's ${name} could not start: ${r.spawnError}.`);
      const found = parseDiagnostics(`${r.output.stdout}\n${r.output.stderr}`, { cwd: wt }).filter((d) => d.source === (name === "ESLint" ? "eslint" : "tsc"));
      diags.push(...found);
      // ESLint exits 2 when it cannot lint (e.g. ESLint 9 on a head that only has an .eslintrc); tsc
      // fails without any file diagnostic on a broken tsconfig. Silence would read as "no findings".
      const broken = name === "ESLint" ? r.exitCode !== 0 && r.exitCode !== 1 : r.exitCode !== 0 && !found.some((d) => d.file);
      if (broken && !r.timedOut && !r.spawnError)
        notes.push(
          `The project's ${name} failed to run (exit ${r.exitCode ?? "by signal"}): ${why(`${r.output.stderr}\n${r.output.stdout}`)} Its diagnostics are missing.`,
        );
      if (r.timedOut || r.spawnError || broken) status.notRun.push(`${name} (failed: see above)`);
      else status.ran.push(name);
    };
    const config = ESLINT_CONFIGS.find((c) => existsSync(path.join(wt, c)));
    if (other) status.notRun.push(other);
    else if (!hasEslint) {
      status.notRun.push("ESLint (not installed in node_modules/.bin)");
      status.notInstalled = true;
    } else if (!config) status.notRun.push("ESLint (no configuration at the root)");
    else {
      const code = opts.baseUnknown ? { found: [], incomplete: opts.baseUnknown } : await lintCodeOfChange(repo.top, opts.base, headSha, lintable);
      const refusal = eslintRefusal(code, opts.trustPr === true, sandbox !== null);
      if (refusal) {
        notes.push(refusal);
        status.notRun.push("ESLint (see above)");
      } else {
        notes.push(...eslintRunNotes(code, sandbox !== null));
        await run("ESLint", eslintCommand(bin("eslint"), config, lintable));
      }
    }
    if (!hasTsc) {
      status.notRun.push(tscMissing);
      status.notInstalled = true;
    } else if (!existsSync(path.join(wt, "tsconfig.json"))) status.notRun.push("tsc (no tsconfig.json at the root)");
    else await run("tsc", `${shellQuote(bin("tsc"))} --noEmit --pretty false -p tsconfig.json`);
  } finally {
    await removeWorktree(repo.top, wt).catch(() => undefined);
  }
  notes.push(toolsNote(status, declared));
  return {
    comments: toolComments(
      diags,
      files.filter((f) => plain.has(f.path)),
    ),
    notes,
  };
}

/** The first paths of `code`, grouped by reason: "a, b (why), c (why)". Pure. */
function listed(code: LintCode): string {
  const shown = code.found.slice(0, 3);
  const groups = new Map<string, string[]>();
  for (const f of shown) groups.set(f.why, [...(groups.get(f.why) ?? []), f.path]);
  return `${[...groups].map(([why, paths]) => `${paths.join(", ")} (${why})`).join(", ")}${code.found.length > shown.length ? ", …" : ""}`;
}

/** Why ESLint must not run on this change, as a note, or null when it may. Pure. */
export function eslintRefusal(code: LintCode, trustPr: boolean, sandboxed: boolean): string | null {
  if (trustPr || (code.found.length === 0 && !code.incomplete)) return null;
  const what =
    code.found.length > 0
      ? `this change modifies code ESLint would run on this machine: ${listed(code)}`
      : `${code.incomplete}, so whether this change modifies code ESLint would run is not known`;
  return `ESLint was not run: ${what}. Pass trustPr: true (code-trm review --trust-pr) to run it anyway${sandboxed ? ", in the bubblewrap sandbox" : `, unconfined: bubblewrap is not available (${INSTALL_BWRAP})`}.`;
}

/** What the notes say about an ESLint run that may go ahead. Pure. */
export function eslintRunNotes(code: LintCode, sandboxed: boolean): string[] {
  const where = sandboxed ? ", in the bubblewrap sandbox" : ", unconfined: bubblewrap is not available";
  if (code.found.length > 0) return [`ESLint ran this change's own code (${listed(code)}) because trustPr was passed${where}.`];
  if (code.incomplete) return [`ESLint ran although ${code.incomplete}, because trustPr was passed${where}.`];
  if (!sandboxed)
    return [
      `The project's ESLint ran without a sandbox, on configuration and plugins the base already had; install bubblewrap to confine it too: ${INSTALL_BWRAP}.`,
    ];
  return [];
}
