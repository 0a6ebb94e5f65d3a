import { writeFileSync } from "node:fs";
import path from "node:path";
// Types only: the review engine (TypeScript compiler, Octokit) is loaded when the command runs, so
// that every other command starts as fast as before.
import type { ReviewInput, ReviewResult } from "../../review/index.js";
import { UserError } from "../../util/errors.js";
import { expectPositionals, flagBool, flagString, UsageError } from "../args.js";
import { type Command, type Io, printJson } from "../command.js";
import { printable } from "../format.js";

/**
 * `code-trm review <prUrl | base..head>`: the review for people and CI. Exit code 1 when the
 * assessment is needs-changes, so a CI job fails on a critical finding; --sarif writes a SARIF 2.1.0
 * log for code-scanning upload (GitHub's upload-sarif action).
 */

/** `base..head` or `base...head` (both mean: what head adds since the merge base, as a PR shows it). */
export function parseRange(target: string): { base: string; head: string } | null {
  if (/^[a-z]+:\/\//i.test(target) || /#\d+$/.test(target)) return null;
  const m = /^(.+?)\.{2,3}(.+)$/.exec(target);
  return m ? { base: m[1]!, head: m[2]! } : null;
}

export function paintText(r: ReviewResult, io: Io, renderReviewText: (r: ReviewResult) => string): string {
  // File names, messages, mutants' diffs and test names come from the PR: no escape sequence reaches the terminal.
  const text = printable(renderReviewText(r));
  const p = io.paint;
  return text
    .split("\n")
    .map((l) =>
      l.startsWith("Assessment: ")
        ? p.bold(r.summary.assessment === "needs-changes" ? p.red(l) : r.summary.assessment === "approved" ? p.green(l) : p.yellow(l))
        : l.replace(/\[(critical|warning|info)\]/, (_, s: string) => `[${s === "critical" ? p.red(s) : s === "warning" ? p.yellow(s) : p.dim(s)}]`),
    )
    .join("\n");
}

export const reviewCommand: Command = {
  name: "review",
  summary: "review a pull request or a local range (text, JSON or SARIF)",
  usage:
    "code-trm review <prUrl | base..head> [--repo <path>] [--json] [--sarif <file>] [--trust-pr] [--mutate --test-cmd <cmd> [--build-cmd <cmd>] [--mutate-budget <s>]]",
  description: [
    "Reviews a GitHub pull request (URL or OWNER/REPO#N; GITHUB_TOKEN for private repositories) or the",
    "local range base..head of a repository (default: the current one), as trm_review_pr does: comments",
    "on added lines, and the project's own ESLint and tsc on the head of a local range, or of a pull",
    "request given --repo (a clone that already has the PR's head commit; nothing is fetched). Exit code",
    "1 when the assessment is needs-changes (a critical finding), 0 otherwise, 2 for a usage error.",
    "--sarif writes a SARIF 2.1.0 log for code scanning (see docs/review.md: a GitHub Actions job that uploads it).",
    "ESLint runs only configuration and plugins the base already had; --trust-pr runs it on a change that",
    "modifies them (its code then runs on this machine, in the bubblewrap sandbox when available).",
    "--mutate runs --test-cmd on the head with coverage and reports the added lines no test runs and the",
    "mutants of the covered ones every test passes (docs/review-runs-code.md); --mutate-budget caps the",
    "mutants' wall time (default 180 s). Mutants of JavaScript, TypeScript and Python (python3's own ast);",
    "Go gets coverage only. Python's coverage needs coverage.py.",
    "The head's code runs here, in the sandbox when available.",
  ].join("\n"),
  options: {
    repo: { type: "string", value: "<path>", help: "repository of a local range (default: the current directory), or a clone of the PR's repository" },
    json: { type: "boolean", help: "the whole result as JSON (stable keys)" },
    sarif: { type: "string", value: "<file>", help: "also write a SARIF 2.1.0 log to this file" },
    "trust-pr": { type: "boolean", help: "run ESLint even when the change modifies the code it runs" },
    mutate: { type: "boolean", help: "report added lines no test runs and surviving mutants (needs --test-cmd)" },
    "test-cmd": { type: "string", value: "<cmd>", help: "the project's test command, for --mutate" },
    "build-cmd": { type: "string", value: "<cmd>", help: "a build the tests need, for --mutate" },
    "mutate-budget": { type: "string", value: "<s>", help: "wall time for the mutants in seconds (default 180; 0: coverage only)" },
  },
  async run(args, io) {
    const [target] = expectPositionals(args, 1, 1, "review", "<prUrl | base..head>");
    const range = parseRange(target!);
    const repo = flagString(args, "repo");
    const sarifPath = flagString(args, "sarif");
    if (sarifPath === "") throw new UsageError("--sarif needs a file name", "review");
    let input: ReviewInput;
    if (range) input = { repoPath: path.resolve(io.cwd, repo ?? "."), base: range.base, head: range.head };
    else input = { prUrl: target!, ...(repo !== undefined ? { repoPath: path.resolve(io.cwd, repo) } : {}) };
    if (sarifPath) input.format = "sarif";
    if (flagBool(args, "trust-pr")) input.trustPr = true;
    const testCmd = flagString(args, "test-cmd");
    const buildCmd = flagString(args, "build-cmd");
    const budget = flagString(args, "mutate-budget");
    if (budget !== undefined && !/^\d+$/.test(budget)) throw new UsageError("--mutate-budget needs a whole number of seconds", "review");
    if (flagBool(args, "mutate")) input.mutate = true;
    if (testCmd) input.testCmd = testCmd;
    if (buildCmd) input.buildCmd = buildCmd;
    const { reviewPr, renderReviewText } = await import("../../review/index.js");
    const r = await reviewPr(input, budget !== undefined ? { mutationBudgetSec: Number(budget) } : {});
    if (sarifPath) {
      try {
        writeFileSync(path.resolve(io.cwd, sarifPath), `${JSON.stringify(r.sarif, null, 2)}\n`);
      } catch (err) {
        throw new UserError(`Could not write the SARIF log to ${sarifPath}: ${(err as Error).message}`, "Pass a path in a writable directory.");
      }
    }
    const { sarif: _omit, ...rest } = r;
    if (flagBool(args, "json")) printJson(io, rest);
    else io.out(`${paintText(rest, io, renderReviewText)}\n`);
    return r.summary.assessment === "needs-changes" ? 1 : 0;
  },
};
