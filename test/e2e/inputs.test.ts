import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, textOf } from "../helpers/client.js";
import { filesCandidate, MEDIAN_RIGHT, statsWith } from "../helpers/fixtures.js";
import { checkoutState, g, makeRepo } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

describe("arguments as models send them", () => {
  it("takes steps as numbers, and says what to do after a schema error", async () => {
    const repo = makeRepo("js-stats");
    const before = checkoutState(repo);
    const { sessionId } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
    await srv.call("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)), rationale: "fix" });
    const d = await srv.call<Any>("trm_diff", { sessionId, from: 0, to: 1 });
    expect(d).toMatchObject({ from: "baseline", to: "step 1" });
    expect(d.files.map((f: Any) => f.path)).toEqual(["src/stats.js"]);
    const r = await srv.call<Any>("trm_read_files", { sessionId, paths: ["src/stats.js"], at: 0 });
    expect(r.files[0].content).toContain("return s[Math.floor(s.length / 2)];");

    const bad = await srv.raw("trm_diff", { sessionId, from: { step: 1 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/-32602[\s\S]*\nWhat to do: fix from to match the inputSchema of trm_diff in tools\/list/);
    const fractional = await srv.raw("trm_read_files", { sessionId, paths: ["src/stats.js"], at: 1.2 });
    expect(textOf(fractional)).toMatch(/What to do: fix at .* A best-of-N candidate <step>\.<k> is sent as a string, e\.g\. "3\.2"\./);
    const missing = await srv.raw("trm_read_lines", { sessionId });
    expect(textOf(missing)).toMatch(/What to do: fix (file|startLine|endLine)/);
    // A step past the history is named as sent (not as a rounded float), with what to do.
    const far = await srv.raw("trm_read_files", { sessionId, paths: ["src/stats.js"], at: "99999999999999999999" });
    expect(far.isError).toBe(true);
    expect(textOf(far)).toMatch(/No step 99999999999999999999 in the current history \(steps 0\.\.1\)[\s\S]*What to do: .*trm_get_state/);
    expect(checkoutState(repo)).toEqual(before);
  });
});

describe("candidate errors", () => {
  const stale = "--- a/src/stats.js\n+++ b/src/stats.js\n@@ -1,3 +1,3 @@\n-export function nope(a) {\n+export function nope(b) {\n   return 1;\n }\n";

  it("validate shows expected and closest lines as submit does; submit says each message once", async () => {
    const repo = makeRepo("js-stats");
    const { sessionId } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
    const v = await srv.raw("trm_validate_candidate", { sessionId, candidate: { mode: "patch", patch: stale } });
    const vt = textOf(v);
    expect(vt).toMatch(/^not valid:\n- src\/stats\.js #1: hunk 1 .* does not match the file/);
    expect(vt).toMatch(/\n  expected:\n    export function nope\(a\) \{\n/);
    expect(vt).toMatch(/\n  closest \(line \d+, similarity \d\.\d\d\):\n/);
    expect(vt).toMatch(/\n  hint: Read the current lines/);

    const s = await srv.raw("trm_submit_candidate", { sessionId, candidate: { mode: "patch", patch: stale } });
    expect(s.isError).toBe(true);
    const st = textOf(s);
    expect(st).toMatch(/^Candidate does not apply \(1 problem\); nothing was changed:\n/);
    // The same lines as validate's, and each message once.
    expect(st.slice(st.indexOf("\n") + 1)).toBe(vt.slice(vt.indexOf("\n") + 1));
    expect(st.split("does not match the file").length).toBe(2);
    expect(st.split("Read the current lines").length).toBe(2);
  });
});

describe("starting a session", () => {
  it("says a repoPath that does not exist does not exist", async () => {
    const repo = makeRepo("js-stats");
    const r = await srv.raw("trm_start_session", { repoPath: path.join(repo, "nope"), testCmd: "node --test" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/nope does not exist\.\nWhat to do: Pass the absolute path of an existing checkout/);
    expect(textOf(r)).not.toMatch(/git init/);
  });

  it("fails the start when setupCmd fails, with its last lines, and leaves no session behind", async () => {
    const repo = makeRepo("js-stats");
    const before = checkoutState(repo);
    const r = await srv.raw("trm_start_session", {
      repoPath: repo,
      testCmd: "node --test",
      setupCmd: "echo installing; echo 'npm ERR! missing script: ci' >&2; exit 3",
    });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(
      /setupCmd failed \(exit 3\), so the session was not started[\s\S]*npm ERR! missing script: ci[\s\S]*What to do: [\s\S]*allowSetupFailure: true/,
    );
    expect(g(repo, "for-each-ref", "refs/tags/trm/", "refs/heads/trm/", "refs/notes/").trim()).toBe("");
    expect(g(repo, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
    expect((await srv.call<Any>("trm_list_sessions", { repoPath: repo })).sessions).toEqual([]);
    expect(checkoutState(repo)).toEqual(before);

    const ok = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", setupCmd: "exit 3", allowSetupFailure: true });
    expect(ok.setup).toMatchObject({ ok: false, exitCode: 3 });
    expect((await srv.call<Any>("trm_list_sessions", { repoPath: repo })).sessions).toHaveLength(1);
  });
});
