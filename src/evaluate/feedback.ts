import type { Evaluation } from "./evaluate.js";
import type { HaltDecision, Progress } from "./score.js";
import { fmt } from "./score.js";
import type { Diagnostic, TestFailure } from "./types.js";
import { capHeadTail, truncate } from "../util/text.js";
import { LIMITS } from "../util/limits.js";
import { KNOWN_TEST_FORMATS } from "./parsers/index.js";

export interface Correlated<T> {
  item: T;
  /** The step at which this problem first appeared in the current unbroken run of steps that show it. */
  introducedAtStep: number;
}

// Line numbers shift as code is edited above a problem, so identity ignores them.
const diagKey = (d: Diagnostic) => `${d.file ?? ""}|${d.code ?? ""}|${d.message}`;
const failKey = (f: TestFailure) => f.name;

/**
 * Says for each current problem at which step it first appeared, by walking back through earlier
 * evaluations while they still show it. A regression thereby names the candidate that caused it.
 */
export function correlate<T>(current: T[], step: number, earlier: { step: number; items: T[] }[], key: (t: T) => string): Correlated<T>[] {
  const sets = earlier.map((e) => ({ step: e.step, keys: new Set(e.items.map(key)) }));
  return current.map((item) => {
    const k = key(item);
    let at = step;
    for (let i = sets.length - 1; i >= 0; i--) {
      if (!sets[i]!.keys.has(k)) break;
      at = sets[i]!.step;
    }
    return { item, introducedAtStep: at };
  });
}

export function correlateDiagnostics(ev: Evaluation, step: number, earlier: { step: number; evaluation: Evaluation }[]) {
  return correlate(ev.diagnostics, step, earlier.map((e) => ({ step: e.step, items: e.evaluation.diagnostics })), diagKey);
}

export function correlateFailures(ev: Evaluation, step: number, earlier: { step: number; evaluation: Evaluation }[]) {
  return correlate(ev.tests?.failures ?? [], step, earlier.map((e) => ({ step: e.step, items: e.evaluation.tests?.failures ?? [] })), failKey);
}

const MAX_ITEMS = 12;

/**
 * The compact text an LLM reads after a step: the verdict first, then what to fix, most important
 * first (build errors, new test failures, older failures, lint), bounded in size with counts of what
 * was left out.
 */
export function renderFeedback(args: {
  step: number;
  ev: Evaluation;
  progress: Progress;
  halt: HaltDecision;
  diagnostics: Correlated<Diagnostic>[];
  failures: Correlated<TestFailure>[];
  cachedFrom?: string;
}): string {
  const { step, ev, progress: p, halt } = args;
  const lines: string[] = [];
  lines.push(
    `step ${step}: score ${fmt(p.score)} (best ${fmt(p.bestScore)} at step ${p.bestStep}, ema ${fmt(p.ema)}) ${p.improved ? "improved" : `not improved, streak ${p.noImproveStreak}`}${args.cachedFrom ? `; evaluation reused from ${args.cachedFrom.slice(0, 12)} (same tree and commands)` : ""}`,
  );
  const sig: string[] = [];
  const c = ev.commands;
  if (c.build) sig.push(`build ${c.build.skipped ? "skipped" : ev.okBuild ? "ok" : c.build.timedOut ? "TIMED OUT" : "FAILED"}`);
  if (c.test) {
    if (c.test.skipped) sig.push(`tests skipped (${c.test.skipped})`);
    else if (!ev.tests) sig.push("tests UNREADABLE");
    else sig.push(`tests ${ev.tests.passed}/${ev.tests.total} passed${ev.tests.failed ? `, ${ev.tests.failed} failed` : ""}${ev.tests.skipped ? `, ${ev.tests.skipped} skipped` : ""}`);
  }
  if (c.lint) sig.push(`lint ${ev.okLint ? "ok" : "FAILED"}`);
  if (c.bench) sig.push(c.bench.skipped ? "bench skipped" : `bench ${ev.perf?.value ?? "UNREADABLE"} (perf score ${fmt(ev.perf?.score ?? 0)})`);
  lines.push(sig.join(" · "));
  for (const n of ev.notices) lines.push(`note: ${n}`);
  if (c.test && !c.test.skipped && !ev.tests) {
    lines.push(`note: could not read test results from the test command's output (see the output excerpt); the test score is 0. Formats read: ${KNOWN_TEST_FORMATS.join("; ")}.`);
  }

  const build = args.diagnostics.filter((d) => d.item.severity === "error");
  const warn = args.diagnostics.filter((d) => d.item.severity !== "error");
  const newFails = args.failures.filter((f) => f.introducedAtStep === step);
  const oldFails = args.failures.filter((f) => f.introducedAtStep !== step);
  const section = <T>(title: string, items: Correlated<T>[], show: (t: Correlated<T>) => string) => {
    if (items.length === 0) return;
    lines.push(`${title} (${items.length}):`);
    for (const it of items.slice(0, MAX_ITEMS)) lines.push(`  - ${show(it)}`);
    if (items.length > MAX_ITEMS) lines.push(`  … ${items.length - MAX_ITEMS} more not shown`);
  };
  const since = (n: number) => (n === step ? "new" : `since step ${n}`);
  const showDiag = (d: Correlated<Diagnostic>) => {
    const loc = d.item.file ? `${d.item.file}${d.item.line ? `:${d.item.line}${d.item.column ? `:${d.item.column}` : ""}` : ""} ` : "";
    return `${loc}${d.item.code ? `${d.item.code} ` : ""}${truncate(d.item.message, 200)} [${since(d.introducedAtStep)}]`;
  };
  const showFail = (f: Correlated<TestFailure>) => {
    const loc = f.item.file ? ` (${f.item.file}${f.item.line ? `:${f.item.line}` : ""})` : "";
    return `${truncate(f.item.name, 120)}${f.item.message ? `: ${truncate(f.item.message.replace(/\s+/g, " "), 200)}` : ""}${loc} [${since(f.introducedAtStep)}]`;
  };
  section("errors", build, showDiag);
  section("new test failures", newFails, showFail);
  section("failing since earlier steps", oldFails, showFail);
  section("warnings", warn, showDiag);

  // When nothing could be parsed out of a failing command, its raw output is the only clue.
  const structured = args.diagnostics.length + args.failures.length;
  for (const kind of ["build", "test", "lint", "bench"] as const) {
    const rec = c[kind];
    if (!rec || rec.skipped || (rec.exitCode === 0 && !rec.timedOut)) continue;
    if (structured > 0 && kind !== "bench") continue;
    lines.push(`${kind} output (exit ${rec.exitCode ?? "killed"}):`);
    lines.push(capHeadTail(rec.output.trim(), LIMITS.maxFeedbackOutputChars).text);
  }
  lines.push(`halt: ${halt.shouldHalt ? "STOP" : "continue"}: ${halt.reasons.join("; ")}`);
  return lines.join("\n");
}
