import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { git, openRepo } from "../git/cli.js";
import { legacyRoot, SESSION_ID_RE, sessionRefs, workRoot, worktreePath } from "../git/refs.js";
import { resolveRefFast } from "../git/session-git.js";
import { registryGet } from "../session/registry.js";
import { Session, type SessionStatus, sessionStatus } from "../session/session.js";
import { cliCommand } from "../util/cli-name.js";
import { UserError } from "../util/errors.js";
import { UsageError } from "./args.js";

/**
 * Finding repositories and sessions for the command line. Sessions are loaded with Session.load and
 * not through SessionManager, whose get/list re-create a missing worktree (heal): a person listing or
 * reading sessions must not resurrect one they abandoned, and prune must see it as abandoned.
 */
export interface Repo {
  top: string;
  commonDir: string;
  gitDir: string;
}

/** The checkout at `repoArg` (relative to `cwd`), or the one `cwd` is in. */
export async function openCheckout(repoArg: string | undefined, cwd: string): Promise<Repo> {
  const dir = path.resolve(cwd, repoArg ?? ".");
  if (!existsSync(dir)) throw new UserError(`No such directory: ${dir}.`, "Pass the path of a git checkout.");
  try {
    return await openRepo(dir);
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    throw new UserError(
      `Not a git checkout: ${dir}.`,
      repoArg === undefined ? "Run this inside a git checkout, or pass the repository's path." : "Pass the path of a git checkout.",
    );
  }
}

export type CliStatus = SessionStatus;

/** Everything of one session that exists in a repository, read from refs and the file system only. */
export interface Footprint {
  id: string;
  refs: { ref: string; oid: string }[];
  baseline: string | null;
  branchTip: string | null;
  ended: boolean;
  worktree: string;
  worktreeExists: boolean;
  /** Commit time (ms) of the session branch's tip, else of the baseline: when the session last did something. */
  lastActivity: number | null;
}

/** The session id in each of a session's ref namespaces (see sessionRefs): branch, tags, notes (records, logs), kept work. */
const ID_OF_REF = /^refs\/(?:heads\/trm\/([^/]+)$|tags\/trm\/([^/]+)\/|notes\/trm(?:-logs)?\/([^/]+)$|trm\/([^/]+)\/)/;

/**
 * Every session id that has a ref or a worktree directory in the repository. Unlike a listing by
 * baseline tag, this also finds sessions that are half made or half deleted, which prune must see.
 */
export async function footprints(commonDir: string): Promise<Footprint[]> {
  const out = await git(commonDir, [
    "for-each-ref",
    "--format=%(refname)%00%(objectname)%00%(committerdate:unix)",
    "refs/heads/trm/",
    "refs/tags/trm/",
    "refs/notes/trm/",
    "refs/notes/trm-logs/",
    "refs/trm/",
  ]);
  const byId = new Map<string, Footprint>();
  const of = (id: string): Footprint => {
    let f = byId.get(id);
    if (!f) {
      const wt = worktreePath(commonDir, id);
      f = { id, refs: [], baseline: null, branchTip: null, ended: false, worktree: wt, worktreeExists: existsSync(wt), lastActivity: null };
      byId.set(id, f);
    }
    return f;
  };
  const dates = new Map<string, number>();
  for (const line of out.split("\n").filter(Boolean)) {
    const [ref, oid, date] = line.split("\0") as [string, string, string];
    const m = ID_OF_REF.exec(ref);
    const id = m?.[1] ?? m?.[2] ?? m?.[3] ?? m?.[4];
    if (!id || !SESSION_ID_RE.test(id)) continue;
    const f = of(id);
    const refs = sessionRefs(id);
    f.refs.push({ ref, oid });
    if (ref === refs.baselineTag) f.baseline = oid;
    if (ref === refs.branch) f.branchTip = oid;
    if (ref === `${refs.keepPrefix}ended`) f.ended = true;
    if ((ref === refs.branch || ref === refs.baselineTag) && date) dates.set(ref, Number(date) * 1000);
  }
  for (const wtRoot of [path.join(workRoot(commonDir), "worktrees"), path.join(legacyRoot(commonDir), "worktrees")]) {
    for (const name of await readdir(wtRoot).catch(() => [] as string[])) {
      const id = name.startsWith("trm-") ? name.slice(4) : "";
      if (SESSION_ID_RE.test(id)) of(id);
    }
  }
  for (const f of byId.values()) {
    const r = sessionRefs(f.id);
    f.lastActivity = dates.get(r.branch) ?? dates.get(r.baselineTag) ?? null;
  }
  return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
}

/** The same rule as Session.status, for sessions found by their footprint (possibly half made). */
export function statusOf(f: Pick<Footprint, "ended" | "worktreeExists">): CliStatus {
  return sessionStatus(f.ended, f.worktreeExists);
}

export function checkId(id: string | undefined, command: string): string {
  if (!id) throw new UsageError("missing <id>", command);
  if (!SESSION_ID_RE.test(id)) throw new UsageError(`malformed session id ${JSON.stringify(id)} (they look like 20250101-120000-ab12cd34)`, command);
  return id;
}

/**
 * A session by id: first in the repository given by --repo (or the one the command runs in), then,
 * without --repo, in the repository the user's session index remembers for that id.
 */
export async function findSession(id: string, repoArg: string | undefined, cwd: string): Promise<Session> {
  const repo = repoArg !== undefined ? await openCheckout(repoArg, cwd) : await openCheckout(undefined, cwd).catch(() => null);
  const places = repo ? [repo.commonDir] : [];
  if (repoArg === undefined) {
    const known = await registryGet(id);
    if (known && !places.includes(known) && existsSync(known)) places.push(known);
  }
  for (const commonDir of places) {
    if (!(await resolveRefFast(commonDir, sessionRefs(id).baselineTag))) continue;
    const s = await Session.load(commonDir, id);
    if (s) return s;
    throw new UserError(
      `Session ${id} in ${commonDir} has no readable configuration (the note on its baseline commit is missing).`,
      `Its branch and tags can still be used with git; \`${cliCommand()} prune --delete-branches\` removes it.`,
    );
  }
  throw new UserError(
    `No session ${id}${repo ? ` in ${repo.top}` : ""}.`,
    repoArg === undefined
      ? `Run the command inside the session's repository or pass --repo <path>; \`${cliCommand()} sessions <repo>\` lists the sessions.`
      : `\`${cliCommand()} sessions <repo>\` lists the sessions of a repository.`,
  );
}

/** The id of the newest session of a repository (`--repo`, else the current one): ids sort by start time. */
export async function latestSessionId(repoArg: string | undefined, cwd: string): Promise<string> {
  const repo = await openCheckout(repoArg, cwd);
  const ids = (await footprints(repo.commonDir)).filter((f) => f.baseline).map((f) => f.id);
  const latest = ids.sort().pop();
  if (!latest) throw new UserError(`No session in ${repo.top}.`, "Start one with trm_start_session, or pass --repo <path> of the repository that has it.");
  return latest;
}

/** The sessions of a repository with a readable configuration, oldest first, with their footprints. */
export async function loadSessions(repo: Repo): Promise<{ session: Session | null; footprint: Footprint }[]> {
  const out: { session: Session | null; footprint: Footprint }[] = [];
  for (const f of await footprints(repo.commonDir)) {
    if (!f.baseline) continue;
    out.push({ session: await Session.load(repo.commonDir, f.id).catch(() => null), footprint: f });
  }
  // In the order they were started (ids of one second differ only in their random part).
  const started = (x: (typeof out)[number]) => x.session?.config.createdAt ?? x.footprint.id;
  return out.sort((a, b) => started(a).localeCompare(started(b)) || a.footprint.id.localeCompare(b.footprint.id));
}
