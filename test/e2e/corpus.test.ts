import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CandidateIssue } from "../../src/candidate/types.js";
import { startServer, type TestServer, textOf } from "../helpers/client.js";
import { CASES, findIssue, loadCase, readTree } from "../helpers/patch-corpus.js";
import { checkoutState, g, tmpDir } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

/** The worktree's files as the corpus sees them: everything but git's own file. */
function worktreeFiles(wt: string): Record<string, Buffer> {
  const all = readTree(wt);
  delete all[".git"];
  return all;
}

/**
 * The whole candidate corpus through the real server: each case's files become a repository, the
 * candidate goes through trm_validate_candidate and trm_submit_candidate over stdio, and the session
 * worktree must then hold exactly the expected files (or be unchanged, for a refused candidate).
 */
describe("candidate corpus over stdio", () => {
  for (const name of CASES) {
    it(name, async () => {
      const c = loadCase(name);
      const repo = path.join(tmpDir("trm-corpus-"), "repo");
      mkdirSync(repo);
      for (const [p, content] of Object.entries(c.before)) {
        mkdirSync(path.dirname(path.join(repo, p)), { recursive: true });
        writeFileSync(path.join(repo, p), content);
      }
      g(repo, "init", "-q", "-b", "main");
      g(repo, "add", "-A");
      g(repo, "commit", "-q", "--allow-empty", "-m", "before");
      const user = checkoutState(repo);
      const { sessionId, worktreePath } = await srv.call<Any>("trm_start_session", { repoPath: repo, buildCmd: "true" });

      const v = await srv.call<Any>("trm_validate_candidate", { sessionId, candidate: c.candidate });
      if (c.error) {
        expect(v.valid, JSON.stringify(v.errors)).toBe(false);
        for (const w of c.error.issues) expect(findIssue(v.errors as CandidateIssue[], w), `no issue like ${JSON.stringify(w)}`).toBeDefined();
        const r = await srv.raw("trm_submit_candidate", { sessionId, candidate: c.candidate });
        expect(r.isError).toBe(true);
        expect(textOf(r)).toMatch(/What to do|hint/);
        expect(worktreeFiles(worktreePath)).toEqual(c.before);
      } else {
        expect(v.valid, JSON.stringify(v.errors)).toBe(true);
        const r = await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: c.candidate });
        expect(r.step).toBe(1);
        const got = worktreeFiles(worktreePath);
        expect(Object.keys(got).sort()).toEqual(Object.keys(c.after!).sort());
        for (const [p, content] of Object.entries(c.after!)) expect(JSON.stringify(got[p]!.toString("utf8")), p).toBe(JSON.stringify(content.toString("utf8")));
        // What the worktree holds is what the step commit recorded (its index follows after the reply;
        // the next operation waits for it).
        await srv.call<Any>("trm_get_state", { sessionId });
        expect(g(worktreePath, "status", "--porcelain")).toBe("");
        if (c.extra.fuzz === true) expect(r.warnings.join("\n")).toMatch(/fuzz/);
        // What validate warns of, submit says too (e.g. the stale context line it applied past).
        for (const w of c.extra.warnings ?? []) {
          expect(v.warnings.join("\n")).toContain(w);
          expect(r.warnings.join("\n")).toContain(w);
        }
      }
      expect(checkoutState(repo)).toEqual(user);
    });
  }
});
