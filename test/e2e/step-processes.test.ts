import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startServer } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { checkoutState, g, makeRepo } from "../helpers/repo.js";

type Any = Record<string, any>;
const ROOT = path.resolve(import.meta.dirname, "../..");

/** The git processes the server started since `from` (CODE_TRM_DEBUG_GIT prints one line per call). */
function gitCalls(stderr: string, from: number): string[] {
  return stderr
    .slice(from)
    .split("\n")
    .filter((l) => l.startsWith("git "))
    .map((l) => l.replace(/:[^:]*ms$/, ""));
}

describe("a step spawns no git process on its path", () => {
  it("writes tree, commit and notes in-process; after the reply one update-index stages the step's paths and checks the worktree", async () => {
    const repo = makeRepo("js-stats");
    const before = checkoutState(repo);
    const srv = await startServer({ env: { CODE_TRM_DEBUG_GIT: "1" } });
    const { sessionId, worktreePath } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "echo tested", lintCmd: "echo linted" });
    await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", "export const a = 1;\n") });
    await srv.call<Any>("trm_get_state", { sessionId });

    let mark = srv.stderr().length;
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", "export const a = 2;\n") });
    const st = await srv.call<Any>("trm_get_state", { sessionId });
    expect(st.step).toBe(2);
    // Then what the commands left in the worktree goes (leftovers.ts): the tracked folders listed, to give the
    // owner back the rights a command took (chmod 0 src) and for a .git a run made in one (git clean never lists
    // a path named .git), and one git clean.
    expect(gitCalls(srv.stderr(), mark)).toEqual(["git update-index --add --remove", "git ls-tree -r -d", "git clean -ffdxq"]);

    // A new file costs one ignore check, nothing more.
    mark = srv.stderr().length;
    await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("lib/new.js", "export const n = 1;\n") });
    await srv.call<Any>("trm_get_state", { sessionId });
    expect(gitCalls(srv.stderr(), mark)).toEqual(["git check-ignore -z --stdin", "git update-index --add --remove", "git ls-tree -r -d", "git clean -ffdxq"]);

    // A checkpoint is a tag written in-process through the session's update-ref. Undo and restore write
    // the paths that differ in-process, and the history of a point the session left (here: undone) is
    // taken from memory: each stages its paths after the reply with one update-index, nothing more.
    mark = srv.stderr().length;
    const cp = await srv.call<Any>("trm_save_checkpoint", { sessionId, name: "cp", description: "two steps in" });
    expect(gitCalls(srv.stderr(), mark)).toEqual([]);
    expect(g(repo, "cat-file", "-t", `trm/${sessionId}/cp`).trim()).toBe("tag");
    expect(g(repo, "rev-parse", `trm/${sessionId}/cp^{commit}`).trim()).toBe(cp.commit);
    expect((await srv.raw("trm_save_checkpoint", { sessionId, name: "cp" })).isError).toBe(true);
    mark = srv.stderr().length;
    await srv.call<Any>("trm_undo", { sessionId });
    await srv.call<Any>("trm_get_state", { sessionId });
    expect(gitCalls(srv.stderr(), mark)).toEqual(["git update-index --add --remove"]);
    mark = srv.stderr().length;
    await srv.call<Any>("trm_restore_checkpoint", { sessionId, name: "cp" });
    await srv.call<Any>("trm_get_state", { sessionId });
    expect(gitCalls(srv.stderr(), mark)).toEqual(["git update-index --add --remove"]);
    expect((await srv.call<Any>("trm_list_checkpoints", { sessionId })).checkpoints.map((c: Any) => [c.name, c.commit, c.description])).toEqual([
      ["cp", cp.commit, "two steps in"],
    ]);
    // The full output of a step whose record holds it whole is read from the record.
    const log = await srv.call<Any>("trm_read_log", { sessionId, command: "lint" });
    expect(log).toMatchObject({ command: "lint", content: "linted\n", truncated: false });
    expect(log.available.map((a: Any) => a.command).sort()).toEqual(["lint", "test"]);
    await srv.close();

    // What git reads back: the step, its record, an index in line with it, a sound repository.
    expect(g(worktreePath, "rev-parse", "HEAD").trim()).toBe(g(repo, "rev-parse", `trm/${sessionId}`).trim());
    expect(g(worktreePath, "status", "--porcelain")).toBe("");
    expect(g(repo, "show", `trm/${sessionId}~1:src/stats.js`)).toBe("export const a = 2;\n");
    expect(JSON.parse(g(repo, "notes", `--ref=trm/${sessionId}`, "show", r.commit)).step).toBe(2);
    expect(g(repo, "log", "-1", "--format=%s", `refs/notes/trm/${sessionId}`).trim()).toBe("trm: step 3 record");
    // Outputs that fit the record whole ("tested", "linted") are not written a second time as a logs note.
    expect(() => g(repo, "rev-parse", "-q", "--verify", `refs/notes/trm-logs/${sessionId}`)).toThrow();
    expect(g(repo, "fsck", "--full", "--no-dangling", "--no-progress")).toBe("");
    expect(checkoutState(repo)).toEqual(before);
  });

  it("under `* text=auto eol=lf` (prettier's and camelcase's .gitattributes) steps and moves stay in-process; a CRLF file goes through git, normalized", async () => {
    const repo = makeRepo("js-stats");
    writeFileSync(path.join(repo, ".gitattributes"), "* text=auto eol=lf\n");
    g(repo, "add", ".gitattributes");
    g(repo, "commit", "-q", "-m", "attributes");
    const before = checkoutState(repo);
    const srv = await startServer({ env: { CODE_TRM_DEBUG_GIT: "1" } });
    const { sessionId, worktreePath } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "echo tested" });
    await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", "export const a = 1;\n") });
    await srv.call<Any>("trm_get_state", { sessionId });
    let mark = srv.stderr().length;
    await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", "export const a = 2;\n") });
    await srv.call<Any>("trm_undo", { sessionId });
    await srv.call<Any>("trm_get_state", { sessionId });
    expect(gitCalls(srv.stderr(), mark)).toEqual([
      "git update-index --add --remove",
      "git ls-tree -r -d",
      "git clean -ffdxq",
      "git update-index --add --remove",
    ]);
    mark = srv.stderr().length;
    const crlf = await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", "export const a = 3;\r\n") });
    await srv.call<Any>("trm_get_state", { sessionId });
    expect(gitCalls(srv.stderr(), mark).slice(0, 2)).toEqual(["git add -A --", "git write-tree"]);
    expect(g(repo, "show", `${crlf.commit}:src/stats.js`)).toBe("export const a = 3;\n");
    await srv.close();
    expect(g(worktreePath, "status", "--porcelain")).toBe("");
    expect(checkoutState(repo)).toEqual(before);
  });

  it("stages a cached step's paths after the reply in one update-index, and leaves index and files at the step", async () => {
    const repo = makeRepo("js-stats");
    const before = checkoutState(repo);
    const srv = await startServer({ env: { CODE_TRM_DEBUG_GIT: "1" } });
    const { sessionId, worktreePath } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "echo tested" });
    await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", "export const a = 1;\n") });
    await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", "export const a = 2;\n") });
    await srv.call<Any>("trm_undo", { sessionId });
    await srv.call<Any>("trm_get_state", { sessionId });
    const mark = srv.stderr().length;
    // The same tree as the undone step: its evaluation is reused, no command runs in the worktree.
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", "export const a = 2;\n") });
    expect(r.cached).toBe(true);
    await srv.call<Any>("trm_get_state", { sessionId });
    expect(gitCalls(srv.stderr(), mark)).toEqual(["git update-index --add --remove"]);
    await srv.close();
    expect(g(worktreePath, "rev-parse", "HEAD").trim()).toBe(r.commit);
    expect(g(worktreePath, "status", "--porcelain")).toBe("");
    expect(g(worktreePath, "diff", "--cached", "--name-only")).toBe("");
    expect(checkoutState(repo)).toEqual(before);
  });

  // The after-reply check trusts neither the step's own files nor the index: what the commands changed
  // there is found and undone as before (a full status, then a reset).
  for (const [label, testCmd] of [
    ["a step's own file", "echo drift >> src/stats.js"],
    ["another tracked file", "echo drift >> package.json"],
    ["the worktree's index", "git update-index --chmod=+x package.json"],
  ] as const) {
    it(`falls back to git add and a full status when the commands changed ${label}, and leaves the worktree at the step`, async () => {
      const repo = makeRepo("js-stats");
      const before = checkoutState(repo);
      const srv = await startServer({ env: { CODE_TRM_DEBUG_GIT: "1" } });
      const { sessionId, worktreePath } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd });
      const mark = srv.stderr().length;
      const r = await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("src/stats.js", "export const a = 1;\n") });
      await srv.call<Any>("trm_get_state", { sessionId });
      const calls = gitCalls(srv.stderr(), mark);
      expect(calls.slice(-6)).toEqual([
        "git add -A --",
        "git ls-tree -r -d",
        "git status --porcelain=v2 --branch",
        "git reset --hard -q",
        "git ls-tree -r -d",
        "git clean -ffdxq",
      ]);
      await srv.close();
      expect(g(worktreePath, "status", "--porcelain")).toBe("");
      expect(g(worktreePath, "rev-parse", "HEAD").trim()).toBe(r.commit);
      expect(g(worktreePath, "show", "HEAD:src/stats.js")).toBe("export const a = 1;\n");
      expect(checkoutState(repo)).toEqual(before);
    });
  }

  it("starts on a clean checkout without a reset: the worktree's HEAD alone moves to the baseline; a dirty one is reset to it", async () => {
    for (const dirty of [false, true]) {
      const repo = makeRepo("js-stats");
      if (dirty) writeFileSync(path.join(repo, "src/stats.js"), "export const dirty = 1;\n");
      const before = checkoutState(repo);
      const srv = await startServer({ env: { CODE_TRM_DEBUG_GIT: "1" } });
      const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "true" });
      const calls = gitCalls(srv.stderr(), 0);
      await srv.close();
      expect(calls.includes("git reset --hard -q")).toBe(dirty);
      expect(g(s.worktreePath, "rev-parse", "HEAD").trim()).toBe(s.baselineCommit);
      expect(g(s.worktreePath, "status", "--porcelain")).toBe("");
      expect(g(s.worktreePath, "show", "HEAD:src/stats.js")).toBe(readFileSync(path.join(repo, "src/stats.js"), "utf8"));
      expect(checkoutState(repo)).toEqual(before);
    }
  });
});

describe("what the server loads", () => {
  it("does not load the TypeScript compiler until something needs it (a review, a fix), and loads it then", async () => {
    // Loaded at start, it made the server 50 MB larger (bench/fork-cost.mjs) and every process it spawns (three commands and a
    // git call per step) ~1 ms slower to fork.
    const probe = `
      import { createRequire } from "node:module";
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes("/node_modules/typescript/"));
      const { createServer } = await import(${JSON.stringify(path.join(ROOT, "dist/mcp/server.js"))});
      createServer();
      const before = loaded();
      const { reviewPr } = await import(${JSON.stringify(path.join(ROOT, "dist/review/index.js"))});
      await reviewPr({ diff: "diff --git a/a.ts b/a.ts\\n--- a/a.ts\\n+++ b/a.ts\\n@@ -1 +1 @@\\n-x\\n+const y: any = 1;\\n" });
      console.log(JSON.stringify({ before, after: loaded() }));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", probe], { encoding: "utf8" });
    expect(JSON.parse(out.trim().split("\n").at(-1)!)).toEqual({ before: false, after: true });
  });
});
