import type { Evaluation } from "../evaluate/evaluate.js";
import type { SessionConfig } from "./config.js";
import type { TestFileChange } from "./test-files.js";

/** Note attached to the baseline commit: the session's durable configuration (and step 0 when preflight ran). */
export interface BaselineNote {
  v: 1;
  kind: "baseline";
  config: SessionConfig;
  preflight?: Evaluation;
}

/** Note attached to each step commit: the full evaluation record, machine-readable. */
/** " (not on the current history: ...)" when the session's best was left behind by an undo, restore or reset. */
export function bestOffHistoryNote(id: string, best: { commit: string; onCurrentHistory: boolean } | null): string {
  return best && !best.onCurrentHistory ? ` (not on the current history: tag trm/${id}/best, ${best.commit.slice(0, 12)})` : "";
}

export interface StepNote {
  v: 1;
  kind: "step";
  step: number;
  at: string;
  rationale: string;
  zNotes?: string;
  candidate: { mode: string; files: string[] };
  /** Test files the candidate added, modified or deleted (test-files.ts). */
  testFiles?: TestFileChange[];
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

/** Longest subject kept whole; a longer first line is cut at a word and the body carries it all. */
const SUBJECT_CHARS = 60;

function subjectOf(first: string): string {
  if (first.length <= SUBJECT_CHARS) return first;
  const cut = first.slice(0, SUBJECT_CHARS);
  const space = cut.lastIndexOf(" ");
  return `${(space > SUBJECT_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}...`;
}

/** A check's name as a trailer key may spell it (letters, digits and '-'). */
function trailerKey(name: string): string {
  return name.replace(/[^A-Za-z0-9-]+/g, "-").replace(/^-+|-+$/g, "") || "unnamed";
}

/**
 * The step commit message: a short subject, the whole rationale as the body (`git log` shows it in
 * full), and trailers for `git log --format=%(trailers)`. Commands the session does not run get no
 * trailer: "TRM-Build: skip" would say a build was skipped that does not exist.
 */
export function stepMessage(id: string, note: StepNote): string {
  const ev = note.evaluation;
  const rationale = note.rationale.trim();
  const first = (rationale.split("\n")[0] ?? "").trim();
  const subject = `trm step ${note.step}: ${first ? subjectOf(first) : `${note.candidate.mode} ${note.candidate.files.slice(0, 3).join(", ")}`}`;
  const body = rationale && rationale !== first.slice(0, SUBJECT_CHARS) ? `\n\n${rationale}` : "";
  const trailers = [
    `TRM-Session: ${id}`,
    `TRM-Step: ${note.step}`,
    `TRM-Score: ${note.score.toFixed(4)}`,
    `TRM-EMA: ${note.ema.toFixed(4)}`,
    `TRM-Best: ${note.bestScore.toFixed(4)}`,
    ...(ev.commands.test ? [`TRM-Tests: ${testsTrailer(ev)}`] : []),
    ...(ev.commands.build ? [`TRM-Build: ${okTrailer(ev.okBuild)}`] : []),
    ...(ev.commands.lint ? [`TRM-Lint: ${okTrailer(ev.okLint, ev.commands.lint.skipped)}`] : []),
    ...Object.entries(ev.checks ?? {}).map(
      ([name, ok]) => `TRM-Check-${trailerKey(name)}: ${ev.commands[`check:${name}`]?.skipped ? "skip" : ok ? "ok" : "fail"}`,
    ),
    ...(ev.perf ? [`TRM-Perf: ${ev.perf.value ?? "unreadable"}`] : []),
    `TRM-Mode: ${note.candidate.mode}`,
    ...(note.cachedFrom ? [`TRM-Cached-From: ${note.cachedFrom}`] : []),
  ];
  return `${subject}${body}\n\n${trailers.join("\n")}\n`;
}
