import { z } from "zod";
import { fmt } from "../../evaluate/score.js";
import { diffPoints, listCheckpoints, restorePoint, saveCheckpoint, undo } from "../../session/history.js";
import type { SessionManager } from "../../session/manager.js";
import type { Session } from "../../session/session.js";
import { defineTool, type Hints, READ_ONLY } from "../register.js";
import { bestOffHistoryNote, figuresOut, figuresView, historyItemOut, historyView, stateText, stateView } from "../views.js";
import { pointIn } from "./point.js";

const MOVES: Hints = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

/** What every history move returns: the session's figures afterwards, and its recent history. */
const stateOut = { ...figuresOut, history: z.array(historyItemOut) };

function stateOf(s: Session) {
  return { ...figuresView(s), history: historyView(s) };
}

export function historyTools(sessions: SessionManager) {
  const undoTool = defineTool({
    name: "trm_undo",
    description: "Undo the last step (kept reachable under refs/trm/<id>/undone/); figures recomputed.",
    input: { sessionId: z.string() },
    output: { ...stateOut, undone: z.object({ step: z.number(), commit: z.string(), keptAs: z.string() }), filesRestored: z.array(z.string()) },
    hints: MOVES,
    async run(args) {
      const s = await sessions.get(args.sessionId);
      const r = await undo(s);
      const v = stateView(s);
      return {
        structured: { ...stateOf(s), undone: r.undone, filesRestored: r.filesRestored },
        text: `undid step ${r.undone.step} (kept as ${r.undone.keptAs}); restored ${r.filesRestored.join(", ") || "no files"}\n${stateText(v, bestOffHistoryNote(s))}`,
      };
    },
  });

  const save = defineTool({
    name: "trm_save_checkpoint",
    description: "Tag the current step as checkpoint trm/<id>/<name>.",
    input: { sessionId: z.string(), name: z.string(), description: z.string().max(500).optional() },
    output: { name: z.string(), commit: z.string(), step: z.number() },
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(args) {
      const s = await sessions.get(args.sessionId);
      const r = await saveCheckpoint(s, { name: args.name, description: args.description });
      return { structured: r, text: `checkpoint ${r.name} at step ${r.step} (${r.commit.slice(0, 12)})` };
    },
  });

  const restore = defineTool({
    name: "trm_restore_checkpoint",
    description: "Move the session to a checkpoint; later steps stay reachable under refs/trm/<id>/superseded/.",
    input: { sessionId: z.string(), name: z.string() },
    output: { ...stateOut, restored: z.string(), filesRestored: z.array(z.string()), keptAs: z.string().nullable() },
    hints: MOVES,
    async run(args) {
      const s = await sessions.get(args.sessionId);
      const r = await restorePoint(s, args.name);
      const v = stateView(s);
      return {
        structured: { ...stateOf(s), ...r },
        text: `restored ${r.restored}${r.keptAs ? ` (previous work kept as ${r.keptAs})` : ""}\n${stateText(v, bestOffHistoryNote(s))}`,
      };
    },
  });

  const list = defineTool({
    name: "trm_list_checkpoints",
    description: "Checkpoints with step, score, date, description.",
    input: { sessionId: z.string() },
    output: {
      checkpoints: z.array(
        z.object({
          name: z.string(),
          commit: z.string(),
          step: z.number().nullable(),
          score: z.number().nullable(),
          createdAt: z.string(),
          description: z.string(),
          onCurrentHistory: z.boolean(),
        }),
      ),
    },
    hints: READ_ONLY,
    async run(args) {
      const s = await sessions.get(args.sessionId);
      const checkpoints = await listCheckpoints(s);
      const text = checkpoints.length
        ? checkpoints
            .map(
              (c) =>
                `${c.name}: step ${c.step ?? "?"} score ${c.score === null ? "-" : fmt(c.score)} ${c.createdAt}${c.onCurrentHistory ? "" : " (off the current history)"}${c.description ? ` — ${c.description}` : ""}`,
            )
            .join("\n")
        : "no checkpoints";
      return { structured: { checkpoints }, text };
    },
  });

  const reset = defineTool({
    name: "trm_reset_to_baseline",
    description: "Move the session back to its baseline; all steps stay reachable under refs/trm/<id>/superseded/.",
    input: { sessionId: z.string() },
    output: { ...stateOut, filesRestored: z.array(z.string()), keptAs: z.string().nullable() },
    hints: MOVES,
    async run(args) {
      const s = await sessions.get(args.sessionId);
      const r = await restorePoint(s, "baseline");
      const v = stateView(s);
      return {
        structured: { ...stateOf(s), filesRestored: r.filesRestored, keptAs: r.keptAs },
        text: `reset to baseline${r.keptAs ? ` (previous work kept as ${r.keptAs})` : ""}\n${stateText(v, bestOffHistoryNote(s))}`,
      };
    },
  });

  const diff = defineTool({
    name: "trm_diff",
    description: "Unified diff and stat between two points: baseline|best|current|<step>|<checkpoint>.",
    input: {
      sessionId: z.string(),
      from: pointIn.optional().describe("default baseline"),
      to: pointIn.optional().describe("default current"),
      paths: z.array(z.string()).max(100).optional(),
    },
    defaults: { from: "baseline", to: "current" },
    output: {
      from: z.string(),
      to: z.string(),
      diff: z.string(),
      truncated: z.boolean(),
      files: z.array(z.object({ path: z.string(), added: z.number().nullable(), removed: z.number().nullable() })),
      linesAdded: z.number(),
      linesRemoved: z.number(),
    },
    hints: READ_ONLY,
    async run(args) {
      const s = await sessions.get(args.sessionId);
      const r = await diffPoints(s, { from: args.from ?? "baseline", to: args.to ?? "current", paths: args.paths });
      const stat = r.files.map((f) => ` ${f.path} | +${f.added ?? "bin"} -${f.removed ?? "bin"}`).join("\n");
      return { structured: r, text: `${r.from} -> ${r.to}: ${r.files.length} files, +${r.linesAdded} -${r.linesRemoved}\n${stat}\n\n${r.diff}` };
    },
  });

  return [undoTool, save, restore, list, reset, diff];
}
