/**
 * The scoring of a step's command results (run by evaluate.ts, step-command.ts): the signals of build, lint,
 * the checks, the tests (a partial run's counts, a quick gate's failure, a coverage gate's exit, a crash that
 * named no failing test) and bench, the weighted score, the diagnostics of the failed commands, and the
 * notices about the environment and the user's checkout.
 */

import { quoted } from "../util/text.js";
import { splitChainOutput } from "./chain.js";
import { checkoutLeakNotice, checkoutPathsIn } from "./checkout-leak.js";
import { environmentNotices, realOr } from "./environment.js";
import type { CheckSpec, EvaluateOptions, Evaluation } from "./evaluate.js";
import type { GateVerdict, PartialRun, RelatedRan } from "./failing-first.js";
import { testsLine } from "./feedback.js";
import { parseBenchValue, parseDiagnostics } from "./parsers/index.js";
import { readChainDiagnostics } from "./read-tests.js";
import { countsNotices, stoppedNotice } from "./runner-hint.js";
import { type Components, type PerfDirection, perfScore, testScore, testsPassed, testsScore, type Weights, weightedScore } from "./score.js";
import { type StepRuns, succeeded, testsOf } from "./step-command.js";
import type { Diagnostic } from "./types.js";

export function checkWeights(checks: CheckSpec[] = []): Record<string, number> {
  return Object.fromEntries(checks.map((c) => [c.name, c.weight]));
}

/** How the test command's gate ended (failing first, affected first), when one ran: its partial verdict, or the related run's size. */
export interface GateOutcome {
  partial?: Extract<GateVerdict, { partial: PartialRun }>;
  relatedRan?: RelatedRan;
}

/** The evaluation of the commands run into `runs`, scored. */
export function scoreRuns(opts: EvaluateOptions, runs: StepRuns, gateOutcome: GateOutcome, commandsMs: number): Evaluation {
  const { commands, results, chains, junitXml, notices, realCwd } = runs;
  const { partial, relatedRan } = gateOutcome;
  const components: Components = {};
  const ev: Evaluation = { commands, components, score: 0, testsPass: true, diagnostics: [], notices, commandsMs };

  if (opts.commands.build) {
    ev.okBuild = results.build ? succeeded(results.build) : false;
    components.build = ev.okBuild ? 1 : 0;
  }
  if (opts.commands.lint) {
    ev.okLint = results.lint ? succeeded(results.lint) : false;
    components.lint = ev.okLint ? 1 : 0;
  }
  if (opts.checks?.length) {
    ev.checks = Object.fromEntries(opts.checks.map((c) => [c.name, !!results[`check:${c.name}`] && succeeded(results[`check:${c.name}`]!)]));
    components.checks = Object.fromEntries(Object.entries(ev.checks).map(([n, ok]) => [n, ok ? 1 : 0]));
  }
  if (opts.commands.test && partial) {
    // Read before (gateVerdict): the selected tests' counts, every other test as at the last full run.
    ev.tests = partial.tests;
    ev.partial = partial.partial;
    components.test = testsScore(ev.tests, false);
    ev.testsPass = false;
    notices.push(partial.notice);
  } else if (opts.commands.test) {
    if (relatedRan) ev.relatedRan = relatedRan;
    const gate = results.quickTest && !succeeded(results.quickTest) ? results.quickTest : undefined;
    const r = gate ?? results.test;
    ev.tests = r ? testsOf(runs, r, gate ? undefined : chains.test, gate ? undefined : junitXml) : null;
    const ok = !gate && !!r && succeeded(r);
    // Before a failure is made up for a failed run that named none: the runner's own counts.
    const stopped = !gate && r && !ok ? stoppedNotice(ev.tests, r.exitCode, opts.commands.test, opts.cwd, r.output.all) : undefined;
    const allPassedExit = !!ev.tests && !!r && !ok && !r.timedOut && ev.tests.failed === 0 && (ev.tests.passed ?? 0) > 0;
    // A coverage table: the exit is taken for a gate after the tests, and no failing test is made up.
    const coverageExit = allPassedExit && COVERAGE_TABLE_RE.test(r!.output.all);
    if (coverageExit && !coverageShort(r!.output.all)) {
      // A table at 100% (or one no gate read) is no proof of a coverage gate: on npm/node-semver the exit was
      // the posttest lint's. What failed is said by the output's own last lines, quoted as data.
      notices.push(
        `All ${ev.tests!.passed} tests passed, but "${opts.commands.test}" exited ${r!.exitCode} after them, with no coverage figure short: ${outputEnd(r!.output.all)}`,
      );
    } else if (coverageExit) {
      // Every test passed and the runner printed a coverage table: the exit code is its coverage gate.
      // No failing test is made up; the tests do not count as passing while the command fails (below).
      notices.push(
        `All ${ev.tests!.passed} tests passed, but "${opts.commands.test}" exited ${r!.exitCode}: its coverage check failed (node-tap: --disable-coverage or --allow-incomplete-coverage; c8/nyc: --check-coverage=false).`,
      );
    } else if (ev.tests && r && !ok && ev.tests.failed === 0) {
      if (allPassedExit)
        notices.push(`All ${ev.tests.passed} tests passed, but "${opts.commands.test}" exited ${r.exitCode} after them: ${outputEnd(r.output.all)}`);
      // The runner failed but reported no failing test (a crash, a timeout, an error outside tests):
      // that is a failure the counts alone would hide.
      const t = ev.tests;
      ev.tests = {
        ...t,
        failed: 1,
        total: t.total === null ? null : t.total + 1,
        failures: [...t.failures, { name: r.timedOut ? "(test command timed out)" : `(test command exited ${r.exitCode ?? r.signal})` }],
      };
    }
    // Skipped tests count for nothing; one that ran at an earlier step counts as failed (judge.ts).
    // A failed gate fails the test signal whatever its counts say: the full suite did not run, so a
    // ratio of the gate's few tests would be no measure of it (its failures stay, for the feedback).
    // A coverage gate's exit is no test, yet the step does not pass: counted as one failure more in the test
    // signal, so that it stays below a step that passes (it scored 1 and kept best over the real success).
    components.test = gate ? 0 : coverageExit ? testScore(ev.tests!.passed!, ev.tests!.passed! + 1) : testsScore(ev.tests, ok);
    ev.testsPass = testsPassed(ev.tests, ok);
    if (gate) {
      const t = ev.tests;
      notices.push(
        `quickTestCmd failed${t ? ` (${testsLine(t)})` : ` (exit ${gate.exitCode ?? "killed"})`}, so the full test command was skipped and the test signal counts as failing.`,
      );
    } else if (stopped) notices.push(stopped);
    else if (r) notices.push(...countsNotices(ev.tests, r.exitCode, ok, opts.commands.test, opts.cwd));
  }
  if (opts.commands.bench) {
    const r = results.bench;
    const value = r && succeeded(r) ? parseBenchValue(r.output.stdout || r.output.all) : null;
    const score = value === null ? 0 : perfScore(value, opts.previousBestPerf, opts.perfDirection);
    ev.perf = { value, score };
    components.perf = score;
  }
  ev.score = weightedScore(components, opts.weights, checkWeights(opts.checks));

  for (const [key, r] of Object.entries(results)) {
    if (key === "bench" || succeeded(r)) continue;
    const chain = chains[key];
    const found = chain
      ? readChainDiagnostics(splitChainOutput(chain.chain, chain.raw, r.exitCode), realCwd)
      : parseDiagnostics(r.output.all, { cwd: realCwd });
    // Where the test results were read, the tracebacks in the output are the failing tests' own (already
    // their messages and places): not errors of their own (unittest's IndexError was listed twice).
    const testsRead = (key === "test" || key === "quickTest") && !!ev.tests;
    ev.diagnostics.push(...found.filter((d) => !(testsRead && d.source === "python")).map((d) => ({ ...d, command: key })));
  }
  ev.diagnostics = dedupe(ev.diagnostics);
  ev.notices.push(...environmentNotices(opts.cwd, results, opts.checkout, !!opts.sandbox));
  if (opts.checkout) {
    // Node prints real paths (macOS /tmp is a link), Python the paths as it was given them: both forms.
    const { root, linked } = opts.checkout;
    const roots = [...new Set([root, realOr(root)])];
    const worktrees = [...new Set([opts.cwd, realCwd])];
    const named = (out: string) => [...new Set(roots.flatMap((r) => checkoutPathsIn(out, r, worktrees, linked)))];
    const leak = checkoutLeakNotice(Object.fromEntries(Object.entries(results).map(([k, r]) => [k, named(r.output.all)])));
    // First, so that it is read before the score is trusted.
    if (leak) ev.notices.unshift(leak);
  }
  return ev;
}

function dedupe(ds: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return ds.filter((d) => {
    const k = `${d.file}:${d.line}:${d.column}:${d.code}:${d.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

const COVERAGE_TABLE_RE = /^\s*File\s+\|\s*% Stmts\s*\|/m;
/** What nyc, c8 and node-tap print when their coverage gate fails. */
const COVERAGE_FAIL_RE = /does not meet (?:the |global )?threshold|ERROR: Coverage for|incomplete coverage|coverage threshold/i;
/** A row of an istanbul text table: its name, then % Stmts, % Branch, % Funcs, % Lines. */
const COVERAGE_ROW_RE = /^[^|\n]*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|/gm;

/** Whether coverage fell short: the runner said so, or a figure of its table is below 100%. */
function coverageShort(out: string): boolean {
  if (COVERAGE_FAIL_RE.test(out)) return true;
  for (const m of out.matchAll(COVERAGE_ROW_RE)) if (m.slice(1, 5).some((v) => Number(v) < 100)) return true;
  return false;
}

/** The output's last lines (the test code's and the hooks', so hostile), each quoted. */
function outputEnd(out: string): string {
  const lines = out
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-5)
    .map((l) => quoted(l, 160));
  return lines.length ? `its output ends ${lines.join(" / ")}.` : "it printed nothing after the tests.";
}

/**
 * Re-derives the perf component and the score of an evaluation against the current best bench value.
 * Needed when an evaluation is reused from the cache: its perf score was relative to another history.
 */
export function rescore(ev: Evaluation, weights: Weights, checks: CheckSpec[], perfDirection: PerfDirection, previousBestPerf: number | undefined): Evaluation {
  if (!ev.perf) return { ...ev, score: weightedScore(ev.components, weights, checkWeights(checks)) };
  const score = ev.perf.value === null ? 0 : perfScore(ev.perf.value, previousBestPerf, perfDirection);
  const components = { ...ev.components, perf: score };
  return { ...ev, perf: { ...ev.perf, score }, components, score: weightedScore(components, weights, checkWeights(checks)) };
}
