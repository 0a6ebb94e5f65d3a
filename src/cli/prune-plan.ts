import { existsSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { recordedAlive } from "../exec/orphans.js";
import { git } from "../git/cli.js";
import { legacyRoot, scratchDir, sessionRefs, workRoot } from "../git/refs.js";
import { ownerAlive, ownerFile, readOwner } from "../session/owner-lock.js";
import { interruptedStartLeftovers, interruptedStarts } from "../session/recover.js";
import { poolDirs } from "../session/worktree-pool.js";
import { type CliStatus, footprints, type Repo, statusOf } from "./find.js";

/**
 * What `code-trm prune` would do, computed without changing anything: dry run and real run print the
 * same plan, and the real run only executes it.
 */
export type PruneActionKind = "remove-worktree" | "delete-ref" | "end-session" | "prune-worktree-entry" | "remove-lock" | "remove-tmp";

export interface PruneAction {
  action: PruneActionKind;
  sessionId: string | null;
  /** A path or a ref name. */
  target: string;
  detail: string;
  /** For end-session: the commit the `ended` ref records. */
  commit?: string;
}

export interface SessionVerdict {
  sessionId: string;
  status: CliStatus;
  pruned: boolean;
  reason: string;
  /** What stays (the branch is the user's result). */
  kept: string[];
}

export interface PrunePlan {
  actions: PruneAction[];
  sessions: SessionVerdict[];
}

export interface PruneOptions {
  olderThanDays?: number;
  deleteBranches: boolean;
  now: number;
}

/** Locks younger than this may belong to a git call running right now. */
export const STALE_MS = 60_000;
/** Entries of <common>/trm/tmp live longer than locks (a scratch copy for `eslint --fix` may take minutes). */
export const TMP_STALE_MS = 3_600_000;

interface WorktreeEntry {
  path: string;
  branch: string | null;
  locked: string | null;
  prunable: string | null;
}

export function parseWorktreeList(out: string): WorktreeEntry[] {
  return out
    .split("\n\n")
    .filter((b) => b.trim())
    .map((block) => {
      const e: WorktreeEntry = { path: "", branch: null, locked: null, prunable: null };
      for (const line of block.split("\n")) {
        const [key, ...rest] = line.split(" ");
        const value = rest.join(" ");
        if (key === "worktree") e.path = value;
        else if (key === "branch") e.branch = value;
        else if (key === "locked") e.locked = value;
        else if (key === "prunable") e.prunable = value;
      }
      return e;
    });
}

async function ageMs(p: string, now: number): Promise<number | null> {
  const st = await stat(p).catch(() => null);
  return st ? now - st.mtimeMs : null;
}

async function walkFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walkFiles(p)));
    else out.push(p);
  }
  return out;
}

/** Lock files only code-trm creates: in its worktrees' admin directories and under its ref namespaces. */
async function ownLockFiles(commonDir: string): Promise<string[]> {
  const locks: string[] = [];
  const admin = path.join(commonDir, "worktrees");
  for (const name of await readdir(admin).catch(() => [] as string[])) {
    if (!name.startsWith("trm-")) continue;
    for (const f of await readdir(path.join(admin, name)).catch(() => [] as string[])) {
      if (f.endsWith(".lock")) locks.push(path.join(admin, name, f));
    }
  }
  for (const ns of ["refs/heads/trm", "refs/tags/trm", "refs/notes/trm", "refs/notes/trm-logs", "refs/trm"]) {
    locks.push(...(await walkFiles(path.join(commonDir, ns))).filter((f) => f.endsWith(".lock")));
  }
  return locks;
}

const days = (n: number) => `${n} day${n === 1 ? "" : "s"}`;

export async function planPrune(repo: Repo, opts: PruneOptions): Promise<PrunePlan> {
  const actions: PruneAction[] = [];
  const sessions: SessionVerdict[] = [];
  const worktrees = parseWorktreeList(await git(repo.top, ["worktree", "list", "--porcelain"]));
  const registered = new Set(worktrees.map((w) => w.path));
  const checkedOut = new Set(worktrees.flatMap((w) => (w.branch ? [w.branch] : [])));

  const interrupted = new Set(await interruptedStarts(repo.commonDir));
  const seen = new Set<string>();
  for (const f of await footprints(repo.commonDir)) {
    seen.add(f.id);
    const refs = sessionRefs(f.id);
    const status = statusOf(f);
    // Whatever --older-than says: a session a live server owns, or whose command is running, is in use.
    const owner = readOwner(ownerFile(repo.commonDir, f.id));
    const busy = owner && ownerAlive(owner) ? owner.pid : recordedAlive(path.join(repo.commonDir, "trm", "run", `${f.id}.pgid`));
    if (busy !== null && !interrupted.has(f.id)) {
      sessions.push({ sessionId: f.id, status, pruned: false, reason: `in use by process ${busy}`, kept: ["everything"] });
      continue;
    }
    if (interrupted.has(f.id)) {
      const left = await interruptedStartLeftovers(repo.commonDir, f.id);
      const mine: PruneAction[] = [
        ...(left.worktree ? [{ action: "remove-worktree" as const, sessionId: f.id, target: left.worktree, detail: "session worktree" }] : []),
        ...left.refs.map((r) => ({ action: "delete-ref" as const, sessionId: f.id, target: r, detail: "made by a start that never finished" })),
        ...left.files.map((t) => ({ action: "remove-tmp" as const, sessionId: f.id, target: t, detail: "left by a start that was killed" })),
      ];
      actions.push(...mine);
      sessions.push({ sessionId: f.id, status, pruned: true, reason: "left behind by a start that was killed (its server is gone)", kept: [] });
      continue;
    }
    const idle = f.lastActivity === null ? null : opts.now - f.lastActivity;
    const stale = opts.olderThanDays !== undefined && idle !== null && idle > opts.olderThanDays * 86_400_000;
    // A worktree directory with no refs at all is what a crash during session start leaves behind.
    const orphanAge = !f.baseline && !f.branchTip && f.worktreeExists && !registered.has(f.worktree) ? await ageMs(f.worktree, opts.now) : null;
    const orphan = orphanAge !== null && orphanAge > STALE_MS;
    if (status === "active" && !stale && !orphan) {
      sessions.push({ sessionId: f.id, status, pruned: false, reason: "active", kept: ["everything"] });
      continue;
    }
    const reason = orphan
      ? "left behind by an interrupted session start"
      : status === "ended"
        ? "ended"
        : status === "abandoned"
          ? "abandoned: its worktree is gone but it was never ended"
          : `no activity for more than ${days(opts.olderThanDays!)}`;
    const mine: PruneAction[] = [];
    if (f.worktreeExists) mine.push({ action: "remove-worktree", sessionId: f.id, target: f.worktree, detail: "session worktree" });
    const kept: string[] = [];
    if (opts.deleteBranches) {
      for (const r of f.refs) {
        if (checkedOut.has(r.ref)) kept.push(`${r.ref} (checked out in a worktree)`);
        else mine.push({ action: "delete-ref", sessionId: f.id, target: r.ref, detail: r.oid.slice(0, 12) });
      }
    } else {
      for (const r of f.refs) {
        if (r.ref.startsWith(`${refs.keepPrefix}undone/`) || r.ref.startsWith(`${refs.keepPrefix}superseded/`)) {
          mine.push({ action: "delete-ref", sessionId: f.id, target: r.ref, detail: "work left behind by undo/restore" });
        }
      }
      // Ending it, as trm_end_session would, stops a server from re-creating the worktree it lost.
      if (!f.ended && f.baseline)
        mine.push({ action: "end-session", sessionId: f.id, target: `${refs.keepPrefix}ended`, detail: "mark as ended", commit: f.branchTip ?? f.baseline });
      if (f.branchTip) kept.push(`branch trm/${f.id}`);
      if (f.refs.some((r) => r.ref.startsWith(refs.tagPrefix))) kept.push(`tags trm/${f.id}/*`);
      const notes = f.refs.filter((r) => r.ref === refs.notes || r.ref === refs.logs).map((r) => r.ref);
      if (notes.length) kept.push(`notes ${notes.join(", ")}`);
    }
    actions.push(...mine);
    sessions.push({ sessionId: f.id, status, pruned: mine.length > 0, reason, kept });
  }

  // Pool worktrees of best-of-N batches (worktree-pool.ts) go with their session, or when it is gone.
  for (const d of await poolDirs(repo.commonDir)) {
    const v = sessions.find((x) => x.sessionId === d.id);
    if (v?.kept.includes("everything")) continue;
    actions.push({ action: "remove-worktree", sessionId: d.id, target: d.path, detail: "best-of-N pool worktree" });
    if (v) v.pruned = true;
  }

  // A start killed before it made any ref or worktree leaves only its marks and temporary index.
  for (const id of interrupted) {
    if (seen.has(id)) continue;
    for (const t of (await interruptedStartLeftovers(repo.commonDir, id)).files)
      actions.push({ action: "remove-tmp", sessionId: null, target: t, detail: `left by a start of session ${id} that was killed` });
  }

  // Only code-trm's own registrations: a worktree of the user's whose folder is missing may be on a
  // drive that is not mounted right now, and forgetting it would lose its index and HEAD.
  const ourRoots = [legacyRoot(repo.commonDir), workRoot(repo.commonDir)].map((r) => r + path.sep);
  for (const w of worktrees.slice(1)) {
    if (existsSync(w.path) || !ourRoots.some((r) => w.path.startsWith(r))) continue;
    actions.push({ action: "prune-worktree-entry", sessionId: null, target: w.path, detail: w.prunable ?? "directory is gone" });
  }

  for (const lock of await ownLockFiles(repo.commonDir)) {
    const age = await ageMs(lock, opts.now);
    if (age !== null && age > STALE_MS)
      actions.push({ action: "remove-lock", sessionId: null, target: lock, detail: `left by a crashed git call, ${Math.round(age / 1000)} s old` });
  }
  const tmp = scratchDir(repo.commonDir);
  for (const name of await readdir(tmp).catch(() => [] as string[])) {
    if (actions.some((a) => a.target === path.join(tmp, name))) continue;
    const age = await ageMs(path.join(tmp, name), opts.now);
    if (age !== null && age > TMP_STALE_MS)
      actions.push({
        action: "remove-tmp",
        sessionId: null,
        target: path.join(tmp, name),
        detail: `left by an interrupted code-trm call, ${Math.round(age / 60_000)} min old`,
      });
  }
  // What an interrupted pull request evaluation (trm_review_pr evaluate) leaves: its temporary worktrees
  // and fetched refs. A running one is younger than an hour, so it is never touched.
  for (const reviewDir of [path.join(workRoot(repo.commonDir), "review"), path.join(legacyRoot(repo.commonDir), "review")])
    for (const name of await readdir(reviewDir).catch(() => [] as string[])) {
      const age = await ageMs(path.join(reviewDir, name), opts.now);
      if (age !== null && age > TMP_STALE_MS)
        actions.push({
          action: "remove-worktree",
          sessionId: null,
          target: path.join(reviewDir, name),
          detail: "left by an interrupted pull request evaluation",
        });
    }
  const reviewRefs = await git(repo.commonDir, ["for-each-ref", "--format=%(refname)", "refs/trm/review/"]);
  for (const ref of reviewRefs.split("\n").filter(Boolean)) {
    // Loose refs only: their file's age says when the fetch happened.
    const age = await ageMs(path.join(repo.commonDir, ref), opts.now);
    if (age !== null && age > TMP_STALE_MS)
      actions.push({ action: "delete-ref", sessionId: null, target: ref, detail: "fetched by an interrupted pull request evaluation" });
  }
  return { actions, sessions };
}
