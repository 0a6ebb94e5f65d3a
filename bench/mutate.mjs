#!/usr/bin/env node
/**
 * Diff-based coverage and mutation of one commit of a real project, as `trm_review_pr` with mutate runs
 * them: the commit's added lines, the tests with coverage, then the mutants of the covered lines
 * (Stryker's for JavaScript/TypeScript, Python's own ast's for Python), serial (1 checkout) and
 * parallel (N checkouts). `--drop-tests` puts the commit's test files back as
 * its parent had them in every checkout first: the commit's new tests removed, its fix kept (recall).
 *
 *   npm run build && node bench/mutate.mjs <repo> <commit> "<testCmd>" [--parallel 1,2] [--budget 300] [--build "<cmd>"] [--drop-tests]
 *
 * The repository needs its dependencies installed (node_modules is linked into each checkout; a Python
 * project's, in the Python the test command runs, e.g. `PYTHONPATH=src:$PYTHONPATH python -m pytest -q`). Prints
 * one JSON line per parallelism: added and covered lines, uncovered hunks, mutants run, killed, survived
 * (with their diffs and the tests that ran), each mutant's verdict, seconds and mutants per minute.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { changedSourceLines, isTestFile } from "../dist/evaluate/coverage/changed-lines.js";
import { measureTestStrength, strengthFindings } from "../dist/evaluate/test-strength.js";

const [repo, commit, testCmd, ...rest] = process.argv.slice(2);
if (!repo || !commit || !testCmd) {
  console.error('usage: node bench/mutate.mjs <repo> <commit> "<testCmd>" [--parallel 1,2] [--budget 300] [--build "<cmd>"] [--drop-tests]');
  process.exit(2);
}
const opt = (name, dflt) => {
  const i = rest.indexOf(name);
  return i >= 0 ? rest[i + 1] : dflt;
};
const parallels = opt("--parallel", "1,2").split(",").map(Number);
const budgetSec = Number(opt("--budget", "300"));
const buildCmd = opt("--build", undefined);
const dropTests = rest.includes("--drop-tests");
const git = (cwd, ...args) => execFileSync("git", args, { cwd, encoding: "utf8" });

const changed = await changedSourceLines(repo, `${commit}^`, commit);
const tests = git(repo, "diff", "--name-only", "--diff-filter=AM", `${commit}^`, commit)
  .split("\n")
  .filter((f) => f && isTestFile(f));
const addedTests = new Set(git(repo, "diff", "--name-only", "--diff-filter=A", `${commit}^`, commit).split("\n").filter(Boolean));

for (const parallel of parallels) {
  const root = mkdtempSync(path.join(os.tmpdir(), "trm-bench-mutate-"));
  const made = [];
  const checkout = async (k) => {
    const wt = path.join(root, `wt${k}`);
    if (!made.includes(wt)) {
      git(repo, "worktree", "add", "-q", "--detach", wt, commit);
      made.push(wt);
      if (existsSync(path.join(repo, "node_modules"))) symlinkSync(path.join(repo, "node_modules"), path.join(wt, "node_modules"), "dir");
      if (dropTests) for (const t of tests) addedTests.has(t) ? rmSync(path.join(wt, t)) : git(wt, "checkout", "-q", `${commit}^`, "--", t);
    }
    return wt;
  };
  const t0 = performance.now();
  try {
    const s = await measureTestStrength({
      checkout,
      parallel,
      testCmd,
      ...(buildCmd ? { buildCmd } : {}),
      changed,
      timeoutSec: 300,
      budgetMs: budgetSec * 1000,
    });
    const secs = (performance.now() - t0) / 1000;
    const m = s.mutation;
    const run = m?.results.length ?? 0;
    console.log(
      JSON.stringify({
        repo: path.basename(repo),
        commit,
        dropTests,
        parallel,
        addedLines: [...changed.values()].flat().reduce((n, h) => n + h.end - h.start + 1, 0),
        codeLines: s.coverage?.added,
        covered: s.coverage?.ran,
        uncoveredHunks: s.coverage?.uncovered.map((u) => `${u.file}:${u.start}-${u.end}`),
        mutants: m?.chosen ?? 0,
        run,
        killed: m ? m.results.filter((r) => r.status !== "survived").length : 0,
        verdicts: m?.results.map((r) => `${r.file}:${r.line}:${r.status}`) ?? [],
        survived: m?.survived.map((r) => ({ at: `${r.file}:${r.line}`, mutator: r.mutator, diff: r.diff, tests: r.tests })) ?? [],
        mutationSec: m ? Math.round(m.durationMs / 100) / 10 : 0,
        totalSec: Math.round(secs * 10) / 10,
        mutantsPerMin: m && m.durationMs > 0 ? Math.round((run / (m.durationMs / 60000)) * 10) / 10 : 0,
        findings: strengthFindings(s).length,
        notes: s.notes,
      }),
    );
  } finally {
    for (const wt of made) git(repo, "worktree", "remove", "--force", wt);
    rmSync(root, { recursive: true, force: true });
  }
}
