import { UserError } from "../util/errors.js";
import { LIMITS } from "../util/limits.js";
import { serverEnv } from "../util/secrets.js";
import { sortComments, summarize } from "./assess.js";
import { buildContext } from "./context.js";
import { fileChangeFromContents, parseUnifiedDiff } from "./diff.js";
import { evaluateRange, fetchPrHead } from "./evaluate-pr.js";
import { markingsFor } from "./generated.js";
import { apiTarget, fetchPullRequest, type GitHubOptions, githubToken, type PrInfo, redact } from "./github.js";
import { reviewLocalRange } from "./local.js";
import { postReview } from "./post.js";
import { parsePrUrl } from "./pr-url.js";
import { runProjectTools, runProjectToolsOnPr } from "./project-tools.js";
import { RULES } from "./rules/catalog.js";
import { toSarif } from "./sarif.js";
import type { ReviewInput, ReviewResult } from "./schema.js";
import { CATEGORIES, type Category, type FileChange, type ProjectInfo, type ReviewComment } from "./types.js";

/**
 * `trm_review_pr`: reviews a change given as a GitHub pull request, a unified diff, whole files or a
 * local range, and returns comments on added lines, a summary and optionally SARIF.
 */

export type ReviewOptions = GitHubOptions & {
  /** Wall time for the mutants of `mutate` (default test-strength.ts; the CLI's --mutate-budget). */
  mutationBudgetSec?: number;
};

/** Comments returned in one result; beyond this the most severe are kept (counts stay complete). */
export const MAX_COMMENTS = 200;
const MAX_FILES_INPUT = 500;

const SOURCES_HINT = "Pass exactly one of: prUrl, diff, files, or repoPath + base + head.";

type Source =
  | { kind: "pr"; prUrl: string }
  | { kind: "diff"; diff: string }
  | { kind: "files"; files: NonNullable<ReviewInput["files"]> }
  | { kind: "local"; repoPath: string; base: string; head: string };

/** Validates which input was given; every refusal says what to send instead. */
export function selectSource(input: ReviewInput): { source: Source; notes: string[] } {
  const notes: string[] = [];
  const hasRange = input.base !== undefined || input.head !== undefined;
  if (hasRange && !input.repoPath) throw new UserError("base and head need repoPath.", "Add repoPath (the local repository) to review the range base...head.");
  if (hasRange && (!input.base || !input.head)) throw new UserError("A local range needs both base and head.", 'Pass e.g. base: "main", head: "my-branch".');
  const given: Source[] = [];
  if (input.prUrl !== undefined) given.push({ kind: "pr", prUrl: input.prUrl });
  if (input.diff !== undefined) given.push({ kind: "diff", diff: input.diff });
  if (input.files !== undefined) given.push({ kind: "files", files: input.files });
  if (input.repoPath && input.base && input.head) given.push({ kind: "local", repoPath: input.repoPath, base: input.base, head: input.head });
  if (input.evaluate) {
    if (!input.repoPath)
      throw new UserError(
        "evaluate needs repoPath: a local clone of the pull request's repository.",
        "Add repoPath, and at least one of buildCmd / testCmd / lintCmd.",
      );
    if (!input.buildCmd && !input.testCmd && !input.lintCmd)
      throw new UserError("evaluate needs at least one command to run.", "Add buildCmd, testCmd and/or lintCmd.");
    if (input.diff !== undefined || input.files !== undefined)
      throw new UserError(
        "evaluate runs commands on commits: it works with prUrl + repoPath, or repoPath + base + head.",
        "Drop diff/files, or drop evaluate.",
      );
  }
  if (input.mutate) {
    if (!input.repoPath || !input.testCmd)
      throw new UserError("mutate needs repoPath (a local clone) and testCmd.", "Add repoPath and testCmd (and buildCmd if the tests need a build).");
    if (input.diff !== undefined || input.files !== undefined)
      throw new UserError("mutate runs the tests on a commit: it works with prUrl + repoPath, or repoPath + base + head.", "Drop diff/files, or drop mutate.");
  }
  if (given.length === 0) {
    if (input.repoPath)
      throw new UserError("repoPath alone does not say what to review.", 'Add base and head (e.g. base: "main", head: "HEAD") to review that range.');
    throw new UserError("Nothing to review.", SOURCES_HINT);
  }
  if (given.length > 1)
    throw new UserError(
      `Several inputs given (${given.map((g) => (g.kind === "pr" ? "prUrl" : g.kind === "local" ? "repoPath+base+head" : g.kind)).join(", ")}).`,
      SOURCES_HINT,
    );
  if (input.repoPath && given[0]!.kind !== "local" && given[0]!.kind !== "pr")
    notes.push("repoPath was ignored: it is used with base + head (local range) or with prUrl.");
  if (!input.evaluate && !input.mutate && (input.buildCmd || input.testCmd || input.lintCmd))
    notes.push("buildCmd / testCmd / lintCmd were ignored: they apply with evaluate: true or mutate: true.");
  return { source: given[0]!, notes };
}

function filesFromInput(files: NonNullable<ReviewInput["files"]>): { changes: FileChange[]; notes: string[] } {
  if (files.length === 0) throw new UserError("files is empty.", "Send at least one {path, content} (add originalContent for a modified file).");
  if (files.length > MAX_FILES_INPUT)
    throw new UserError(
      `Too many files (${files.length}; at most ${MAX_FILES_INPUT}).`,
      "Send a unified diff instead, or review the range locally with repoPath + base + head.",
    );
  let bytes = 0;
  const seen = new Set<string>();
  const changes: FileChange[] = [];
  const unchanged: string[] = [];
  for (const f of files) {
    const path = f.path.trim().replace(/^\.\//, "");
    if (path === "") throw new UserError("A file has an empty path.", "Give each file its path relative to the repository root, e.g. src/index.ts.");
    if (seen.has(path)) throw new UserError(`File ${path} is given twice.`, "Send each file once.");
    seen.add(path);
    bytes += f.content.length + (f.originalContent?.length ?? 0);
    if (bytes > LIMITS.maxCandidateBytes)
      throw new UserError(`files are larger than ${LIMITS.maxCandidateBytes} bytes in total.`, "Send a unified diff of the change instead.");
    const change = fileChangeFromContents(path, f.content, f.originalContent);
    if (change) changes.push(change);
    else unchanged.push(path);
  }
  const notes =
    unchanged.length > 0
      ? [
          `${unchanged.length} file(s) identical to their originalContent, nothing to review: ${unchanged.slice(0, 5).join(", ")}${unchanged.length > 5 ? ", …" : ""}.`,
        ]
      : [];
  return { changes, notes };
}

function filesFromDiff(diff: string): FileChange[] {
  if (diff.length > LIMITS.maxCandidateBytes)
    throw new UserError(`diff is larger than ${LIMITS.maxCandidateBytes} bytes.`, "Review the range locally with repoPath + base + head instead.");
  if (diff.trim() === "") throw new UserError("diff is empty.", "Send the output of `git diff` (or another unified diff).");
  const files = parseUnifiedDiff(diff);
  if (files.length === 0) {
    throw new UserError(
      "diff contains no file changes.",
      "Send a unified diff with file headers (--- a/x, +++ b/x) and @@ hunks, e.g. the output of `git diff`.",
    );
  }
  return files;
}

function selectedCategories(focus: ReviewInput["focus"]): { categories: Set<Category>; onlyLongLines: boolean } {
  if (!focus || focus.length === 0) return { categories: new Set(CATEGORIES), onlyLongLines: false };
  const categories = new Set<Category>();
  for (const f of focus) categories.add(f === "formatting" ? "code-quality" : f);
  // `formatting` (line length) without `code-quality` keeps only the long-line rule.
  return { categories, onlyLongLines: focus.includes("formatting") && !focus.includes("code-quality") };
}

function dedupe(comments: ReviewComment[]): ReviewComment[] {
  const seen = new Set<string>();
  return comments.filter((c) => {
    const key = `${c.file}\0${c.line}\0${c.rule}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const SEVERITY_RANK = { critical: 0, warning: 1, info: 2 } as const;

type FetchedHead = Awaited<ReturnType<typeof fetchPrHead>>;

/** Runs the commands on both sides of the change: the PR head fetched from its remote, or a local range. */
async function evaluateSource(source: Source, input: ReviewInput, fetched: FetchedHead | undefined, opts: ReviewOptions) {
  const run = (base: string, head: string) =>
    evaluateRange(input.repoPath!, base, head, {
      commands: { build: input.buildCmd, test: input.testCmd, lint: input.lintCmd },
      ...(input.trustPr ? { trustPr: true } : {}),
      timeoutSec: input.timeoutSec,
      signal: opts.signal,
      onProgress: opts.onProgress,
    });
  if (source.kind === "local") return run(source.base, source.head);
  if (source.kind !== "pr" || !fetched) throw new UserError("evaluate needs prUrl or base + head.");
  return run(fetched.base, fetched.head);
}

/** The project's own ESLint and tsc on the head: of a local range, or of a pull request in a local clone. */
async function projectTools(
  source: Source,
  input: ReviewInput,
  prInfo: PrInfo | undefined,
  files: FileChange[],
  fetched: FetchedHead | undefined,
  opts: ReviewOptions,
) {
  const toolOpts = { trustPr: input.trustPr, timeoutSec: input.timeoutSec, signal: opts.signal, onProgress: opts.onProgress };
  if (source.kind === "local" && prInfo?.headSha) return runProjectTools(source.repoPath, prInfo.headSha, files, { ...toolOpts, base: prInfo.baseSha });
  if (source.kind !== "pr" || !input.repoPath) return undefined;
  // ESLint may run what the base had: the base branch fetched from the user's remote (evaluate), or the
  // base commit the API names, if that API is a configured one (a host the model named could call the
  // head its own base).
  const ref = parsePrUrl(source.prUrl);
  const trusted = apiTarget(ref, opts).sendToken;
  const base = fetched?.base ?? (trusted ? prInfo?.baseSha : undefined);
  const baseUnknown = base ? undefined : `the base commit comes from ${ref.host}, which is not a configured GitHub host`;
  return runProjectToolsOnPr(input.repoPath, ref, prInfo?.headSha, files, { ...toolOpts, ...(base ? { base } : {}), ...(baseUnknown ? { baseUnknown } : {}) });
}

export async function reviewPr(input: ReviewInput, opts: ReviewOptions = {}): Promise<ReviewResult> {
  const { source, notes } = selectSource(input);
  if (input.post && source.kind !== "pr") throw new UserError("post needs prUrl: reviews are posted to a GitHub pull request.", "Pass prUrl, or drop post.");
  let files: FileChange[];
  let prInfo: PrInfo | undefined;
  let project: ProjectInfo = {};
  switch (source.kind) {
    case "pr": {
      const pr = await fetchPullRequest(parsePrUrl(source.prUrl), opts);
      files = pr.files;
      prInfo = pr.info;
      project = pr.project;
      notes.push(...pr.notes);
      break;
    }
    case "local": {
      const local = await reviewLocalRange(source.repoPath, source.base, source.head);
      files = local.files;
      prInfo = local.info;
      project = local.project;
      notes.push(...local.notes);
      break;
    }
    case "diff":
      files = filesFromDiff(source.diff);
      break;
    case "files": {
      const r = filesFromInput(source.files);
      files = r.changes;
      notes.push(...r.notes);
      break;
    }
  }

  // evaluate fetches the pull request's head (the user asked for it): the project's tools use it too.
  let fetched: FetchedHead | undefined;
  try {
    if ((input.evaluate || input.mutate) && source.kind === "pr" && prInfo) fetched = await fetchPrHead(input.repoPath!, parsePrUrl(source.prUrl), prInfo.base);
    return await reviewFiles(source, input, files, prInfo, project, notes, fetched, opts);
  } finally {
    await fetched?.cleanup();
  }
}

async function reviewFiles(
  source: Source,
  input: ReviewInput,
  files: FileChange[],
  prInfo: PrInfo | undefined,
  project: ProjectInfo,
  notes: string[],
  fetched: FetchedHead | undefined,
  opts: ReviewOptions,
): Promise<ReviewResult> {
  const { categories, onlyLongLines } = selectedCategories(input.focus);
  const trusted = markingsFor(project, files);
  const contexts = files.map((f) => buildContext(f, trusted));
  // Loaded on the first review: the rules' syntax trees come from the TypeScript compiler, which cost a
  // server that never reviews 50 MB and 0.7 to 1.0 ms more for every process it spawns (a larger address
  // space to fork: bench/fork-cost.mjs), three commands and a git call per step, and 0.5 s at start.
  const { runRules } = await import("./rules/index.js");
  let comments = dedupe(runRules(contexts, categories));
  const tools = onlyLongLines ? undefined : await projectTools(source, input, prInfo, files, fetched, opts);
  if (tools) {
    comments.push(...tools.comments.filter((c) => categories.has(c.category)));
    notes.push(...tools.notes);
  }
  if (input.mutate && !onlyLongLines) {
    const range =
      source.kind === "local" && prInfo?.headSha
        ? { base: prInfo.baseSha ?? source.base, head: prInfo.headSha }
        : fetched
          ? { base: fetched.base, head: fetched.head }
          : undefined;
    if (!range) notes.push("mutate: the head commit is not known here (a pull request needs repoPath to fetch it): not run.");
    else {
      const { reviewTestStrength } = await import("./test-strength.js");
      const s = await reviewTestStrength(input.repoPath!, range.base, range.head, files, {
        testCmd: input.testCmd!,
        ...(input.buildCmd ? { buildCmd: input.buildCmd } : {}),
        ...(input.timeoutSec ? { timeoutSec: input.timeoutSec } : {}),
        ...(opts.mutationBudgetSec !== undefined ? { budgetSec: opts.mutationBudgetSec } : {}),
        ...(input.trustPr ? { trustPr: true } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      });
      if (categories.has("testing")) comments.push(...s.comments);
      notes.push(...s.notes);
    }
  }
  if (onlyLongLines) comments = comments.filter((c) => c.category !== "code-quality" || c.rule === RULES.longLine.id);
  comments = sortComments(
    comments,
    files.map((f) => f.path),
  );
  const summary = summarize(files, comments);

  if (comments.length > MAX_COMMENTS) {
    const kept = new Set([...comments].sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity]).slice(0, MAX_COMMENTS));
    notes.push(`${comments.length} comments found; the ${MAX_COMMENTS} most severe are listed (counts include all). Use focus to narrow the review.`);
    comments = comments.filter((c) => kept.has(c));
  }

  const result: ReviewResult = { summary, comments };
  if (input.evaluate) {
    const ran = await evaluateSource(source, input, fetched, opts);
    if (ran.evaluation) result.evaluation = ran.evaluation;
    notes.push(...ran.notes);
  }
  if (prInfo) result.prInfo = prInfo;
  if (notes.length > 0) result.notes = notes;
  if (input.format === "sarif") result.sarif = toSarif(comments);
  if (input.post && source.kind === "pr" && prInfo?.headSha) {
    result.posted = { ...(await postReview(parsePrUrl(source.prUrl), result, prInfo.headSha, input.post !== "submit", opts)) };
  }

  // Belt and braces: the token must never leave the process, whatever the reviewed text contains.
  const token = githubToken(opts.env ?? serverEnv());
  if (token && JSON.stringify(result).includes(token)) return JSON.parse(redact(JSON.stringify(result), token)) as ReviewResult;
  return result;
}
