import { LIMITS } from "../util/limits.js";
import { capHeadTail, truncate } from "../util/text.js";
import type { Evaluation } from "./evaluate.js";
import { withoutPytestHeader } from "./parsers/tests/pytest.js";
import { formatsOf, runnerOfCommand } from "./runners/index.js";
import type { HaltDecision, Progress } from "./score.js";
import { fmt } from "./score.js";
import type { Diagnostic, TestCounts, TestFailure } from "./types.js";

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
  return correlate(
    ev.diagnostics,
    step,
    earlier.map((e) => ({ step: e.step, items: e.evaluation.diagnostics })),
    diagKey,
  );
}

export function correlateFailures(ev: Evaluation, step: number, earlier: { step: number; evaluation: Evaluation }[]) {
  return correlate(
    ev.tests?.failures ?? [],
    step,
    earlier.map((e) => ({ step: e.step, items: e.evaluation.tests?.failures ?? [] })),
    failKey,
  );
}

/**
 * The feedback text stays under this many characters however much the commands print. Paths and
 * code run at about 2.6 characters per o200k token, so this keeps it under 2,000 tokens (a test
 * measures it on 500 tsc errors). The full output stays readable with trm_read_log.
 */
export const FEEDBACK_BUDGET_CHARS = 4800;
const MAX_LOCATIONS = 6;

interface Group {
  head: Correlated<Diagnostic>;
  locations: string[];
}

/** `tests 3/5 passed, 2 failed`; a count the output did not show is `?`. */
export function testsLine(t: Pick<TestCounts, "passed" | "failed" | "skipped" | "total" | "units" | "testsRan">): string {
  const q = (n: number | null) => (n === null ? "?" : String(n));
  // Counts in the runner's units say so, beside how many tests they are of.
  const unit =
    t.units === "assertions"
      ? ` (assertions, as the runner counts them, in ${q(t.testsRan ?? null)} tests)`
      : t.units === "subtests"
        ? ` (failed subtests counted beside their tests, as the runner counts them; ${q(t.testsRan ?? null)} tests ran)`
        : "";
  return `tests ${q(t.passed)}/${q(t.total)} passed${t.failed ? `, ${t.failed} failed` : t.failed === null ? ", ? failed" : ""}${t.skipped ? `, ${t.skipped} skipped` : ""}${unit}`;
}

const loc = (d: Diagnostic) => (d.file ? `${d.file}${d.line ? `:${d.line}${d.column ? `:${d.column}` : ""}` : ""}` : "");

/** One line per distinct problem: the same code and message in many places is one thing to fix. */
export function groupDiagnostics(items: Correlated<Diagnostic>[]): Group[] {
  const groups = new Map<string, Group>();
  for (const it of items) {
    const k = `${it.item.code ?? ""}|${it.item.message}|${it.introducedAtStep}`;
    const g = groups.get(k);
    if (g) g.locations.push(loc(it.item));
    else groups.set(k, { head: it, locations: [loc(it.item)] });
  }
  return [...groups.values()];
}

/**
 * An excerpt's room belongs to the error and the failure summary, not to banners: pytest's session
 * header, the package manager's echo of the script it runs (`> pkg@1.0.0 test` / `> vitest run`) and
 * Vitest's ` RUN  v4.1.12 /path` line.
 */
export function withoutBanners(out: string): string {
  const lines = withoutPytestHeader(out).split("\n");
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (/^> \S+@\S+ [\w:.-]+(?: \/\S*)?$/.test(l.trim())) {
      if (/^> \S/.test(lines[i + 1]?.trim() ?? "")) i++;
      continue;
    }
    if (/^\s*RUN\s+v\d+\.\d+\.\d+\S*\s/.test(l)) continue;
    kept.push(l);
  }
  return kept.join("\n");
}

/** The command started (not 126 / 127: not found or not executable), finished in time and printed something. */
export const ranAndPrinted = (c: { exitCode: number | null; timedOut: boolean; output: string }): boolean =>
  c.exitCode !== 126 && c.exitCode !== 127 && !c.timedOut && c.output.trim() !== "";

/**
 * The compact text an LLM reads after a step: the verdict first, then what to fix, most important
 * first (build errors, new test failures, older failures, lint and checks, warnings), within a fixed
 * budget, with counts of what was left out.
 */
export function renderFeedback(args: {
  step: number;
  ev: Evaluation;
  progress: Progress;
  halt: HaltDecision;
  diagnostics: Correlated<Diagnostic>[];
  failures: Correlated<TestFailure>[];
  cachedFrom?: string;
  /** Statements about the step itself (not its evaluation), e.g. that it changed test files. */
  notes?: string[];
  /** The failing tests of the previous step: those now seen passing are listed as fixed, the others as no longer reported. */
  previousFailures?: TestFailure[];
  sessionId?: string;
  /** The session's best when it is not the current history's (kept across undo, restore and reset). */
  best?: { score: number; step: number; note: string };
}): string {
  const { step, ev, progress: p, halt } = args;
  const best = args.best ?? { score: p.bestScore, step: p.bestStep, note: "" };
  const head: string[] = [];
  head.push(
    `step ${step}: score ${fmt(p.score)} (best ${fmt(best.score)} at step ${best.step}${best.note}, ema ${fmt(p.ema)}) ${step === 0 ? "baseline" : p.improved ? "improved" : `not improved, streak ${p.noImproveStreak}`}${args.cachedFrom ? `; evaluation reused from ${args.cachedFrom.slice(0, 12)} (same tree and commands)` : ""}`,
  );
  const sig: string[] = [];
  for (const [key, c] of Object.entries(ev.commands)) {
    if (!c) continue;
    const failedWord = c.timedOut ? "TIMED OUT" : "FAILED";
    if (key === "test") {
      if (c.skipped) sig.push(`tests skipped (${c.skipped})`);
      else if (!ev.tests) sig.push(`tests UNREADABLE (exit ${c.exitCode ?? "killed"}: ${ev.testsPass ? "passing" : "failing"})`);
      else
        sig.push(
          `${testsLine(ev.tests)}${ev.tests.notRun?.length ? ` (not run: ${ev.tests.notRun.join(", ")})` : ""}${ev.partial ? ` (PARTIAL: ran ${ev.partial.ran} of ${ev.partial.of})` : ""}`,
        );
    } else if (key === "failingFirst") {
    } else if (key === "bench") {
      sig.push(c.skipped ? "bench skipped" : `bench ${ev.perf?.value ?? "UNREADABLE"} (perf score ${fmt(ev.perf?.score ?? 0)})`);
    } else {
      sig.push(`${key} ${c.skipped ? "skipped" : c.exitCode === 0 && !c.timedOut ? "ok" : failedWord}`);
    }
  }
  head.push(sig.join(" · "));
  for (const n of [...(args.notes ?? []), ...ev.notices]) head.push(`note: ${n}`);
  // The counts came from the quick gate when it failed and the full suite was skipped.
  const testKey = ev.commands.test?.skipped && ev.commands.quickTest ? "quickTest" : "test";
  const readLog = (command: string) => `trm_read_log ${JSON.stringify({ sessionId: args.sessionId ?? "<id>", at: String(step), command })}`;
  // Failing tests counted but none named: no failure line below can carry the pointer to the log.
  const unnamed = !!ev.tests && (ev.tests.failed ?? 0) > 0 && ev.tests.failures.length === 0;
  if (unnamed)
    head.push(
      `note: ${ev.tests!.failed} failing test${ev.tests!.failed === 1 ? "" : "s"} counted, but the output names none of them: read it with ${readLog(testKey)}`,
    );
  // The formats read, only when the runner's output was there and unreadable (not a command that could
  // not start, nor one killed by the timeout), and only the runner's own: every runner's list cost ~200 tokens.
  const tc = ev.commands.test;
  const runner = tc && !tc.skipped && !ev.tests && ranAndPrinted(tc) ? runnerOfCommand(tc.cmd) : undefined;
  if (runner) head.push(`note: ${runner.name} outputs read: ${formatsOf(runner)}.`);
  const tail = `halt: ${halt.shouldHalt ? "STOP" : "continue"}: ${halt.reasons.join("; ")}`;

  // At the baseline (step 0) nothing is new: every problem was there before any candidate.
  const since = (n: number) => (step === 0 ? "" : ` [${n === step ? "new" : `since step ${n}`}]`);
  const showGroup = (g: Group) => {
    const d = g.head.item;
    const where = g.locations.filter(Boolean);
    const places =
      where.length <= 1
        ? where[0]
          ? `${where[0]} `
          : ""
        : `${where.length} places: ${where.slice(0, MAX_LOCATIONS).join(", ")}${where.length > MAX_LOCATIONS ? ", …" : ""} — `;
    return `${places}${d.code ? `${d.code} ` : ""}${truncate(d.message.replace(/\s+/g, " "), 200)}${since(g.head.introducedAtStep)}`;
  };
  const showFail = (f: Correlated<TestFailure>) => {
    const l = f.item.file ? ` (${f.item.file}${f.item.line ? `:${f.item.line}` : ""})` : "";
    // Without a message or a place, the log is the only clue: say exactly how to read it.
    const read = !f.item.message || !f.item.file ? ` — ${readLog(testKey)}` : "";
    return `${truncate(f.item.name, 120)}${f.item.message ? `: ${truncate(f.item.message.replace(/\s+/g, " "), 200)}` : ""}${l}${since(f.introducedAtStep)}${read}`;
  };
  const nowFailing = new Set(args.failures.map((f) => f.item.name));
  // Fixed only when this output shows it passing: a test that stopped failing because it no longer ran
  // (a crash, a part of a chain skipped by &&, a deleted test, a reporter that names no passes) is not.
  const gone =
    ev.commands.test && !ev.commands.test.skipped && ev.tests
      ? (args.previousFailures ?? []).filter((f) => !nowFailing.has(f.name) && !f.name.startsWith("("))
      : [];
  const cases = ev.tests?.cases ?? [];
  const passing = new Set(cases.filter((c) => c.status === "passed" && !c.units?.failed).map((c) => c.name));
  // A failed part of a test (a subtest) is seen passing when its test is, with no failed part.
  const seen = (f: TestFailure) => passing.has(f.name) || (f.test !== undefined && passing.has(f.test));
  const fixed = gone.filter(seen);
  const unseen = gone.filter((f) => !seen(f));
  const t = ev.commands.test;
  const allPass = ev.testsPass && !!t && !t.skipped && t.exitCode === 0 && !t.timedOut && !!ev.tests && ev.tests.failed === 0 && (ev.tests.passed ?? 0) > 0;
  if (allPass && unseen.length > 0)
    head.push(`note: the suite passes; ${unseen.length} earlier failure${unseen.length === 1 ? " is" : "s are"} no longer named by the runner.`);
  const isBuild = (d: Correlated<Diagnostic>) => d.item.command === "build" || d.item.command === undefined;
  const errors = args.diagnostics.filter((d) => d.item.severity === "error");
  const sections: { title: string; lines: string[] }[] = [
    { title: "build errors", lines: groupDiagnostics(errors.filter(isBuild)).map(showGroup) },
    { title: step === 0 ? "failing at baseline" : "new test failures", lines: args.failures.filter((f) => f.introducedAtStep === step).map(showFail) },
    { title: "still failing", lines: args.failures.filter((f) => f.introducedAtStep !== step).map(showFail) },
    { title: "newly fixed", lines: fixed.map((f) => truncate(f.name, 120)) },
    // With the whole suite passing, tests that stopped failing are not a warning: the runner just names
    // no passing test (vitest's default reporter, pytest subtests without -v). A count in the head, no list.
    { title: "no longer reported, not seen passing", lines: allPass ? [] : unseen.map((f) => truncate(f.name, 120)) },
    { title: "errors from lint, tests and checks", lines: groupDiagnostics(errors.filter((d) => !isBuild(d))).map(showGroup) },
    { title: "warnings", lines: groupDiagnostics(args.diagnostics.filter((d) => d.item.severity !== "error")).map(showGroup) },
  ];

  // When nothing could be parsed out of a failing command, its raw output is the only clue, whatever the
  // other commands gave (at the camelcase baseline, AVA's named failures hid why "lint FAILED").
  // A made-up failure (a crash, a failing part of a chain) is not something parsed out of it.
  const own = (key: string) =>
    args.diagnostics.filter((d) => (d.item.command ?? "build") === key).length +
    (key === testKey ? args.failures.filter((f) => !f.item.name.startsWith("(")).length : 0);
  for (const [key, rec] of Object.entries(ev.commands)) {
    // The selected tests run before a whole suite (failing-first.ts): the whole suite's output speaks.
    if (!rec || rec.skipped || (rec.exitCode === 0 && !rec.timedOut) || key === "failingFirst") continue;
    if (own(key) > 0 && key !== "bench" && !key.startsWith("check:")) continue;
    sections.push({
      title: `${key} output (exit ${rec.exitCode ?? "killed"})`,
      lines: [capHeadTail(withoutBanners(rec.output).trim(), LIMITS.maxFeedbackOutputChars).text],
    });
  }

  let budget = FEEDBACK_BUDGET_CHARS - [...head, tail].join("\n").length;
  const body: string[] = [];
  let omitted = 0;
  for (const sec of sections) {
    if (sec.lines.length === 0) continue;
    const title = `${sec.title} (${sec.lines.length}):`;
    if (budget < title.length + 40) {
      omitted += sec.lines.length;
      continue;
    }
    body.push(title);
    budget -= title.length + 1;
    let shown = 0;
    for (const l of sec.lines) {
      const line = `  - ${l}`;
      if (line.length + 1 > budget - 60) break;
      body.push(line);
      budget -= line.length + 1;
      shown++;
    }
    if (shown < sec.lines.length) {
      const more = `  … ${sec.lines.length - shown} more not shown`;
      body.push(more);
      budget -= more.length + 1;
      omitted += sec.lines.length - shown;
    }
  }
  if (omitted > 0) body.push(`(${omitted} items left out to keep this short; trm_read_log has the full output)`);
  return [...head, ...body, tail].join("\n");
}
