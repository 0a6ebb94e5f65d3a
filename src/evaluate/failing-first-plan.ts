/**
 * Which tests a step runs first (failing-first.ts): those that failed at the last full run of the
 * current history and at the partial steps since (failing first's or affected first's), when the step before this one is one of those and
 * every failing test was named. Otherwise (no failure, a failure without a name, a crash, counts in
 * assertions or subtests, a chain part that did not run) the whole suite runs as it always did.
 */
import { relatesMost } from "./affected-first.js";
import type { Evaluation } from "./evaluate.js";
import { type FailingFirst, testOf } from "./failing-first.js";
import { rawTests } from "./judge.js";
import type { RelatedSelection, Selection } from "./select-command.js";
import { LOST_MARK } from "./test-identity.js";
import type { TestCounts } from "./types.js";

export interface PlanPoint {
  step: number;
  evaluation: Evaluation;
}

/** The names of the tests that failed, when every failure has one (else undefined). */
function failingNames(t: TestCounts): string[] | undefined {
  if (t.passed === null || t.failed === null || t.units || t.notRun?.length || t.loadFailed) return undefined;
  // A whole test file that failed to load (a syntax, type or import error: Jest's "Test suite failed to run",
  // pytest's collection error, mocha's "Exception during run": `loadFailed`) is named by its file and is no test: run again alone it says nothing of the
  // files its cause (often the code under test) broke besides it.
  if (t.failures.some((f) => f.name === (f.testFile ?? f.file)) || t.cases?.some((c) => c.load)) return undefined;
  const names = t.cases
    ? t.cases.filter((c) => c.status === "failed").map((c) => c.name)
    : t.failures.filter((f) => !f.message?.startsWith(LOST_MARK)).map(testOf);
  const unique = [...new Set(names)];
  // A failure code-trm made up for a crash or a timeout names no test: `(test command exited 1)`.
  if (unique.length !== t.failed || unique.some((n) => n.startsWith("(") && n.endsWith(")"))) return undefined;
  return unique;
}

/** What a full run of the test command read, if it ran and was read. */
function testsRead(ev: Evaluation): TestCounts | undefined {
  if (!ev.commands.test || ev.commands.test.skipped) return undefined;
  return rawTests(ev) ?? undefined;
}

export function failingFirstPlan(entries: PlanPoint[], selection: Selection): FailingFirst | undefined {
  let i = entries.length - 1;
  while (i >= 0 && entries[i]!.evaluation.partial) i--;
  if (i < 0) return undefined;
  const fullPoint = entries[i]!;
  const full = testsRead(fullPoint.evaluation);
  // No failure at the full run: the tests that failed at partial steps since (affected first), if any.
  if (!full || (!full.failed && i === entries.length - 1)) return undefined;
  const names = failingNames(full);
  if (!names) return undefined;
  const all = new Set(names);
  const files = new Map<string, Set<string>>();
  const filesOf = (t: TestCounts) => {
    for (const f of t.failures) if (f.testFile) files.set(f.name, (files.get(f.name) ?? new Set()).add(f.testFile));
  };
  filesOf(full);
  for (const e of entries.slice(i + 1)) {
    const t = testsRead(e.evaluation);
    const more = t ? failingNames(t) : undefined;
    if (!more) return undefined;
    for (const n of more) all.add(n);
    filesOf(t!);
  }
  const selected = [...all];
  if (selected.length === 0) return undefined;
  // The files the selected tests are in, when each one's is known: only those load (vitest's -t alone
  // still imports every test file). A test moved since matches nothing there: the whole suite runs.
  const inFiles = selected.every((n) => files.has(n)) ? [...new Set(selected.flatMap((n) => [...files.get(n)!]))] : undefined;
  const cmd = selection.command(selected, inFiles);
  if (!cmd) return undefined;
  return { cmd, names: selected, since: fullPoint.step, full, runner: selection.runner.name, ...(inFiles ? { byFiles: true } : {}) };
}

/**
 * Affected first (affected-first.ts): the related run for a step whose previous step is a full run that was
 * read and had no failing test (with a failing test, failing first applies); undefined otherwise.
 */
export function affectedFirstPlan(entries: PlanPoint[], selection: RelatedSelection, changedFiles: string[]): FailingFirst | undefined {
  if (entries.some((e) => relatesMost(e.evaluation.relatedRan))) return undefined;
  const last = entries[entries.length - 1];
  if (!last || last.evaluation.partial || !last.evaluation.commands.test || last.evaluation.commands.test.skipped) return undefined;
  const full = rawTests(last.evaluation);
  if (!full || full.passed === null || full.failed !== 0 || full.units || full.notRun?.length) return undefined;
  const files = [...new Set(changedFiles)];
  const cmd = selection.command(files);
  if (!cmd) return undefined;
  return { cmd, names: [], since: last.step, full, runner: selection.runner.name, related: files };
}
