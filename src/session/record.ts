import type { Evaluation } from "../evaluate/evaluate.js";
import type { SessionConfig } from "./config.js";

/** Note attached to the baseline commit: the session's durable configuration (and step 0 when preflight ran). */
export interface BaselineNote {
  v: 1;
  kind: "baseline";
  config: SessionConfig;
  preflight?: Evaluation;
}

/** Note attached to each step commit: the full evaluation record, machine-readable. */
export interface StepNote {
  v: 1;
  kind: "step";
  step: number;
  at: string;
  rationale: string;
  zNotes?: string;
  candidate: { mode: string; files: string[] };
  evaluation: Evaluation;
  /** Commit whose evaluation was reused because it had the same tree and commands. */
  cachedFrom?: string;
  score: number;
  ema: number;
  bestScore: number;
  improved: boolean;
  noImproveStreak: number;
}

/** One evaluated point of the session's history (step 0 = the baseline, present when preflight ran). */
export interface StepEntry {
  step: number;
  commit: string;
  tree: string;
  evaluation: Evaluation;
  note?: StepNote;
}

export function testsTrailer(ev: Evaluation): string {
  if (ev.tests === undefined) return "skip";
  if (ev.commands.test?.skipped) return "skip";
  if (ev.tests === null) return "unreadable";
  return `${ev.tests.passed ?? "?"}/${ev.tests.total ?? "?"}`;
}

function okTrailer(ok: boolean | undefined, skipped?: string): string {
  if (ok === undefined || skipped) return "skip";
  return ok ? "ok" : "fail";
}

/** The step commit message: the rationale for people, trailers for `git log --format=%(trailers)`. */
export function stepMessage(id: string, note: StepNote): string {
  const ev = note.evaluation;
  const first = (note.rationale.split("\n")[0] ?? "").trim();
  const subject = `trm step ${note.step}: ${first ? first.slice(0, 72) : `${note.candidate.mode} ${note.candidate.files.slice(0, 3).join(", ")}`}`;
  const body = note.rationale.trim() && note.rationale.trim() !== first ? `\n\n${note.rationale.trim()}` : "";
  const trailers = [
    `TRM-Session: ${id}`,
    `TRM-Step: ${note.step}`,
    `TRM-Score: ${note.score.toFixed(4)}`,
    `TRM-EMA: ${note.ema.toFixed(4)}`,
    `TRM-Best: ${note.bestScore.toFixed(4)}`,
    `TRM-Tests: ${testsTrailer(ev)}`,
    `TRM-Build: ${okTrailer(ev.okBuild)}`,
    `TRM-Lint: ${okTrailer(ev.okLint)}`,
    ...(ev.perf ? [`TRM-Perf: ${ev.perf.value ?? "unreadable"}`] : []),
    `TRM-Mode: ${note.candidate.mode}`,
    ...(note.cachedFrom ? [`TRM-Cached-From: ${note.cachedFrom}`] : []),
  ];
  return `${subject}${body}\n\n${trailers.join("\n")}\n`;
}
