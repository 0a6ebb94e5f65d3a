import { existsSync } from "node:fs";
import { lstat, mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { runCommand } from "../evaluate/run.js";
import { git, gitOrNull, openRepo } from "../git/cli.js";
import { newSessionId, sessionRefs, shortRef, worktreePath } from "../git/refs.js";
import { addWorktree, removeWorktree, snapshotCheckout, updateRefs, writeNote } from "../git/session-git.js";
import { UserError } from "../util/errors.js";
import { normalizeRelPath } from "../util/paths.js";
import { capHeadTail } from "../util/text.js";
import { resolveConfig, type SessionConfig, type StartInput } from "./config.js";
import type { CallContext } from "./context.js";
import type { BaselineNote } from "./record.js";
import { registrySet } from "./registry.js";
import { progressIntervalMs, Session } from "./session.js";


export interface SetupResult {
  cmd: string;
  ok: boolean;
  exitCode: number | null;
  durationMs: number;
  output: string;
}

/**
 * Creates a session: baseline commit, branch, tags, config note and a detached worktree, then runs the
 * setup command and the optional preflight. Anything half-made is removed again if a step fails.
 */
export async function startSession(input: StartInput, ctx: CallContext) {
  if (!path.isAbsolute(input.repoPath)) {
    throw new UserError(`repoPath must be absolute: ${input.repoPath}.`, "Pass the absolute path of the checkout, e.g. /home/me/project.");
  }
  const partial = resolveConfig(input);
  const linkPaths = partial.linkPaths.map((p) => normalizeRelPath(p));
  const repo = await openRepo(input.repoPath);
  if (existsSync(path.join(repo.gitDir, "MERGE_HEAD"))) {
    // Not a refusal on safety grounds (we never touch the checkout), but the baseline would be ambiguous.
    throw new UserError("The checkout is in the middle of a merge.", "Finish or abort the merge, then start the session.");
  }
  const started = performance.now();
  const id = newSessionId();
  const refs = sessionRefs(id);
  const wt = worktreePath(repo.commonDir, id);
  // The checkout of the worktree (the slow part) starts from the user's HEAD while the baseline is
  // built; a reset then brings in only the files their uncommitted work changed.
  const head = (await gitOrNull(repo.top, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]))?.trim() || null;
  const early = head ? addWorktree(repo.top, wt, head, id).then(() => true, (err: unknown) => err) : Promise.resolve(false);
  let snap: Awaited<ReturnType<typeof snapshotCheckout>>;
  try {
    snap = await snapshotCheckout(repo, id);
  } catch (err) {
    await early;
    await removeWorktree(repo.top, wt).catch(() => undefined);
    throw err;
  }
  const config: SessionConfig = {
    ...partial,
    linkPaths,
    id,
    repoTop: repo.top,
    commonDir: repo.commonDir,
    createdAt: new Date().toISOString(),
    userHead: snap.head,
    userBranch: snap.branch,
    uncommittedIncluded: snap.dirty,
  };
  try {
    await Promise.all([
      (async () => {
        await updateRefs(repo.top, [{ ref: refs.branch, next: snap.commit, expected: null }, { ref: refs.baselineTag, next: snap.commit, expected: null }], "trm: session start");
        await writeNote(repo.top, refs.notes, snap.commit, { v: 1, kind: "baseline", config } satisfies BaselineNote);
      })(),
      (async () => {
        const ready = await early;
        if (ready !== true) {
          if (ready !== false) throw ready;
          await addWorktree(repo.top, wt, snap.commit, id);
        } else {
          await git(wt, ["reset", "--hard", "-q", snap.commit]);
        }
      })(),
    ]);
    await linkIgnored(repo.top, wt, linkPaths);
  } catch (err) {
    await removeWorktree(repo.top, wt).catch(() => undefined);
    for (const r of [refs.branch, refs.baselineTag, refs.notes, refs.logs]) await gitOrNull(repo.top, ["update-ref", "-d", r]);
    throw err;
  }
  await registrySet(id, repo.commonDir);
  const startMs = Math.round(performance.now() - started);

  const session = new Session(config, { commit: snap.commit, tree: snap.tree });
  let setup: SetupResult | undefined;
  if (config.commands.setup) {
    ctx.progress?.(`running setup: ${config.commands.setup}`);
    const r = await runCommand(config.commands.setup, {
      cwd: wt,
      timeoutMs: Math.max(config.timeoutSec, 600) * 1000,
      signal: ctx.signal,
      onTick: (ms) => ctx.progress?.(`running setup (${Math.round(ms / 1000)}s)`),
      tickMs: progressIntervalMs(),
    });
    setup = { cmd: r.cmd, ok: r.exitCode === 0 && !r.timedOut, exitCode: r.exitCode, durationMs: r.durationMs, output: capHeadTail(r.output.all, 2000).text };
  }
  if (input.preflight) {
    const { evaluation: ev, logs } = await session.evaluateHere(0, ctx);
    session.preflight = ev;
    await writeNote(repo.top, refs.notes, snap.commit, { v: 1, kind: "baseline", config, preflight: ev } satisfies BaselineNote);
    await writeNote(repo.top, refs.logs, snap.commit, logs);
    await session.reload();
    await updateRefs(repo.top, [{ ref: refs.bestTag, next: snap.commit }], "trm: preflight");
  }
  return { session, snap, setup, startMs, branch: shortRef(refs.branch) };
}

/** Symlinks ignored paths (e.g. .env, a nested node_modules) from the checkout into the worktree. */
async function linkIgnored(top: string, wt: string, rels: string[]): Promise<void> {
  for (const rel of rels) {
    const src = path.join(top, rel);
    const dst = path.join(wt, rel);
    const exists = await lstat(src).then(() => true, () => false);
    if (!exists) throw new UserError(`linkPaths: ${rel} does not exist in the checkout.`, "List only paths that exist in the repository's working tree.");
    if (await lstat(dst).then(() => true, () => false)) continue; // tracked: the worktree already has it
    await mkdir(path.dirname(dst), { recursive: true });
    await symlink(src, dst);
  }
}
