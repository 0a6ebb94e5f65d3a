import type { CommandKind, Evaluation } from "../evaluate/evaluate.js";
import { correlateDiagnostics, correlateFailures } from "../evaluate/feedback.js";
import { parseDiagnostics } from "../evaluate/parsers/index.js";
import { hintFromCommand } from "../evaluate/runner-hint.js";
import { bestPerf, fmt, type PerfDirection } from "../evaluate/score.js";
import type { Diagnostic } from "../evaluate/types.js";
import { firstLine, truncate } from "../util/text.js";
import type { Priority, Suggestion } from "./types.js";

/**
 * Suggestions read from the session's recorded evaluations alone (pure: no command, no file): build
 * errors, new and old test failures, lint problems, regressions of score and perf against the best
 * step, and environment notices.
 */

export interface Point {
  step: number;
  evaluation: Evaluation;
}

export interface EvaluationInput {
  /** Evaluated points of the current history, oldest first; the last one is judged. */
  entries: Point[];
  /** The step with the best score (the session's `bestEntry()`). */
  best?: Point;
  perfDirection: PerfDirection;
  /** The worktree the commands ran in (real path), so re-parsed outputs read as they did then. */
  cwd?: string;
  /** For the trm_read_log arguments a suggestion prints. */
  sessionId?: string;
}

/** A regression is a drop of more than this fraction from the best step. */
export const REGRESSION_FRACTION = 0.1;

const MAX_MESSAGE = 300;

type DiagKind = Exclude<CommandKind, "bench">;

/** Identity of a diagnostic across two parses of the same output; the file is left out because paths are made relative per cwd. */
const diagKey = (d: Diagnostic) => [d.source, d.line ?? "", d.column ?? "", d.code ?? "", d.message].join("\u0000");

const LINT_SOURCES = new Set(["eslint", "xo", "flake8", "pylint", "mypy"]);
const BUILD_SOURCES = new Set(["tsc", "go", "rustc"]);

/**
 * Which command reported each diagnostic: recorded on the diagnostic itself. Records written before
 * that field existed are classified by parsing each failed command's stored output again; a
 * diagnostic whose output was capped away falls back to what its tool usually is.
 */
export function classifyDiagnostics(ev: Evaluation, cwd = "/"): Map<Diagnostic, DiagKind> {
  const out = new Map<Diagnostic, DiagKind>();
  const isKind = (c: string | undefined): c is DiagKind => c === "build" || c === "lint" || c === "test";
  if (ev.diagnostics.every((d) => d.command !== undefined)) {
    // Diagnostics of extra checks are reported with the check itself (checkSuggestions).
    for (const d of ev.diagnostics) if (isKind(d.command)) out.set(d, d.command);
    return out;
  }
  const keysBy = new Map<DiagKind, Set<string>>();
  for (const kind of ["build", "lint", "test"] as const) {
    const rec = ev.commands[kind];
    if (!rec || rec.skipped || rec.output === "") continue;
    keysBy.set(kind, new Set(parseDiagnostics(rec.output, { cwd }).map(diagKey)));
  }
  for (const d of ev.diagnostics) {
    const k = diagKey(d);
    const found = (["build", "lint", "test"] as const).find((kind) => keysBy.get(kind)?.has(k));
    out.set(d, found ?? (LINT_SOURCES.has(d.source) ? "lint" : BUILD_SOURCES.has(d.source) ? "build" : "test"));
  }
  return out;
}

function where(d: { file?: string; line?: number }): string {
  return d.file ? `${d.file}${d.line ? `:${d.line}` : ""}` : "";
}

/** What to do about a compiler error, by code; the generic advice is the fallback. */
function buildAction(d: Diagnostic): string {
  const code = d.code ?? "";
  if (/^TS(2304|2552|2551|2339|2305|2724)$/.test(code))
    return "Import or declare the missing name, or correct its spelling; trm_suggest_fix may have the exact edit.";
  if (/^TS(7006|7005|7031|7034|7019)$/.test(code)) return "Give it an explicit type (trm_suggest_fix can infer one from usage).";
  if (/^TS(2322|2345|2741|2739|2740|2769)$/.test(code)) return "Make the value match the declared type, or change the declaration if the value is right.";
  if (/^TS(2307|2834|2835|2792)$/.test(code)) return "Fix the import path (NodeNext ESM needs the .js extension on relative imports) or add the dependency.";
  if (/^TS(2554|2555)$/.test(code)) return "Pass the number of arguments the function declares.";
  if (/^TS(2367|2365)$/.test(code)) return "Compare values of compatible types.";
  if (/^TS(6133|6196)$/.test(code)) return "Remove the unused declaration or use it.";
  return `Fix this ${d.source} error${d.file ? ` in ${d.file}` : ""}.`;
}

function lintAction(d: Diagnostic): string {
  return `Fix ${d.code ? `rule ${d.code}` : "this lint problem"}${d.file ? ` in ${d.file}` : ""}${d.source === "eslint" ? "; trm_suggest_fix runs eslint --fix where the rule is fixable" : ""}.`;
}

/**
 * One suggestion per distinct problem: the same code and message at several places (a missing name
 * used five times) is one thing to fix, listed with its other locations.
 */
function groupDiagnostics(ds: { d: Diagnostic; since: number }[], make: (d: Diagnostic, since: number, extra: string) => Suggestion): Suggestion[] {
  const groups = new Map<string, { d: Diagnostic; since: number }[]>();
  for (const x of ds) {
    const k = `${x.d.source}\u0000${x.d.code ?? ""}\u0000${x.d.message}`;
    const g = groups.get(k);
    if (g) g.push(x);
    else groups.set(k, [x]);
  }
  return [...groups.values()].map((g) => {
    const others = g
      .slice(1)
      .map((x) => where(x.d))
      .filter(Boolean);
    const extra = others.length ? ` (also at ${others.slice(0, 3).join(", ")}${others.length > 3 ? `, +${others.length - 3} more` : ""})` : "";
    return make(g[0]!.d, Math.min(...g.map((x) => x.since)), extra);
  });
}

function tail(output: string, lines = 3): string {
  return truncate(
    output
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .slice(-lines)
      .join(" | "),
    MAX_MESSAGE,
  );
}

function commandFailure(ev: Evaluation, kind: CommandKind): string {
  const rec = ev.commands[kind];
  if (!rec) return "";
  const how = rec.timedOut ? "timed out" : `exited ${rec.exitCode ?? "abnormally"}`;
  const out = tail(rec.output);
  return `${kind} command ${how}${out ? `: ${out}` : ""}`;
}

function diagnosticSuggestions(last: Point, earlier: Point[], cwd: string | undefined): Suggestion[] {
  const ev = last.evaluation;
  const kinds = classifyDiagnostics(ev, cwd);
  const since = new Map(correlateDiagnostics(ev, last.step, earlier).map((c) => [c.item, c.introducedAtStep]));
  const of = (kind: DiagKind) => ev.diagnostics.filter((d) => kinds.get(d) === kind).map((d) => ({ d, since: since.get(d) ?? last.step }));
  const out: Suggestion[] = [];

  if (ev.okBuild === false) {
    const build = of("build").filter((x) => x.d.severity === "error");
    out.push(
      ...groupDiagnostics(build, (d, at, extra) => ({
        priority: "critical",
        category: "build",
        message: truncate(`${d.code ? `${d.code} ` : ""}${firstLine(d.message)}${extra}${at < last.step ? ` (since step ${at})` : ""}`, MAX_MESSAGE),
        ...(d.file ? { file: d.file } : {}),
        ...(d.line ? { line: d.line } : {}),
        action: buildAction(d),
      })),
    );
    if (build.length === 0) {
      out.push({
        priority: "critical",
        category: "build",
        message: commandFailure(ev, "build") || "build failed",
        action: "Read the build output (trm_read_log) and fix the first error it reports.",
      });
    }
  }

  if (ev.okLint === false) {
    const lint = of("lint");
    out.push(
      ...groupDiagnostics(lint, (d, at, extra) => ({
        priority: d.severity === "error" ? "medium" : "low",
        category: "lint",
        message: truncate(`${d.code ? `${d.code}: ` : ""}${firstLine(d.message)}${extra}${at < last.step ? ` (since step ${at})` : ""}`, MAX_MESSAGE),
        ...(d.file ? { file: d.file } : {}),
        ...(d.line ? { line: d.line } : {}),
        action: lintAction(d),
      })),
    );
    if (lint.length === 0) {
      out.push({
        priority: "medium",
        category: "lint",
        message: commandFailure(ev, "lint") || "lint failed",
        action: "Read the lint output and fix what it reports.",
      });
    }
  }
  return out;
}

function testSuggestions(last: Point, earlier: Point[], sessionId: string | undefined): Suggestion[] {
  const ev = last.evaluation;
  const rec = ev.commands.test;
  if (!rec || rec.skipped) return [];
  if (ev.tests === null) {
    return [
      {
        priority: "high",
        category: "test",
        message: `could not read test results (${commandFailure(ev, "test") || "no output"})`,
        action: `Make the test command print a format code-trm reads (${hintFromCommand(rec.cmd) ?? "TAP, JUnit XML with testReport, or the runner's JSON reporter"}), or check that it runs at all; until then the test score follows the exit code.`,
      },
    ];
  }
  const failures = correlateFailures(ev, last.step, earlier);
  // Failures with the same cause (message) at the same place are one thing to fix: one item with a count.
  const groups = new Map<string, typeof failures>();
  for (const c of failures) {
    const f = c.item;
    const key =
      f.message || f.file ? `${firstLine(f.message ?? "")}\u0000${f.file ?? ""}:${f.line ?? ""}\u0000${c.introducedAtStep === last.step}` : `\u0001${f.name}`;
    const g = groups.get(key);
    if (g) g.push(c);
    else groups.set(key, [c]);
  }
  return [...groups.values()].map((group): Suggestion => {
    const { item: f, introducedAtStep } = group[0]!;
    const isNew = introducedAtStep === last.step;
    const priority: Priority = isNew ? "high" : "medium";
    const since = isNew ? (earlier.length ? ` (new at step ${last.step})` : "") : ` (since step ${introducedAtStep})`;
    const where = f.file ? ` at ${f.file}${f.line ? `:${f.line}` : ""}` : "";
    const names = `${group
      .slice(0, 3)
      .map((g) => g.item.name)
      .join(", ")}${group.length > 3 ? ", …" : ""}`;
    const msg =
      group.length > 1
        ? `${group.length} tests fail${since} with one cause${where}: ${firstLine(f.message ?? "") || "(no message)"} (${names})`
        : `test fails${since}: ${f.name}${f.message ? ` — ${firstLine(f.message)}` : ""}`;
    const unread =
      !f.message && !f.file
        ? ` No message or place was printed: read the output with trm_read_log ${JSON.stringify({ ...(sessionId ? { sessionId } : {}), at: String(last.step), command: "test" })}.`
        : "";
    return {
      priority,
      category: "test",
      message: truncate(msg, MAX_MESSAGE),
      ...(f.file ? { file: f.file } : {}),
      ...(f.line ? { line: f.line } : {}),
      action:
        (isNew && earlier.length
          ? `Step ${last.step} broke it: compare with the previous step (trm_diff) and fix the code it changed, or trm_undo.`
          : group.length > 1
            ? `Fix the shared cause${where || " (see the message)"}; all ${group.length} should pass together (fix the code, not the tests).`
            : "Make the code satisfy this test's assertion (fix the code, not the test).") + unread,
    };
  });
}

function regressionSuggestions(input: EvaluationInput): Suggestion[] {
  const last = input.entries[input.entries.length - 1]!;
  const earlier = input.entries.slice(0, -1);
  const out: Suggestion[] = [];
  const best = input.best;
  if (best && best.step !== last.step) {
    const b = best.evaluation.score;
    const s = last.evaluation.score;
    if (b > 0 && (b - s) / b > REGRESSION_FRACTION) {
      out.push({
        priority: "high",
        category: "regression",
        message: `score ${fmt(s)} is ${Math.round(((b - s) / b) * 100)}% below the best, ${fmt(b)} at step ${best.step}`,
        action: `See what changed since the best step (trm_diff from step ${best.step}); keep the fix and revert the rest, or trm_undo.`,
      });
    }
  }
  const cur = last.evaluation.perf?.value;
  const prevValues = earlier.map((e) => e.evaluation.perf?.value ?? undefined);
  const bestValue = bestPerf(prevValues, input.perfDirection);
  if (cur !== undefined && cur !== null && bestValue !== undefined) {
    const worse = input.perfDirection === "lower" ? (bestValue > 0 ? (cur - bestValue) / bestValue : 0) : bestValue > 0 ? (bestValue - cur) / bestValue : 0;
    if (worse > REGRESSION_FRACTION) {
      const at = earlier.find((e) => e.evaluation.perf?.value === bestValue)?.step;
      out.push({
        priority: "high",
        category: "perf",
        message: `bench ${cur} is ${Math.round(worse * 100)}% ${input.perfDirection === "lower" ? "slower" : "lower"} than the best, ${bestValue}${at !== undefined ? ` at step ${at}` : ""}`,
        action: `Find the costly change since step ${at ?? "the best"} (trm_diff) and restore the faster approach.`,
      });
    }
  }
  const bench = last.evaluation.commands.bench;
  if (bench && !bench.skipped && last.evaluation.perf?.value === null) {
    out.push({
      priority: "medium",
      category: "perf",
      message: `no benchmark number read (${commandFailure(last.evaluation, "bench") || "no output"})`,
      action: 'Make the bench command exit 0 and print the number last (or JSON {"value": n}).',
    });
  }
  return out;
}

/** A failed extra check (security scan, data quality, coverage gate) costs its weight in the score. */
function checkSuggestions(ev: Evaluation): Suggestion[] {
  return Object.entries(ev.checks ?? {})
    .filter(([, ok]) => !ok)
    .map(([name]): Suggestion => {
      const rec = ev.commands[`check:${name}`];
      const how = rec?.timedOut ? "timed out" : `exited ${rec?.exitCode ?? "abnormally"}`;
      const out = rec ? tail(rec.output) : "";
      return {
        priority: "high",
        category: "check",
        message: truncate(`check ${name} ${how}${out ? `: ${out}` : ""}`, MAX_MESSAGE),
        action: `Make the check pass; its full output: trm_read_log with command "check:${name}".`,
      };
    });
}

function noticeSuggestions(ev: Evaluation): Suggestion[] {
  return ev.notices
    .filter((n) => n !== "this commit has no evaluation record")
    .map(
      (n): Suggestion => ({
        priority: /^Dependencies not installed/.test(n) ? "critical" : /timed out/.test(n) ? "high" : "medium",
        category: "environment",
        message: truncate(n, MAX_MESSAGE),
        action: /timed out/.test(n)
          ? "Make the command faster or raise timeoutSec when starting the session."
          : "Fix the environment first: until then failures say little about the code.",
      }),
    );
}

/** Every suggestion the recorded evaluations support, in producer order (rank them with rankSuggestions). */
export function suggestionsFromEvaluations(input: EvaluationInput): Suggestion[] {
  const last = input.entries[input.entries.length - 1];
  if (!last) return [];
  const earlier = input.entries.slice(0, -1);
  return [
    ...noticeSuggestions(last.evaluation),
    ...diagnosticSuggestions(last, earlier, input.cwd),
    ...testSuggestions(last, earlier, input.sessionId),
    ...checkSuggestions(last.evaluation),
    ...regressionSuggestions(input),
  ];
}
