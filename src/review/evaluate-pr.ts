import { randomBytes } from "node:crypto";
import path from "node:path";
import { type Evaluation, evaluate } from "../evaluate/evaluate.js";
import { INSTALL_BWRAP, rootNotice } from "../exec/sandbox.js";
import { git, gitOrNull, openRepo } from "../git/cli.js";
import { workRoot } from "../git/refs.js";
import { addWorktree, removeWorktree } from "../git/worktrees.js";
import { DEFAULT_TIMEOUT_SEC, DEFAULT_WEIGHTS } from "../session/config.js";
import { UserError } from "../util/errors.js";
import { confinement, sandboxAvailable } from "./confinement.js";
import type { PrRef } from "./pr-url.js";

/** One side of a change as its commands judged it. */
export interface SideEvaluation {
  commit: string;
  score: number;
  okBuild?: boolean;
  okLint?: boolean;
  tests?: string;
}

/** What running the commands on both sides of a change showed. */
export interface PrEvaluation {
  base: SideEvaluation;
  head: SideEvaluation;
  scoreDelta: number;
  verdict: "better" | "worse" | "same";
  newFailures: string[];
  fixedTests: string[];
  newErrors: string[];
}

export interface EvaluateRangeOptions {
  commands: { build?: string; test?: string; lint?: string };
  /** Run the commands without a sandbox when bubblewrap is not available (the caller trusts the change). */
  trustPr?: boolean;
  timeoutSec?: number;
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
}

const normUrl = (u: string) =>
  u
    .trim()
    .toLowerCase()
    .replace(/^(ssh:\/\/)?git@([^:/]+)[:/]/, "https://$2/")
    .replace(/^git:\/\//, "https://")
    .replace(/\.git$/, "")
    .replace(/\/+$/, "");

/**
 * The remote of `repo` that points at the pull request's repository, matched on the URLs as configured
 * (https or ssh). The configured URL, not the rewritten one, so `url.<x>.insteadOf` mirrors still match.
 */
export async function findRemote(top: string, ref: PrRef): Promise<string> {
  const want = `https://${ref.host.toLowerCase()}/${ref.owner.toLowerCase()}/${ref.repo.toLowerCase()}`;
  const out = (await gitOrNull(top, ["config", "--get-regexp", "^remote\\..*\\.url$"])) ?? "";
  for (const line of out.split("\n").filter(Boolean)) {
    const [key, url] = line.split(/\s+/, 2);
    if (url && normUrl(url) === want) return key!.replace(/^remote\./, "").replace(/\.url$/, "");
  }
  throw new UserError(
    `repoPath has no remote for ${ref.host}/${ref.owner}/${ref.repo}.`,
    `Add one (git remote add upstream https://${ref.host}/${ref.owner}/${ref.repo}.git) or pass repoPath of a clone of that repository.`,
  );
}

/**
 * Fetches the pull request's head (refs/pull/N/head) and its base branch into refs of code-trm's own,
 * without writing FETCH_HEAD or touching any branch of the user's. Returns the commits and a cleanup.
 */
export async function fetchPrHead(repoPath: string, ref: PrRef, baseBranch: string) {
  const repo = await openRepo(repoPath);
  const remote = await findRemote(repo.top, ref);
  const ns = `refs/trm/review/pr-${ref.number}-${randomBytes(3).toString("hex")}`;
  const check = await gitOrNull(repo.top, ["check-ref-format", "--branch", baseBranch]);
  if (check === null) throw new UserError(`The pull request's base branch name is not valid: ${baseBranch}.`);
  try {
    // --refmap= (empty): only the refspecs given here are updated; the remote's configured refspec
    // would otherwise also move the user's remote-tracking branches (e.g. origin/main).
    await git(
      repo.top,
      [
        "fetch",
        "--no-tags",
        "--no-write-fetch-head",
        "--refmap=",
        "--no-recurse-submodules",
        "--no-write-commit-graph",
        "--quiet",
        "--end-of-options",
        remote,
        `+refs/pull/${ref.number}/head:${ns}/head`,
        `+refs/heads/${baseBranch}:${ns}/base`,
      ],
      { network: true },
    );
  } catch (err) {
    throw new UserError(
      `Could not fetch pull request ${ref.number} from remote ${remote}: ${(err as Error).message.split("\n")[0]}`,
      "Check that the remote is reachable and that you may read the repository.",
    );
  }
  const head = (await git(repo.top, ["rev-parse", `${ns}/head`])).trim();
  const base = (await git(repo.top, ["rev-parse", `${ns}/base`])).trim();
  const cleanup = async () => {
    for (const r of ["head", "base"]) await gitOrNull(repo.top, ["update-ref", "-d", `${ns}/${r}`]);
  };
  return { head, base, cleanup };
}

function testsLine(ev: Evaluation): string | undefined {
  if (ev.tests === undefined) return undefined;
  return ev.tests === null ? "unreadable" : `${ev.tests.passed ?? "?"}/${ev.tests.total ?? "?"}`;
}

const failing = (ev: Evaluation) => new Set((ev.tests?.failures ?? []).map((f) => f.name));
const errors = (ev: Evaluation) =>
  new Set(ev.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.file ?? ""} ${d.code ?? ""} ${d.message}`.trim()));

/**
 * Runs the commands on the merge base of `base` and `head` and on `head`, each in a temporary detached
 * worktree (the user's checkout is never involved), and reports what the change did to them. The head's
 * commands are the change's own code: both sides run in the bubblewrap sandbox (confinement.ts), alike so
 * that the difference is the change's; without bubblewrap only when the caller trusts the change, and
 * the notes say which.
 */
export async function evaluateRange(
  repoPath: string,
  baseRev: string,
  headRev: string,
  opts: EvaluateRangeOptions,
): Promise<{ evaluation?: PrEvaluation; notes: string[] }> {
  const sandboxed = sandboxAvailable();
  if (!sandboxed && !opts.trustPr)
    return {
      notes: [
        `evaluate was not run: it runs the head's build, test and lint commands, and bubblewrap, which would confine them, is not available (${INSTALL_BWRAP}). Pass trustPr: true (code-trm review --trust-pr) to run them unconfined.`,
      ],
    };
  const repo = await openRepo(repoPath);
  // Revisions may come from the client: resolved to commit ids before anything else sees them.
  const resolve = async (rev: string) => {
    const oid = (await gitOrNull(repo.top, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${rev}^{commit}`]))?.trim();
    if (!oid) throw new UserError(`Unknown revision ${JSON.stringify(rev)} in ${repo.top}.`, "Pass a branch, tag or commit id that exists in repoPath.");
    return oid;
  };
  const headOid = await resolve(headRev);
  const baseOid = await resolve(baseRev);
  const mergeBase = (await gitOrNull(repo.top, ["merge-base", baseOid, headOid]))?.trim() || baseOid;
  const run = randomBytes(4).toString("hex");
  const dir = path.join(workRoot(repo.commonDir), "review");
  const sides = { base: mergeBase, head: headOid };
  // Unique basenames: git names a worktree's admin folder after it, and the user may have one called "base".
  const wtPath = (side: string) => path.join(dir, `trm-review-${run}-${side}`);
  const results: Partial<Record<"base" | "head", Evaluation>> = {};
  try {
    for (const side of ["base", "head"] as const) {
      const wt = wtPath(side);
      opts.onProgress?.(`checking out ${side} ${sides[side].slice(0, 12)}`);
      await addWorktree(repo.top, wt, sides[side], `review-${side}`);
      const run = await evaluate({
        cwd: wt,
        commands: opts.commands,
        timeoutSec: opts.timeoutSec ?? DEFAULT_TIMEOUT_SEC,
        weights: DEFAULT_WEIGHTS,
        cascade: true,
        perfDirection: "lower",
        signal: opts.signal,
        onProgress: (m) => opts.onProgress?.(`${side}: ${m}`),
        ...(sandboxed
          ? {
              sandbox: confinement(
                repo,
                wt,
                Object.values(opts.commands).filter((c): c is string => !!c),
              )!,
            }
          : {}),
      });
      results[side] = run.evaluation;
    }
  } finally {
    for (const side of ["base", "head"] as const) await removeWorktree(repo.top, wtPath(side)).catch(() => undefined);
  }
  const b = results.base!;
  const h = results.head!;
  const where = sandboxed
    ? "evaluate ran the commands of both sides in the bubblewrap sandbox: no network, their temporary checkout alone writable."
    : `evaluate ran the commands of both sides without a sandbox because trustPr was passed: bubblewrap is not available (${INSTALL_BWRAP}).`;
  return { evaluation: prEvaluation(mergeBase, b, headOid, h), notes: [where, ...(sandboxed && rootNotice() ? [rootNotice()!] : [])] };
}

/** What the change did to the commands' results. Pure. */
function prEvaluation(mergeBase: string, b: Evaluation, headOid: string, h: Evaluation): PrEvaluation {
  const fb = failing(b);
  const fh = failing(h);
  const eb = errors(b);
  const delta = h.score - b.score;
  const view = (commit: string, ev: Evaluation) => ({
    commit,
    score: ev.score,
    ...(ev.okBuild !== undefined ? { okBuild: ev.okBuild } : {}),
    ...(ev.okLint !== undefined ? { okLint: ev.okLint } : {}),
    ...(testsLine(ev) !== undefined ? { tests: testsLine(ev) } : {}),
  });
  return {
    base: view(mergeBase, b),
    head: view(headOid, h),
    scoreDelta: delta,
    verdict: delta > 1e-6 ? "better" : delta < -1e-6 ? "worse" : "same",
    newFailures: [...fh].filter((n) => !fb.has(n)),
    fixedTests: [...fb].filter((n) => !fh.has(n)),
    newErrors: [...errors(h)].filter((e) => !eb.has(e)).slice(0, 50),
  };
}
