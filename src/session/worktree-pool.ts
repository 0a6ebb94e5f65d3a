/**
 * Worktrees in which the candidates of one batch (batch.ts) are evaluated side by side. They are made
 * on first use, like the session worktree (detached, locked, linkPaths, workspace layers, setupCmd), kept
 * for later batches, and brought back to the session tip (tracked files reset, what the last candidate
 * or a crash left removed, as in the session worktree: leftovers.ts) each time one is taken. Each has
 * its own sandbox home. They go with the session (end) and,
 * after a crash, with `code-trm prune`.
 */
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { runCommand } from "../exec/run.js";
import { closeAttributes } from "../git/attributes.js";
import { gitOrNull } from "../git/cli.js";
import { closeGitProcesses } from "../git/long-lived.js";
import { legacyRoot, workRoot } from "../git/refs.js";
import { addWorktree, removeWorktree } from "../git/worktrees.js";
import { UserError } from "../util/errors.js";
import { capHeadTail } from "../util/text.js";
import type { SessionConfig } from "./config.js";
import type { CallContext } from "./context.js";
import { leftoverScope, rememberLayers, removeLeftovers, resetTo } from "./leftovers.js";
import { linkIgnored } from "./link-paths.js";
import { commandPolicy } from "./policy.js";
import { layerWorkspaces } from "./workspaces.js";

/** `<root>/pool/trm-<id>-<k>`, beside the session worktrees (refs.ts workRoot). */
export function poolPath(commonDir: string, id: string, k: number): string {
  return path.join(workRoot(commonDir), "pool", `trm-${id}-${k}`);
}

/** The pool worktrees present on disk, by session id. */
export async function poolDirs(commonDir: string): Promise<{ id: string; path: string }[]> {
  const out: { id: string; path: string }[] = [];
  // The legacy layout too: pool folders a server before the move left inside `.git/trm`.
  for (const root of [path.join(workRoot(commonDir), "pool"), path.join(legacyRoot(commonDir), "pool")]) {
    for (const name of await readdir(root).catch(() => [] as string[])) {
      const m = /^trm-(.+)-\d+$/.exec(name);
      if (m) out.push({ id: m[1]!, path: path.join(root, name) });
    }
  }
  return out;
}

export async function removePool(top: string, commonDir: string, id: string): Promise<void> {
  for (const d of await poolDirs(commonDir)) {
    if (d.id !== id) continue;
    closeGitProcesses(d.path);
    await removeWorktree(top, d.path);
  }
}

const pools = new WeakMap<SessionConfig, WorktreePool>();

/** The session's pool (by its config object), made on first use: best-of-N and testStrength share it. */
export function poolFor(config: SessionConfig): WorktreePool {
  let pool = pools.get(config);
  if (!pool) pools.set(config, (pool = new WorktreePool(config)));
  return pool;
}

export class WorktreePool {
  /** Slots made or checked by this process: a slot found on disk from an earlier server is checked once. */
  private readonly known = new Set<number>();
  /**
   * `git worktree add` runs one at a time: it reads every other worktree's admin folder, and one
   * being made at that moment has no commondir file yet ("failed to read .../commondir", measured).
   */
  private creating: Promise<unknown> = Promise.resolve();

  constructor(private readonly config: SessionConfig) {}

  /**
   * Slot `k`'s worktree, at `tip` and clean. `rewritten`: the last candidate's commands changed tracked files
   * there (a formatter, a generator), so the reset wrote files that are not the tree the slot last ran: the
   * caller forgets that tree (stale-bytecode.ts), as the session worktree does after its own reset.
   */
  async take(k: number, tip: string, ctx: CallContext): Promise<{ wt: string; rewritten: boolean }> {
    const wt = poolPath(this.config.commonDir, this.config.id, k);
    if (!this.known.has(k) || !existsSync(path.join(wt, ".git"))) {
      if (!existsSync(path.join(wt, ".git"))) await this.create(wt, tip, ctx);
      this.known.add(k);
    }
    // The last candidate's files are staged (batch.ts): what differs from the index, its commands wrote.
    // Not known (a folder they made unreadable): as if they had.
    const rewritten = (await gitOrNull(wt, ["diff-files", "--quiet", "--ignore-submodules=all"])) === null;
    await resetTo(wt, tip);
    // What the last candidate's commands left (untracked, ignored, in the slot's sandbox home) goes, as in
    // the session worktree: candidates of one batch, and of later batches, see only their own tree.
    await removeLeftovers(leftoverScope(this.config, wt), wt);
    // The reset may bring another .gitattributes than the slot's attribute process read (a slot whose
    // last candidate ran no command keeps its process): the next question reads them afresh.
    closeAttributes(wt);
    return { wt, rewritten };
  }

  private async create(wt: string, tip: string, ctx: CallContext): Promise<void> {
    const { repoTop: top, id } = this.config;
    ctx.progress?.(`creating pool worktree ${path.basename(wt)}`);
    const added = this.creating.then(() => addWorktree(top, wt, tip, id));
    this.creating = added.catch(() => undefined);
    await added;
    try {
      await linkIgnored(top, wt, this.config.linkPaths);
      await layerWorkspaces(top, wt);
      const setup = this.config.commands.setup;
      if (setup) {
        const r = await runCommand(setup, {
          cwd: wt,
          timeoutMs: Math.max(this.config.timeoutSec, 600) * 1000,
          signal: ctx.signal,
          env: { TRM_SESSION_ID: id },
          ...commandPolicy(this.config, wt),
        });
        if (r.exitCode !== 0 || r.timedOut) {
          throw new UserError(
            `setupCmd failed in a new pool worktree for best-of-N (${r.timedOut ? "timed out" : `exit ${r.exitCode}`}): ${capHeadTail(r.output.all, 1500).text}`,
            "Submit one candidate at a time (candidate), or fix setupCmd so that it works in a fresh worktree.",
          );
        }
      }
      rememberLayers(leftoverScope(this.config, wt), wt);
    } catch (err) {
      await removeWorktree(top, wt).catch(() => undefined);
      throw err;
    }
  }
}
