import type { CommandKind, Evaluation } from "../../evaluate/evaluate.js";
import { foldProgress } from "../../evaluate/score.js";
import { git } from "../../git/cli.js";
import { shortRef } from "../../git/refs.js";
import { readNote } from "../../git/session-git.js";
import { figuresView } from "../../mcp/views.js";
import { listAlternatives } from "../../session/alternatives.js";
import { listCheckpoints } from "../../session/history.js";
import { type StepNote, testsTrailer } from "../../session/record.js";
import type { Session } from "../../session/session.js";
import { cliCommand } from "../../util/cli-name.js";
import { truncate } from "../../util/text.js";
import { expectPositionals, flagBool, flagString } from "../args.js";
import { type Command, type Io, printJson } from "../command.js";
import { checkId, findSession, latestSessionId } from "../find.js";
import { type Align, colorScore, fmtScore, printable, table } from "../format.js";

type CommandStatus = "ok" | "fail" | "timeout" | "skip" | null;

/** null when the session has no such command; "skip" when the cascade skipped it. */
function commandStatus(ev: Evaluation, kind: CommandKind): CommandStatus {
  const c = ev.commands[kind];
  if (!c) return null;
  if (c.skipped) return "skip";
  if (c.timedOut) return "timeout";
  return c.exitCode === 0 ? "ok" : "fail";
}

export interface KeptWork {
  kind: "undone" | "superseded";
  ref: string;
  commit: string;
  step: number | null;
  score: number | null;
  subject: string;
  /** Commits of that line of work that are not on the session's current history. */
  stepsOffHistory: number;
}

/** Work an undo or a restore left behind, kept reachable under refs/trm/<id>/undone|superseded/. */
async function keptWork(s: Session): Promise<KeptWork[]> {
  const prefixes = [`${s.refs.keepPrefix}undone/`, `${s.refs.keepPrefix}superseded/`];
  const out = await git(s.config.commonDir, ["for-each-ref", "--sort=creatordate", "--format=%(refname)%00%(objectname)%00%(contents:subject)", ...prefixes]);
  const list: KeptWork[] = [];
  for (const line of out.split("\n").filter(Boolean)) {
    const [ref, commit, subject] = line.split("\0") as [string, string, string];
    const note = await readNote<StepNote>(s.config.commonDir, s.refs.notes, commit);
    const off = Number((await git(s.config.commonDir, ["rev-list", "--count", "--first-parent", commit, `^${s.tip}`, "--"])).trim());
    list.push({
      kind: ref.startsWith(prefixes[0]!) ? "undone" : "superseded",
      ref: ref.replace(/^refs\//, ""),
      commit,
      step: note?.kind === "step" ? note.step : null,
      score: note?.kind === "step" ? note.score : null,
      subject,
      stepsOffHistory: off,
    });
  }
  return list;
}

/** The session's history as data: one row per step of the current history with its evaluation. */
export async function logView(s: Session) {
  const alpha = s.config.emaAlpha;
  const scored = s.entries.map((e) => ({ step: e.step, score: e.evaluation.score, testsPass: e.evaluation.testsPass }));
  const best = s.best;
  const steps = s.entries.map((e, i) => {
    // Folding each prefix gives the figures the session had at that step, even after undo or restore.
    const p = foldProgress(scored.slice(0, i + 1), alpha)!;
    const ev = e.evaluation;
    return {
      step: e.step,
      commit: e.commit,
      score: ev.score,
      ema: p.ema,
      improved: p.improved,
      best: best?.commit === e.commit,
      tests: ev.tests ? { passed: ev.tests.passed, failed: ev.tests.failed, skipped: ev.tests.skipped, total: ev.tests.total } : null,
      testsSummary: ev.commands.test ? testsTrailer(ev) : null,
      build: commandStatus(ev, "build"),
      lint: commandStatus(ev, "lint"),
      perf: ev.perf ? ev.perf.value : null,
      rationale: e.step === 0 ? "(baseline preflight)" : e.note ? (e.note.rationale.split("\n")[0] ?? "").trim() : "(no evaluation record)",
      at: e.note?.at ?? null,
      cachedFrom: e.note?.cachedFrom ?? null,
      evaluated: e.step === 0 || !!e.note,
      /** The candidates of the best-of-N batch that made this step, the chosen one included. */
      alternatives: undefined as AlternativeRow[] | undefined,
    };
  });
  const halt = s.halt();
  const checkpoints = await listCheckpoints(s);
  // A batch's candidates belong under the step they competed for: same step number, same parent.
  const alternatives = await listAlternatives(s);
  const parentOf = new Map(s.entries.map((e, i) => [e.step, i === 0 ? null : s.entries[i - 1]!.commit]));
  for (const st of steps) {
    const parent = parentOf.get(st.step) ?? s.baseline.commit;
    const mine = alternatives.filter((a) => a.step === st.step && st.step > 0 && (a.parent === parent || a.commit === st.commit));
    if (mine.length) {
      st.alternatives = mine.map((a) => ({
        at: a.at,
        commit: a.commit,
        chosen: a.commit === st.commit,
        score: a.note?.score ?? null,
        testsSummary: a.note?.evaluation.commands.test ? testsTrailer(a.note.evaluation) : null,
        build: a.note ? commandStatus(a.note.evaluation, "build") : null,
        rationale: a.note ? (a.note.rationale.split("\n")[0] ?? "").trim() : "(no evaluation record)",
      }));
    }
  }
  return {
    sessionId: s.id,
    branch: shortRef(s.refs.branch),
    status: s.status,
    createdAt: s.config.createdAt,
    commands: s.config.commands,
    baseline: { commit: s.baseline.commit, evaluated: !!s.preflight, uncommittedIncluded: s.config.uncommittedIncluded },
    ...figuresView(s),
    bestOnCurrentHistory: s.best?.onCurrentHistory ?? true,
    halt: { shouldHalt: halt.shouldHalt, reasons: halt.reasons },
    steps,
    checkpoints: checkpoints.map((c) => ({
      name: c.name,
      commit: c.commit,
      step: c.step,
      score: c.score,
      createdAt: c.createdAt,
      description: c.description,
      onCurrentHistory: c.onCurrentHistory,
    })),
    kept: await keptWork(s),
  };
}

type LogView = Awaited<ReturnType<typeof logView>>;

interface AlternativeRow {
  at: string;
  commit: string;
  chosen: boolean;
  score: number | null;
  testsSummary: string | null;
  build: CommandStatus;
  rationale: string;
}

function renderLog(v: LogView, io: Io): string {
  const p = io.paint;
  const threshold = 0.95;
  const cmdCell = (c: CommandStatus) => (c === "ok" ? p.green(c) : c === "fail" || c === "timeout" ? p.red(c) : p.dim(c ?? "-"));
  const has = { tests: !!v.commands.test, build: !!v.commands.build, lint: !!v.commands.lint, perf: !!v.commands.bench };
  const headers = [
    "STEP",
    "COMMIT",
    "SCORE",
    "EMA",
    ...(has.tests ? ["TESTS"] : []),
    ...(has.build ? ["BUILD"] : []),
    ...(has.lint ? ["LINT"] : []),
    ...(has.perf ? ["PERF"] : []),
    "RATIONALE",
  ];
  const align: Align[] = [
    "right",
    "left",
    "right",
    "right",
    ...(has.tests ? (["right"] as const) : []),
    ...(has.build ? (["left"] as const) : []),
    ...(has.lint ? (["left"] as const) : []),
    ...(has.perf ? (["right"] as const) : []),
    "left",
  ];
  // Newest first, as git log prints; a batch's candidates right under their step.
  const rows = [...v.steps]
    .reverse()
    .flatMap((st) => [
      [
        String(st.step),
        p.yellow(st.step === 0 ? "baseline" : st.commit.slice(0, 10)),
        colorScore(p, st.score, threshold),
        fmtScore(st.ema),
        ...(has.tests ? [st.testsSummary ?? "-"] : []),
        ...(has.build ? [cmdCell(st.build)] : []),
        ...(has.lint ? [cmdCell(st.lint)] : []),
        ...(has.perf ? [st.perf === null ? "-" : String(st.perf)] : []),
        `${truncate(printable(st.rationale), 72)}${st.cachedFrom ? p.dim(" (cached)") : ""}${st.best ? ` ${p.bold(p.green("<- best"))}` : ""}`,
      ],
      ...(st.alternatives ?? []).map((a) => [
        p.dim(`  ${a.at}`),
        p.dim(a.commit.slice(0, 10)),
        a.score === null ? p.dim("-") : colorScore(p, a.score, threshold),
        p.dim("-"),
        ...(has.tests ? [a.testsSummary ?? "-"] : []),
        ...(has.build ? [cmdCell(a.build)] : []),
        ...(has.lint ? [p.dim("-")] : []),
        ...(has.perf ? [p.dim("-")] : []),
        `${a.chosen ? "(chosen) " : ""}${truncate(printable(a.rationale), 64)}`,
      ]),
    ]);
  if (!v.baseline.evaluated) {
    rows.push(["0", p.yellow("baseline"), p.dim("-"), p.dim("-"), ...headers.slice(4, -1).map(() => p.dim("-")), p.dim("(baseline, not evaluated)")]);
  }
  const lines = [
    `${p.bold(`session ${v.sessionId}`)} (${v.status}) on ${v.branch}, baseline ${v.baseline.commit.slice(0, 10)}${v.baseline.uncommittedIncluded ? " (uncommitted work included)" : ""}`,
    `step ${v.step} · score ${fmtScore(v.score)} · ema ${fmtScore(v.emaScore)} · best ${v.bestScore === null ? "-" : `${fmtScore(v.bestScore)} at step ${v.bestStep}${v.bestOnCurrentHistory ? "" : ` (not on the current history; ${cliCommand()} apply --best brings it in)`}`} · streak ${v.noImproveStreak} · halt: ${v.halt.shouldHalt ? "stop" : "continue"} (${v.halt.reasons.join("; ")})`,
    "",
    table(headers, rows, align, p),
  ];
  if (v.checkpoints.length) {
    lines.push("", p.bold("checkpoints:"));
    for (const c of v.checkpoints) {
      lines.push(
        `  ${c.name}  step ${c.step ?? "?"}  score ${fmtScore(c.score)}  ${c.commit.slice(0, 10)}${c.onCurrentHistory ? "" : " (off the current history)"}${c.description ? `  ${truncate(printable(c.description), 60)}` : ""}`,
      );
    }
  }
  // A kept ref whose commits all came back onto the branch (a restore of the same point, a resubmit) is history, not lost work.
  const off = v.kept.filter((k) => k.stepsOffHistory > 0);
  if (off.length) {
    lines.push("", p.bold("undone / superseded work (kept reachable, not on the current history):"));
    for (const k of off) {
      const what = k.step === null ? printable(k.subject) : `step ${k.step}, score ${fmtScore(k.score)}`;
      lines.push(`  ${k.ref}  ${p.yellow(k.commit.slice(0, 10))}  ${what}${k.stepsOffHistory > 1 ? ` (${k.stepsOffHistory} steps)` : ""}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

export const logCommand: Command = {
  name: "log",
  summary: "a session's steps with scores, tests and rationale",
  usage: "code-trm log [id] [--repo <path>] [--json]",
  description: [
    "Shows the steps of a session's current history, newest first, like `git log --oneline` with the",
    "evaluation: score, EMA, test counts, build and lint results, bench value and the rationale. The best",
    "step is marked; the candidates of a best-of-N submit are listed under their step as <step>.<k>.",
    "Checkpoints, and work left behind by undo or restore (kept under",
    "refs/trm/<id>/undone/ and refs/trm/<id>/superseded/), are listed at the end.",
    "",
    "Without an id, the newest session of the repository (--repo, else the current one) is shown.",
    "The session is looked up in --repo, else in the repository of the current directory, else in the",
    "session index of your state directory.",
  ].join("\n"),
  options: {
    repo: { type: "string", value: "<path>", help: "repository of the session (default: the current one)" },
    json: { type: "boolean", help: "machine-readable output (stable keys)" },
  },
  async run(args, io) {
    const [given] = expectPositionals(args, 0, 1, "log", "[id]");
    // Without an id: the newest session of the repository.
    const id = given ?? (await latestSessionId(flagString(args, "repo"), io.cwd));
    const s = await findSession(checkId(id, "log"), flagString(args, "repo"), io.cwd);
    const v = await logView(s);
    if (flagBool(args, "json")) printJson(io, v);
    else io.out(renderLog(v, io));
    return 0;
  },
};
