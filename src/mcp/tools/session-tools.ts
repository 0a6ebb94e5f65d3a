import { z } from "zod";
import { fmt } from "../../evaluate/score.js";
import { shortRef } from "../../git/refs.js";
import type { SessionManager } from "../../session/manager.js";
import { cliCommand } from "../../util/cli-name.js";
import { shellQuote } from "../../util/text.js";
import { defineTool, READ_ONLY } from "../register.js";
import { bestOffHistoryNote, evaluationOut, figuresOut, historyItemOut, sessionSummaryOut, stateText, stateView, summaryLine } from "../views.js";
import { startSessionTool } from "./start-session.js";
import { submitCandidateTool } from "./submit-candidate.js";

const sessionId = z.string().describe("from trm_start_session");

export function sessionTools(sessions: SessionManager) {
  const getState = defineTool({
    name: "trm_get_state",
    description: "Session snapshot: step, score, EMA, best, streak, last evaluation, zNotes, compact history.",
    input: { sessionId },
    output: {
      sessionId: z.string(),
      branch: z.string(),
      status: z.string(),
      worktreePath: z.string(),
      ...figuresOut,
      last: evaluationOut.extend({ step: z.number() }).nullable(),
      zNotes: z.string(),
      shouldHalt: z.boolean(),
      reasons: z.array(z.string()),
      history: z.array(historyItemOut),
    },
    hints: READ_ONLY,
    async run(args) {
      const s = await sessions.get(args.sessionId);
      await s.refresh();
      const v = stateView(s);
      return { structured: v, text: stateText(v, bestOffHistoryNote(s)) };
    },
  });

  const shouldHalt = defineTool({
    name: "trm_should_halt",
    description: "Whether to stop refining (success, plateau or step limit), with reasons.",
    input: { sessionId },
    output: { shouldHalt: z.boolean(), reasons: z.array(z.string()), step: z.number() },
    hints: READ_ONLY,
    async run(args) {
      const s = await sessions.get(args.sessionId);
      const h = s.halt();
      return { structured: { ...h, step: s.currentStep }, text: `${h.shouldHalt ? "STOP" : "continue"}: ${h.reasons.join("; ")}` };
    },
  });

  const end = defineTool({
    name: "trm_end_session",
    description: "Remove the session worktree. Branch, tags and notes stay (unless discard: true) so the result can be merged.",
    input: { sessionId, discard: z.boolean().optional().describe("also delete branch, tags, notes") },
    output: {
      ok: z.boolean(),
      branch: z.string(),
      bestCommit: z.string().nullable(),
      bestStep: z.number().nullable(),
      discarded: z.boolean(),
      howToApply: z.array(z.string()),
    },
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args) {
      const s = await sessions.get(args.sessionId);
      const best = s.best;
      const offNote = bestOffHistoryNote(s);
      const branch = shortRef(s.refs.branch);
      await s.end(!!args.discard);
      sessions.forget(s.id);
      const howToApply = args.discard
        ? []
        : applyInstructions({
            id: s.id,
            branch,
            bestCommit: best?.commit ?? null,
            uncommittedIncluded: s.config.uncommittedIncluded,
            bestOffHistory: !!best && !best.onCurrentHistory,
            top: s.top,
          });
      const structured = { ok: true, branch, bestCommit: best?.commit ?? null, bestStep: best?.step ?? null, discarded: !!args.discard, howToApply };
      const text = args.discard
        ? `session ${s.id} ended; worktree, branch, tags and notes deleted.`
        : [
            `session ${s.id} ended; worktree removed; branch ${branch} kept${best ? ` (best: step ${best.step}, score ${fmt(best.score)}, ${best.commit.slice(0, 12)}${offNote})` : ""}.`,
            "to bring the result in:",
            ...howToApply.map((h) => `  ${h}`),
          ].join("\n");
      return { structured, text };
    },
  });

  const list = defineTool({
    name: "trm_list_sessions",
    description: "Sessions of a repository (active and ended), read from git; use after a server restart.",
    input: { repoPath: z.string().describe("absolute path of the checkout") },
    output: { sessions: z.array(sessionSummaryOut) },
    hints: READ_ONLY,
    async run(args) {
      const all = await sessions.list(args.repoPath);
      const rows = all.map((s) => summaryLine(s));
      const text = rows.length
        ? rows
            .map(
              (r) =>
                `${r.sessionId} ${r.status.padEnd(6)} step ${r.step} score ${r.score === null ? "-" : fmt(r.score)} best ${r.bestScore === null ? "-" : fmt(r.bestScore)} tests ${r.tests ?? "-"} ${r.branch}`,
            )
            .join("\n")
        : "no sessions in this repository";
      return { structured: { sessions: rows }, text };
    },
  });

  return [startSessionTool(sessions), submitCandidateTool(sessions), getState, shouldHalt, end, list];
}

/**
 * How to bring a session's result into the user's branch. `code-trm apply` comes first: it writes the
 * working tree only and refuses to overwrite uncommitted work. When the baseline carried uncommitted
 * work, a merge would also commit that work, so the git way is a diff of the session's own changes.
 */
export interface ApplyTarget {
  id: string;
  branch: string;
  bestCommit: string | null;
  /** The baseline carried the user's uncommitted work: a merge would commit it too. */
  uncommittedIncluded: boolean;
  /** The best step is not on the branch's current history (an undo, restore or reset left it). */
  bestOffHistory?: boolean;
  /** The user's checkout, named in every line so that each runs from any folder. */
  top?: string;
}

export function applyInstructions({ id, branch, bestCommit, uncommittedIncluded, bestOffHistory = false, top }: ApplyTarget): string[] {
  const base = `trm/${id}/baseline`;
  // Printed as it runs from the user's shell, from any folder: `code-trm` only when that name is on PATH,
  // and the checkout named (`--repo`, `git -C`).
  const cli = cliCommand();
  const repo = top ? ` --repo ${shellQuote(top)}` : "";
  const g = top ? `git -C ${shellQuote(top)}` : "git";
  const out = [`${cli} apply ${id}${repo}   # as uncommitted changes in your working tree (add --best for the best step)`];
  if (bestOffHistory) out.unshift(`${cli} apply ${id} --best${repo}   # the best step is not on the branch's current history: this brings it in`);
  if (uncommittedIncluded) {
    out.push(`${g} diff ${base} ${branch} | ${g} apply   # the same with git: the session's changes on top of your working tree`);
  } else {
    out.push(`${g} merge ${branch}   # or: ${g} merge --squash ${branch}`);
    out.push(`${g} cherry-pick ${base}..${branch}`);
  }
  if (bestCommit) out.push(`best step only: ${g} diff ${base} ${bestCommit.slice(0, 12)} | ${g} apply`);
  out.push(`inspect: ${g} log --notes=trm/${id} ${branch}; ${g} diff ${base} ${branch}`);
  return out;
}
