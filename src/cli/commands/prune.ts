import { rm } from "node:fs/promises";
import { git } from "../../git/cli.js";
import { updateRefs } from "../../git/session-git.js";
import { forgetWorktreeEntry, removeWorktree } from "../../git/worktrees.js";
import { registryDelete } from "../../session/registry.js";
import { errorMessage } from "../../util/errors.js";
import { expectPositionals, flagBool, flagString, UsageError } from "../args.js";
import { type Command, type Io, printJson } from "../command.js";
import { openCheckout, type Repo } from "../find.js";
import { shortPath } from "../format.js";
import { type PruneAction, type PrunePlan, planPrune } from "../prune-plan.js";

interface Outcome {
  action: PruneAction;
  ok: boolean;
  error?: string;
}

async function execute(repo: Repo, plan: PrunePlan, deleteBranches: boolean): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const attempt = async (a: PruneAction, fn: () => Promise<unknown>) => {
    try {
      await fn();
      outcomes.push({ action: a, ok: true });
    } catch (err) {
      outcomes.push({ action: a, ok: false, error: errorMessage(err) });
    }
  };
  for (const a of plan.actions) {
    switch (a.action) {
      case "remove-worktree":
        await attempt(a, () => removeWorktree(repo.top, a.target));
        break;
      case "delete-ref":
        await attempt(a, () => git(repo.top, ["update-ref", "-d", "--end-of-options", a.target]));
        break;
      case "end-session":
        await attempt(a, () => updateRefs(repo.top, [{ ref: a.target, next: a.commit!, expected: null }], "code-trm prune: session ended"));
        break;
      case "prune-worktree-entry":
        await attempt(a, () => forgetWorktreeEntry(repo.commonDir, a.target));
        break;
      case "remove-lock":
      case "remove-tmp":
        await attempt(a, () => rm(a.target, { recursive: true, force: true }));
        break;
    }
  }
  // A session whose refs are all gone no longer needs its entry in the user's session index.
  if (deleteBranches) {
    for (const s of plan.sessions) if (s.pruned && s.kept.length === 0) await registryDelete(s.sessionId);
  }
  return outcomes;
}

const VERB: Record<PruneAction["action"], string> = {
  "remove-worktree": "remove worktree",
  "delete-ref": "delete ref",
  "end-session": "mark ended",
  "prune-worktree-entry": "prune stale worktree entry",
  "remove-lock": "remove stale lock",
  "remove-tmp": "remove temporary file",
};

function render(repo: Repo, plan: PrunePlan, outcomes: Outcome[] | null, io: Io): string {
  const p = io.paint;
  const dry = outcomes === null;
  const failed = new Map(outcomes?.filter((o) => !o.ok).map((o) => [o.action, o.error]) ?? []);
  const line = (a: PruneAction) => {
    const err = failed.get(a);
    const text = `${dry ? "would " : ""}${VERB[a.action]} ${shortPath(repo.top, a.target)}${a.action === "remove-worktree" || a.action === "end-session" ? "" : ` (${a.detail})`}`;
    return err === undefined ? `  ${text}` : `  ${p.red(`FAILED: ${text}: ${err}`)}`;
  };
  const lines = [`${p.bold("prune")} ${repo.top}${dry ? " (dry run: nothing changed)" : ""}`];
  for (const s of plan.sessions) {
    const mine = plan.actions.filter((a) => a.sessionId === s.sessionId);
    if (!s.pruned) {
      lines.push(
        `session ${s.sessionId} (${s.status}): kept${s.reason === "active" ? "" : s.reason.startsWith("in use") ? `, ${s.reason}` : `, ${s.reason}, nothing to remove`}`,
      );
      if (s.status !== "active" && s.kept.length) lines.push(`  keeps ${s.kept.join(", ")} (--delete-branches removes them)`);
      continue;
    }
    lines.push(`session ${s.sessionId} (${s.reason}):`, ...mine.map(line));
    if (s.kept.length) lines.push(`  keeps ${s.kept.join(", ")}${s.kept.some((k) => k.includes("checked out")) ? "" : " (--delete-branches removes them)"}`);
  }
  const global = plan.actions.filter((a) => a.sessionId === null);
  if (global.length) lines.push("worktree entries, locks and temporary files:", ...global.map(line));
  if (plan.actions.length === 0) lines.push("nothing to prune");
  return `${lines.join("\n")}\n`;
}

export const pruneCommand: Command = {
  name: "prune",
  summary: "remove worktrees and refs of ended or abandoned sessions, stale entries and locks",
  usage: "code-trm prune [repo] [--dry-run] [--older-than <days>] [--delete-branches] [--json]",
  description: [
    "Cleans up after sessions in a repository (default: the current one):",
    "- ended sessions (refs/trm/<id>/ended exists) and abandoned ones (worktree gone, never ended), and",
    "  with --older-than also sessions whose last step is older than <days>: their worktree is removed",
    "  and the work undo/restore left behind (refs/trm/<id>/undone/*, superseded/*) is deleted; an",
    "  abandoned or idle session is marked ended. Its branch trm/<id>, tags trm/<id>/* and notes are KEPT:",
    "  the branch is your result. --delete-branches deletes them too (except a branch checked out).",
    "- the best-of-N pool worktrees (<state>/repos/<repo>/pool/trm-<id>-<k>) of those sessions, or of sessions gone;",
    "- stale .git/worktrees entries of code-trm's own worktrees (never the user's);",
    "- lock files only code-trm creates, older than a minute (.git/worktrees/trm-*/*.lock and *.lock",
    "  under refs/heads/trm, refs/tags/trm, refs/notes/trm, refs/notes/trm-logs, refs/trm);",
    "- leftovers in <state>/repos/<repo>/tmp older than an hour, and what an interrupted trm_review_pr",
    "  evaluation left (its worktrees in <state>/repos/<repo>/review, refs/trm/review/*) once an hour old.",
    "<state> is $CODE_TRM_STATE_DIR, else $XDG_STATE_HOME/code-trm, else ~/.local/state/code-trm.",
    "Active sessions are never touched (unless --older-than), and a session whose server is alive or whose",
    "command is running never, whatever --older-than says. A start that was killed half-way leaves refs,",
    "a worktree and temporary files: they are removed. Your checkout, index, HEAD, other",
    "branches and stash are never touched.",
  ].join("\n"),
  options: {
    "dry-run": { type: "boolean", short: "n", help: "print what would be done, change nothing" },
    "older-than": { type: "string", value: "<days>", help: "also prune sessions idle for more than <days>" },
    "delete-branches": { type: "boolean", help: "also delete the branches, tags and notes of pruned sessions" },
    json: { type: "boolean", help: "machine-readable output (stable keys)" },
  },
  async run(args, io) {
    const [repoArg] = expectPositionals(args, 0, 1, "prune", "");
    const olderRaw = flagString(args, "older-than");
    const olderThanDays = olderRaw === undefined ? undefined : Number(olderRaw);
    if (olderThanDays !== undefined && !(Number.isFinite(olderThanDays) && olderThanDays >= 0)) {
      throw new UsageError(`--older-than needs a number of days, got ${JSON.stringify(olderRaw)}`, "prune");
    }
    const repo = await openCheckout(repoArg, io.cwd);
    const deleteBranches = flagBool(args, "delete-branches");
    const dryRun = flagBool(args, "dry-run");
    const plan = await planPrune(repo, { olderThanDays, deleteBranches, now: Date.now() });
    const outcomes = dryRun ? null : await execute(repo, plan, deleteBranches);
    const failures = outcomes?.filter((o) => !o.ok).length ?? 0;
    if (flagBool(args, "json")) {
      const status = new Map(outcomes?.map((o) => [o.action, o]) ?? []);
      printJson(io, {
        repo: repo.top,
        dryRun,
        actions: plan.actions.map((a) => ({
          action: a.action,
          sessionId: a.sessionId,
          target: a.target,
          detail: a.detail,
          done: !dryRun && !!status.get(a)?.ok,
          ...(status.get(a)?.error ? { error: status.get(a)!.error } : {}),
        })),
        sessions: plan.sessions,
      });
    } else {
      io.out(render(repo, plan, outcomes, io));
    }
    if (failures) {
      io.err(`code-trm: ${failures} prune action${failures === 1 ? "" : "s"} failed (listed above); run again, or fix by hand with git.\n`);
      return 1;
    }
    return 0;
  },
};
