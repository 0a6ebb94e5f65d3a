import { z } from "zod";
import type { Evaluation } from "../evaluate/evaluate.js";
import { fmt } from "../evaluate/score.js";
import { shortRef } from "../git/refs.js";
import { bestOffHistoryNote as offHistoryNote, testsTrailer } from "../session/record.js";
import type { Session } from "../session/session.js";
import { truncate } from "../util/text.js";

/**
 * Structured views of session objects, shared by the tools (and the command line), each beside the
 * output schema that declares it to clients: a view and its schema change together. A piece of output
 * only one tool returns is declared in that tool's module instead.
 */

export const testsOut = z
  .object({
    passed: z.number().nullable(),
    failed: z.number().nullable(),
    skipped: z.number().nullable(),
    total: z.number().nullable(),
    format: z.string(),
    failures: z.array(
      z.object({
        name: z.string(),
        message: z.string().optional(),
        file: z.string().optional(),
        line: z.number().optional(),
        introducedAtStep: z.number().optional(),
      }),
    ),
  })
  .nullable();

const commandOut = z.object({
  kind: z.string(),
  cmd: z.string(),
  ok: z.boolean(),
  exitCode: z.number().nullable(),
  timedOut: z.boolean(),
  skipped: z.string().optional(),
  durationMs: z.number(),
});

/** What a step's commands showed, in an evaluation (evaluationView) and in a submit's answer alike. */
export const verdictOut = {
  okBuild: z.boolean().optional(),
  okLint: z.boolean().optional(),
  tests: testsOut.optional(),
  partial: z.boolean().optional(),
  ran: z.string().optional(),
  perf: z.object({ value: z.number().nullable(), score: z.number() }).optional(),
};

export const evaluationOut = z.object({
  score: z.number(),
  ...verdictOut,
  commands: z.array(commandOut),
  notices: z.array(z.string()),
});

export function evaluationView(ev: Evaluation) {
  return {
    score: ev.score,
    ...(ev.okBuild !== undefined ? { okBuild: ev.okBuild } : {}),
    ...(ev.okLint !== undefined ? { okLint: ev.okLint } : {}),
    ...(ev.tests !== undefined ? { tests: testsView(ev.tests) } : {}),
    ...partialView(ev),
    ...(ev.perf ? { perf: ev.perf } : {}),
    // Insertion order is evaluation order: build, test, lint, checks, bench.
    commands: Object.entries(ev.commands).flatMap(([kind, c]) => {
      if (!c) return [];
      return [
        {
          kind,
          cmd: c.cmd,
          ok: !c.skipped && c.exitCode === 0 && !c.timedOut,
          exitCode: c.exitCode,
          timedOut: c.timedOut,
          ...(c.skipped ? { skipped: c.skipped } : {}),
          durationMs: c.durationMs,
        },
      ];
    }),
    notices: ev.notices,
  };
}

/** A step judged by the tests that failed before alone (failing-first.ts): how many of the suite ran. */
export function partialView(ev: Evaluation): { partial?: true; ran?: string } {
  return ev.partial ? { partial: true, ran: `${ev.partial.ran} of ${ev.partial.of}` } : {};
}

/** Test counts as tools report them: the list of every test's name and each failure's test file stay in the stored record only. */
export function testsView<T extends Evaluation["tests"]>(tests: T): T {
  const shown = tests?.failures.some((f) => f.testFile) ? { ...tests, failures: tests.failures.map(({ testFile: _file, ...f }) => f) } : tests;
  if (!shown?.cases && !shown?.notRun) return shown as T;
  const { cases: _cases, notRun: _notRun, ...rest } = shown;
  return rest as T;
}

export const historyItemOut = z.object({
  step: z.number(),
  commit: z.string(),
  score: z.number(),
  tests: z.string(),
  build: z.string(),
  rationale: z.string(),
  testFiles: z.array(z.string()).optional(),
});

export function historyView(s: Session, max = 20) {
  return s.entries.slice(-max).map((e) => ({
    step: e.step,
    commit: e.commit.slice(0, 12),
    score: e.evaluation.score,
    tests: testsTrailer(e.evaluation),
    build: e.evaluation.okBuild === undefined ? "skip" : e.evaluation.okBuild ? "ok" : "fail",
    rationale: truncate(e.step === 0 ? "(baseline preflight)" : (e.note?.rationale.split("\n")[0] ?? ""), 100),
    ...(e.note?.testFiles?.length ? { testFiles: e.note.testFiles.map((t) => `${t.path} (${t.change})`) } : {}),
  }));
}

/** The running figures of a session (figuresView). */
export const figuresOut = {
  step: z.number(),
  score: z.number().nullable(),
  emaScore: z.number().nullable(),
  bestScore: z.number().nullable(),
  bestStep: z.number().nullable(),
  noImproveStreak: z.number(),
  commit: z.string(),
};

/** The running figures of a session, as every tool and the command line report them. */
export function figuresView(s: Session) {
  const p = s.progress();
  return {
    step: s.currentStep,
    score: p?.score ?? null,
    emaScore: p?.ema ?? null,
    // The session's best ever evaluated (the streak follows the current history).
    bestScore: s.best?.score ?? p?.bestScore ?? null,
    bestStep: s.best?.step ?? p?.bestStep ?? null,
    noImproveStreak: p?.noImproveStreak ?? 0,
    commit: s.tip,
  };
}

/** " (not on the current history: ...)" when the session's best was left behind by an undo, restore or reset. */
export function bestOffHistoryNote(s: Session): string {
  return offHistoryNote(s.id, s.best);
}

export function stateView(s: Session) {
  const halt = s.halt();
  const last = s.entries[s.entries.length - 1];
  return {
    sessionId: s.id,
    branch: shortRef(s.refs.branch),
    status: s.status,
    worktreePath: s.worktree,
    ...figuresView(s),
    last: last ? { step: last.step, ...evaluationView(last.evaluation) } : null,
    zNotes: s.zNotes(),
    shouldHalt: halt.shouldHalt,
    reasons: halt.reasons,
    history: historyView(s),
  };
}

export function stateText(v: ReturnType<typeof stateView>, bestNote = ""): string {
  const lines = [
    `session ${v.sessionId} (${v.status}) on ${v.branch}: step ${v.step}, score ${v.score === null ? "-" : fmt(v.score)}, ema ${v.emaScore === null ? "-" : fmt(v.emaScore)}, best ${v.bestScore === null ? "-" : `${fmt(v.bestScore)} at step ${v.bestStep}${bestNote}`}, streak ${v.noImproveStreak}`,
    ...v.history.map(
      (h) =>
        `  ${String(h.step).padStart(3)} ${h.commit.slice(0, 8)} ${fmt(h.score)}${h.tests === "skip" ? "" : ` tests ${h.tests}`}${h.build === "skip" ? "" : ` build ${h.build}`}  ${h.rationale}${h.testFiles ? ` [changed tests: ${h.testFiles.join(", ")}]` : ""}`,
    ),
    `halt: ${v.shouldHalt ? "STOP" : "continue"}: ${v.reasons.join("; ")}`,
  ];
  if (v.zNotes) lines.push(`zNotes: ${truncate(v.zNotes, 500)}`);
  return lines.join("\n");
}

/** One line of a session listing (summaryLine). */
export const sessionSummaryOut = z.object({
  sessionId: z.string(),
  branch: z.string(),
  status: z.string(),
  step: z.number(),
  score: z.number().nullable(),
  bestScore: z.number().nullable(),
  tests: z.string().nullable(),
  createdAt: z.string(),
  worktreePath: z.string().nullable(),
});

/** One line of a session listing (trm_list_sessions, `code-trm sessions`). */
export function summaryLine(s: Session) {
  const p = s.progress();
  const last = s.entries[s.entries.length - 1];
  return {
    sessionId: s.id,
    branch: shortRef(s.refs.branch),
    status: s.status,
    step: s.currentStep,
    score: p?.score ?? null,
    bestScore: s.best?.score ?? p?.bestScore ?? null,
    tests: last ? testsTrailer(last.evaluation) : null,
    createdAt: s.config.createdAt,
    // An ended (or abandoned) session's worktree is gone: no path to a folder that does not exist.
    worktreePath: s.status === "active" ? s.worktree : null,
  };
}
