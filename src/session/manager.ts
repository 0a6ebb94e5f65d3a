import path from "node:path";
import { openRepo } from "../git/cli.js";
import { checkSessionId, SESSION_ID_RE } from "../git/refs.js";
import { listRefs } from "../git/session-git.js";
import { UserError } from "../util/errors.js";
import { cleanInterruptedStarts, healAbandoned } from "./recover.js";
import { registryDelete, registryGet, registrySet } from "./registry.js";
import { Session } from "./session.js";

/**
 * Finds sessions. Memory is only a cache: everything is re-derivable from git, so after a restart a
 * session is loaded from its repository (located through the registry or a trm_list_sessions call).
 */
export class SessionManager {
  /**
   * One promise per session id, shared by every caller: parallel calls right after a restart must get
   * the same Session (one mutex), or one object would take the other's running command for an orphan.
   */
  private sessions = new Map<string, Promise<Session | null>>();

  add(s: Session): void {
    this.sessions.set(s.id, Promise.resolve(s));
  }

  forget(id: string): void {
    this.sessions.delete(id);
  }

  /** Waits, at most `ms`, for every loaded session's writes left for after a reply. */
  async settleAll(ms: number): Promise<void> {
    const all = Promise.all([...this.sessions.values()].map((p) => p.then((s) => s?.settle()).catch(() => undefined)));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  private load(commonDir: string, id: string): Promise<Session | null> {
    let p = this.sessions.get(id);
    if (!p) {
      p = Session.load(commonDir, id).catch(() => null);
      this.sessions.set(id, p);
      // A failed load is not cached: the session may appear (list after restart) or the repo come back.
      void p.then((s) => {
        if (!s && this.sessions.get(id) === p) this.sessions.delete(id);
      });
    }
    return p;
  }

  /** A session to operate on; an abandoned one gets its worktree back. */
  async get(id: string): Promise<Session> {
    checkSessionId(id);
    let s = await this.sessions.get(id);
    if (!s) {
      const commonDir = await registryGet(id);
      s = commonDir ? await this.load(commonDir, id) : null;
      if (!s) {
        if (commonDir) await registryDelete(id);
        throw new UserError(
          `Unknown sessionId ${id}.`,
          "If the server restarted or the session was made elsewhere, call trm_list_sessions with the repoPath first; otherwise start a session.",
        );
      }
    }
    await healAbandoned(s);
    return s;
  }

  /** Every session of a repository, active or ended, loaded from git. */
  async list(repoPath: string): Promise<Session[]> {
    if (!path.isAbsolute(repoPath))
      throw new UserError(
        `repoPath must be absolute: ${repoPath}.`,
        `Pass the checkout's absolute path${repoPath.startsWith("~") ? "" : `, e.g. ${path.resolve(repoPath)} if it is relative to the server's folder`} (~ is not expanded).`,
      );
    const repo = await openRepo(repoPath);
    for (const id of await cleanInterruptedStarts(repo.top, repo.commonDir)) {
      process.stderr.write(`code-trm: removed what an interrupted start of session ${id} left (refs, worktree, temporary index)\n`);
    }
    const refs = await listRefs(repo.commonDir, "refs/tags/trm/");
    const ids = refs.map((r) => /^refs\/tags\/trm\/([^/]+)\/baseline$/.exec(r.ref)?.[1]).filter((x): x is string => !!x && SESSION_ID_RE.test(x));
    const out: Session[] = [];
    for (const id of ids) {
      const known = this.sessions.has(id);
      const s = await this.load(repo.commonDir, id);
      if (!s) continue;
      if (!known) await registrySet(id, repo.commonDir);
      else if (s.status === "active") await s.mutex.run(() => s.reload());
      out.push(s);
    }
    return out.sort((a, b) => a.config.createdAt.localeCompare(b.config.createdAt));
  }
}
