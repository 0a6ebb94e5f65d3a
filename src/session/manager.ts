import path from "node:path";
import { openRepo } from "../git/cli.js";
import { checkSessionId, SESSION_ID_RE } from "../git/refs.js";
import { listRefs } from "../git/session-git.js";
import { UserError } from "../util/errors.js";
import { registryDelete, registryGet, registrySet } from "./registry.js";
import { Session } from "./session.js";

/**
 * Finds sessions. Memory is only a cache: everything is re-derivable from git, so after a restart a
 * session is loaded from its repository (located through the registry or a trm_list_sessions call).
 */
export class SessionManager {
  private sessions = new Map<string, Session>();

  add(s: Session): void {
    this.sessions.set(s.id, s);
  }

  forget(id: string): void {
    this.sessions.delete(id);
  }

  /** A session to operate on; an abandoned one gets its worktree back. */
  async get(id: string): Promise<Session> {
    checkSessionId(id);
    const known = this.sessions.get(id);
    if (known) {
      await known.heal();
      return known;
    }
    const commonDir = await registryGet(id);
    const s = commonDir ? await Session.load(commonDir, id).catch(() => null) : null;
    if (!s) {
      if (commonDir) await registryDelete(id);
      throw new UserError(`Unknown sessionId ${id}.`, "If the server restarted or the session was made elsewhere, call trm_list_sessions with the repoPath first; otherwise start a session.");
    }
    this.sessions.set(id, s);
    await s.heal();
    return s;
  }

  /** Every session of a repository, active or ended, loaded from git. */
  async list(repoPath: string): Promise<Session[]> {
    if (!path.isAbsolute(repoPath)) throw new UserError(`repoPath must be absolute: ${repoPath}.`);
    const repo = await openRepo(repoPath);
    const refs = await listRefs(repo.commonDir, "refs/tags/trm/");
    const ids = refs.map((r) => /^refs\/tags\/trm\/([^/]+)\/baseline$/.exec(r.ref)?.[1]).filter((x): x is string => !!x && SESSION_ID_RE.test(x));
    const out: Session[] = [];
    for (const id of ids) {
      let s = this.sessions.get(id);
      if (!s) {
        s = (await Session.load(repo.commonDir, id)) ?? undefined;
        if (!s) continue;
        this.sessions.set(id, s);
        await registrySet(id, repo.commonDir);
      } else if (s.status === "active") {
        await s.reload();
      }
      out.push(s);
    }
    return out.sort((a, b) => a.config.createdAt.localeCompare(b.config.createdAt));
  }
}
