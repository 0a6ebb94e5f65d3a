import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { filesCandidate, MEDIAN_RIGHT, MEDIAN_WRONG, statsWith } from "../helpers/fixtures.js";
import { checkoutState, g, makeMessy, makeRepo, ROOT } from "../helpers/repo.js";

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

type Any = Record<string, any>;

describe("a whole session on a JS project tested with node --test", () => {
  it("scores a failing candidate, then a fixing one, halts on success, and leaves the checkout untouched", async () => {
    const repo = makeRepo("js-stats");
    makeMessy(repo, "src/stats.js");
    const before = checkoutState(repo);

    // The whole suite at every step: step 1 breaks a test that passed (failing first would run only the
    // baseline's failing one, and count the others as they were: test/e2e/failing-first.test.ts).
    const start = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", preflight: true, selectTests: false });
    expect(start.branch).toBe(`trm/${start.sessionId}`);
    expect(start.uncommittedIncluded).toBe(true);
    expect(start.preflight.tests).toMatchObject({ passed: 3, failed: 1, total: 4 });
    expect(start.preflight.score).toBeCloseTo(0.75, 6);
    // The worktree lives outside the working tree, on no path with a `.git` component (jest, ESLint and
    // watchers skip those), and sees the user's uncommitted edit and untracked file.
    expect(start.worktreePath.startsWith(repo + path.sep)).toBe(false);
    expect(start.worktreePath.split(path.sep)).not.toContain(".git");
    expect(readFileSync(path.join(start.worktreePath, "src/stats.js"), "utf8")).toContain("user's uncommitted edit");
    expect(existsSync(path.join(start.worktreePath, "untracked-notes.md"))).toBe(true);
    expect(existsSync(path.join(start.worktreePath, "staged.txt"))).toBe(true);

    const s1 = await srv.call<Any>("trm_submit_candidate", {
      sessionId: start.sessionId,
      candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_WRONG)),
      rationale: "median: take the first element",
    });
    expect(s1.step).toBe(1);
    expect(s1.tests).toMatchObject({ passed: 2, failed: 2, total: 4 });
    expect(s1.score).toBeCloseTo(0.5, 6);
    expect(s1.improved).toBe(false);
    expect(s1.noImproveStreak).toBe(1);
    expect(s1.bestScore).toBeCloseTo(0.75, 6);
    expect(s1.emaScore).toBeCloseTo(0.9 * 0.5 + 0.1 * 0.75, 6);
    expect(s1.shouldHalt).toBe(false);
    expect(s1.feedback).toMatch(/median of odd length/);
    const oddFailure = s1.tests.failures.find((f: Any) => f.name.includes("odd"));
    expect(oddFailure.introducedAtStep).toBe(1);
    const evenFailure = s1.tests.failures.find((f: Any) => f.name.includes("even"));
    expect(evenFailure.introducedAtStep).toBe(0);

    const s2 = await srv.call<Any>("trm_submit_candidate", {
      sessionId: start.sessionId,
      candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)),
      rationale: "median: mean of the middle pair for even lengths",
    });
    expect(s2).toMatchObject({ step: 2, score: 1, bestScore: 1, improved: true, noImproveStreak: 0, shouldHalt: true });
    expect(s2.tests).toMatchObject({ passed: 4, failed: 0, total: 4 });
    expect(s2.reasons[0]).toMatch(/^success/);

    // Plain git tells the story: one commit per step with trailers, a note with the full record, tags.
    const branch = start.branch;
    const log = g(
      repo,
      "log",
      "--format=%s|%(trailers:key=TRM-Step,valueonly,separator=)|%(trailers:key=TRM-Tests,valueonly,separator=)",
      `${branch}/baseline..${branch}`,
    )
      .trim()
      .split("\n");
    expect(log).toEqual(["trm step 2: median: mean of the middle pair for even lengths|2|4/4", "trm step 1: median: take the first element|1|2/4"]);
    const note = JSON.parse(g(repo, "notes", `--ref=trm/${start.sessionId}`, "show", branch));
    expect(note).toMatchObject({ kind: "step", step: 2, score: 1 });
    expect(g(repo, "rev-parse", `${branch}/best`).trim()).toBe(s2.commit);
    expect(g(repo, "rev-parse", `${branch}/baseline^`).trim()).toBe(before.headCommit);
    // The baseline carries the user's uncommitted state; the user's branch does not.
    expect(g(repo, "show", `${branch}/baseline:untracked-notes.md`)).toBe("user's untracked file\n");

    const state = await srv.call<Any>("trm_get_state", { sessionId: start.sessionId });
    expect(state).toMatchObject({ step: 2, score: 1, bestStep: 2, noImproveStreak: 0, shouldHalt: true });
    expect(state.history.map((h: Any) => h.step)).toEqual([0, 1, 2]);

    const end = await srv.call<Any>("trm_end_session", { sessionId: start.sessionId });
    expect(end).toMatchObject({ ok: true, branch, bestCommit: s2.commit, bestStep: 2 });
    // The test PATH has no code-trm: the command is printed in the form that runs as printed.
    expect(end.howToApply[0]).toBe(
      `node ${path.join(ROOT, "dist", "cli", "main.js")} apply ${start.sessionId} --repo '${repo}'   # as uncommitted changes in your working tree (add --best for the best step)`,
    );
    // The baseline carried uncommitted work: a merge would commit it too, so the git way is a diff.
    expect(end.howToApply[1]).toMatch(new RegExp(`^git -C '${repo}' diff trm/${start.sessionId}/baseline ${branch} \\| git -C '${repo}' apply `));
    expect(end.howToApply.join("\n")).not.toMatch(/git merge|--3way/);
    expect(existsSync(start.worktreePath)).toBe(false);
    expect(g(repo, "worktree", "list", "--porcelain")).not.toContain(start.worktreePath);

    expect(checkoutState(repo)).toEqual(before);
    // The user can check the session branch out without "already checked out" errors (detached worktree).
    expect(g(repo, "branch", "--list", "trm/*").trim()).toBe(branch);
  });

  it("halts on plateau after patienceNoImprove steps without improvement", async () => {
    const repo = makeRepo("js-stats");
    const { sessionId } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", halt: { patienceNoImprove: 2 } });
    const a = await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("a.txt", "1\n") });
    expect(a).toMatchObject({ step: 1, improved: true, shouldHalt: false });
    const b = await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("a.txt", "2\n") });
    expect(b).toMatchObject({ step: 2, improved: false, noImproveStreak: 1, shouldHalt: false });
    const c = await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("a.txt", "3\n") });
    expect(c).toMatchObject({ step: 3, noImproveStreak: 2, shouldHalt: true });
    expect(c.reasons[0]).toMatch(/^plateau/);
    const h = await srv.call<Any>("trm_should_halt", { sessionId });
    expect(h.shouldHalt).toBe(true);
    await srv.call("trm_end_session", { sessionId, discard: true });
    expect(g(repo, "for-each-ref", "refs/heads/trm", "refs/tags/trm", "refs/notes/trm")).toBe("");
  });

  it("halts on the step limit", async () => {
    const repo = makeRepo("js-stats");
    const { sessionId } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", halt: { maxSteps: 2, patienceNoImprove: 10 } });
    await srv.call("trm_submit_candidate", { sessionId, candidate: filesCandidate("a.txt", "1\n") });
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("a.txt", "2\n") });
    expect(r.shouldHalt).toBe(true);
    expect(r.reasons).toEqual([expect.stringMatching(/^limit/)]);
  });
});

describe("a repository without any commit yet", () => {
  it("makes a parentless baseline of the files as they are", async () => {
    const repo = makeRepo("js-stats");
    const fresh = path.join(path.dirname(repo), "fresh");
    g(path.dirname(repo), "init", "-q", "-b", "main", fresh);
    writeFileSync(path.join(fresh, "a.txt"), "hello\n");
    const before = checkoutState(fresh);
    const s = await srv.call<Any>("trm_start_session", { repoPath: fresh, testCmd: "test -f a.txt && echo 'ok 1 - a' && echo '1..1'", preflight: true });
    expect(s.uncommittedIncluded).toBe(true);
    expect(s.preflight.tests).toMatchObject({ passed: 1, total: 1 });
    expect(g(fresh, "rev-list", "--count", `trm/${s.sessionId}/baseline`).trim()).toBe("1");
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("b.txt", "b\n") });
    expect(r.step).toBe(1);
    expect(checkoutState(fresh)).toEqual(before);
  });
});

describe("a TypeScript project built with tsc", () => {
  const tsc = `node ${path.join(ROOT, "node_modules", "typescript", "bin", "tsc")} -p .`;
  it("reports tsc diagnostics with file and line, skips tests after a failed build, and recovers", async () => {
    const repo = makeRepo("ts-shapes");
    const before = checkoutState(repo);
    const { sessionId } = await srv.call<Any>("trm_start_session", {
      repoPath: repo,
      buildCmd: tsc,
      testCmd: "node -e \"console.log('ok 1 - t'); console.log('1..1')\"",
      preflight: true,
    });
    const broken = await srv.call<Any>("trm_submit_candidate", {
      sessionId,
      candidate: filesCandidate(
        "src/index.ts",
        'import { area, type Shape } from "./shapes.js";\n\nexport function totalArea(shapes: Shape[]): string {\n  return shapes.reduce((acc, s) => acc + area(s), 0);\n}\n',
      ),
      rationale: "return a string",
    });
    expect(broken.okBuild).toBe(false);
    expect(broken.score).toBe(0);
    expect(broken.feedback).toMatch(/tests skipped \(build failed\)/);
    expect(broken.diagnostics[0]).toMatchObject({ file: "src/index.ts", line: 4, code: "TS2322", introducedAtStep: 1 });
    const fixed = await srv.call<Any>("trm_submit_candidate", {
      sessionId,
      candidate: filesCandidate(
        "src/index.ts",
        'import { area, type Shape } from "./shapes.js";\n\nexport function totalArea(shapes: Shape[]): number {\n  return shapes.reduce((acc, s) => acc + area(s), 0);\n}\n',
      ),
    });
    expect(fixed).toMatchObject({ okBuild: true, score: 1, diagnostics: [] });
    expect(checkoutState(repo)).toEqual(before);
  });
});

describe("timeouts", () => {
  it("kills a hanging test command and its children, and scores the step", async () => {
    const repo = makeRepo("js-stats");
    const pidFile = path.join(repo, "..", "child.pid");
    const { sessionId } = await srv.call<Any>("trm_start_session", {
      repoPath: repo,
      testCmd: `sh -c 'sleep 300 & echo $! > ${pidFile}; wait'`,
      timeoutSec: 1,
    });
    const t0 = Date.now();
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("a.txt", "x\n") });
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(r.score).toBe(0);
    expect(r.feedback).toMatch(/timed out and was killed/);
    const pid = Number(readFileSync(pidFile, "utf8"));
    await new Promise((res) => setTimeout(res, 300));
    let state = "gone";
    try {
      state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "gone";
    } catch {
      /* gone */
    }
    expect(["gone", "Z"]).toContain(state);
  });
});

describe("a repository with submodules", () => {
  it("initialises the submodules the user initialised, says which are missing, and leaves their config alone", async () => {
    const lib = makeRepo("ts-shapes");
    const other = makeRepo("js-stats");
    const repo = makeRepo("js-stats");
    g(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "libs/shapes");
    g(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", other, "libs/stats");
    // A setting in .gitmodules the user's config does not have: initialising would copy it there.
    g(repo, "config", "-f", ".gitmodules", "submodule.libs/shapes.update", "rebase");
    g(repo, "add", ".gitmodules");
    g(repo, "commit", "-q", "-m", "add submodules");
    // The user has deinitialised one of them: it is absent in their checkout, and must stay so here.
    g(repo, "submodule", "deinit", "-q", "-f", "libs/stats");
    const before = checkoutState(repo);
    // Cloning a submodule from a local path needs the file transport allowed globally, as a user would.
    const local = await startServer({ gitconfig: '[protocol "file"]\n\tallow = always\n' });
    const s = await local.call<Any>("trm_start_session", {
      repoPath: repo,
      testCmd: "test -f libs/shapes/src/shapes.ts && echo 'ok 1 - shapes' && echo '1..1'",
      preflight: true,
    });
    expect(s.submodules.ok).toBe(false);
    expect(s.submodules.message).toMatch(/initialised in the worktree: libs\/shapes\..*Not initialised in your checkout either, so not here: libs\/stats/);
    expect(existsSync(path.join(s.worktreePath, "libs/shapes/src/shapes.ts"))).toBe(true);
    expect(existsSync(path.join(s.worktreePath, "libs/stats/src/stats.js"))).toBe(false);
    expect(s.preflight.tests).toMatchObject({ passed: 1, total: 1 });
    // git refuses to remove a worktree that contains submodules: ending the session must still clean up.
    await local.call("trm_end_session", { sessionId: s.sessionId });
    await local.close();
    expect(existsSync(s.worktreePath)).toBe(false);
    expect(g(repo, "worktree", "list", "--porcelain")).not.toContain(s.worktreePath);
    expect(existsSync(path.join(repo, ".git", "worktrees", `trm-${s.sessionId}`))).toBe(false);
    expect(checkoutState(repo)).toEqual(before);
  });
});

describe("a checkout with flagged and unreadable files", () => {
  it("puts skip-worktree and assume-unchanged edits into the baseline, leaving the user's flags alone", async () => {
    const repo = makeRepo("js-stats");
    writeFileSync(path.join(repo, "package.json"), '{ "name": "locally-edited", "type": "module" }\n');
    g(repo, "update-index", "--skip-worktree", "package.json");
    writeFileSync(path.join(repo, "src/stats.js"), `${readFileSync(path.join(repo, "src/stats.js"), "utf8")}// local\n`);
    g(repo, "update-index", "--assume-unchanged", "src/stats.js");
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
    expect(s.uncommittedIncluded).toBe(true);
    expect(readFileSync(path.join(s.worktreePath, "package.json"), "utf8")).toContain("locally-edited");
    expect(readFileSync(path.join(s.worktreePath, "src/stats.js"), "utf8")).toContain("// local");
    // The user's flags stay on their index.
    expect(checkoutState(repo)).toEqual(before);
    expect(g(repo, "ls-files", "-v", "package.json", "src/stats.js")).toBe("S package.json\nh src/stats.js\n");
  });

  // Root reads any file, so this can only be shown as another user.
  it.skipIf(process.getuid?.() === 0)("starts when a file cannot be read, and says which", async () => {
    const repo = makeRepo("js-stats");
    writeFileSync(path.join(repo, "secret.txt"), "no\n");
    chmodSync(path.join(repo, "secret.txt"), 0o000);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
    expect(s.unreadable).toEqual(["secret.txt"]);
  });
});
