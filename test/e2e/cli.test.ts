import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workRoot } from "../../src/git/refs.js";
import { startServer, type TestServer, tmpEnv } from "../helpers/client.js";
import { filesCandidate, MEDIAN_RIGHT, MEDIAN_WRONG, statsWith } from "../helpers/fixtures.js";
import { checkoutState, g, makeMessy, makeRepo, ROOT, tmpDir } from "../helpers/repo.js";

/** `f` as the server with that state folder computes it. */
function withStateDir<T>(dir: string, f: () => T): T {
  const was = process.env.CODE_TRM_STATE_DIR;
  process.env.CODE_TRM_STATE_DIR = dir;
  try {
    return f();
  } finally {
    if (was === undefined) delete process.env.CODE_TRM_STATE_DIR;
    else process.env.CODE_TRM_STATE_DIR = was;
  }
}

type Any = Record<string, any>;
const BIN = path.join(ROOT, "dist", "cli", "main.js");
const HOME = tmpDir("trm-cli-home-");

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

/** Runs the built command line as a person would, in `cwd`, with no git identity and no terminal. */
function cli(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...tmpEnv(), PATH: process.env.PATH ?? "", HOME, CODE_TRM_STATE_DIR: srv.stateDir, GIT_CONFIG_NOSYSTEM: "1" },
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const json = (cwd: string, ...args: string[]) => {
  const r = cli(cwd, ...args);
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as Any;
};

const submit = (id: string, c: Any, rationale: string) => srv.call<Any>("trm_submit_candidate", { sessionId: id, candidate: c, rationale });
// The whole suite at every step: MEDIAN_WRONG breaks a test that passed (failing first: docs/failing-first.md).
const start = async (repo: string, preflight = true) =>
  (await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", preflight, selectTests: false })).sessionId as string;

/** A session with history: a wrong step undone, the wrong step again (checkpointed), then the fix plus a new file. */
async function sessionWithHistory(repo: string) {
  const id = await start(repo);
  await submit(id, filesCandidate("src/stats.js", statsWith(repo, MEDIAN_WRONG)), "median: take the first element");
  await srv.call("trm_undo", { sessionId: id });
  await submit(id, filesCandidate("src/stats.js", statsWith(repo, MEDIAN_WRONG)), "median: the first element again");
  await srv.call("trm_save_checkpoint", { sessionId: id, name: "wrong", description: "the wrong fix" });
  const fix = {
    mode: "files",
    files: [
      { path: "src/stats.js", content: statsWith(repo, MEDIAN_RIGHT) },
      { path: "NOTES-trm.md", content: "fixed median\n" },
    ],
  };
  const s3 = await submit(id, fix, "median: mean of the middle pair for even lengths");
  return { id, best: s3.commit as string };
}

describe("help, version and usage errors", () => {
  const dir = tmpDir("trm-cli-nogit-");

  it("prints help for the program and every command, and the version", () => {
    for (const args of [["--help"], ["-h"], ["help"]]) {
      const r = cli(dir, ...args);
      expect(r.code).toBe(0);
      for (const c of ["sessions", "log", "diff", "apply", "prune", "demo", "serve"]) expect(r.out).toContain(c);
    }
    for (const c of ["sessions", "log", "diff", "apply", "prune", "demo", "serve"]) {
      for (const args of [
        [c, "--help"],
        [c, "-h"],
        ["help", c],
      ]) {
        const r = cli(dir, ...args);
        expect(r.code, `${args.join(" ")}: ${r.err}`).toBe(0);
        expect(r.out).toContain(`usage: code-trm ${c === "serve" ? "[serve]" : c}`);
      }
    }
    // Help wins over missing or wrong arguments.
    expect(cli(dir, "apply", "--bogus", "--help").code).toBe(0);
    const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));
    expect(cli(dir, "--version")).toMatchObject({ code: 0, out: `code-trm ${pkg.version}\n` });
  });

  it("exits 2 on usage errors, with what to do on stderr", () => {
    const cases: [string[], RegExp][] = [
      // The test PATH has no code-trm: hints name the CLI in the form that runs as printed.
      [["frobnicate"], /unknown command "frobnicate"[\s\S]*see node \S+\/dist\/cli\/main\.js --help/],
      [["--frob"], /unknown option --frob/],
      [["log", "a", "b"], /unexpected argument "b"[\s\S]*main\.js log --help/],
      [["log", "not-an-id"], /malformed session id/],
      [["sessions", "--bogus"], /unknown option --bogus[\s\S]*main\.js sessions --help/],
      [["sessions", "a", "b"], /unexpected argument "b"/],
      [["diff", "20250101-120000-abcd", "a", "b", "c"], /unexpected argument "c"/],
      [["log", "20250101-120000-abcd", "--repo"], /--repo needs a value/],
      [["prune", "--older-than", "soon"], /--older-than needs a number of days/],
      [["prune", "--dry-run=yes"], /takes no value/],
      [["apply", "20250101-120000-abcd", "--", "x"], /takes no arguments after --/],
      [["demo", "extra"], /demo takes no arguments/],
    ];
    for (const [args, re] of cases) {
      const r = cli(dir, ...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.err).toMatch(re);
      expect(r.out).toBe("");
    }
  });

  it("exits 1 with a hint when the operation fails", () => {
    const r = cli(dir, "sessions");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/Not a git checkout[\s\S]*Run this inside a git checkout/);
    expect(cli(dir, "sessions", "does-not-exist")).toMatchObject({ code: 1 });
  });
});

describe("reading sessions: sessions, log, diff", () => {
  let repo: string;
  let id: string;
  let idle: string;
  let best: string;
  beforeAll(async () => {
    repo = makeRepo("js-stats");
    ({ id, best } = await sessionWithHistory(repo));
    idle = await start(repo, false);
  });

  it("sessions: a table with id, status, step, score, best, age; no colour off a terminal", () => {
    const before = checkoutState(repo);
    const r = cli(repo, "sessions");
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+STEP\s+SCORE\s+BEST\s+TESTS\s+AGE$/);
    expect(lines[1]).toMatch(new RegExp(`^${id}\\s+active\\s+2\\s+1\\.000\\s+1\\.000\\s+4/4\\s+\\d+[smhd]$`));
    expect(lines[2]).toMatch(new RegExp(`^${idle}\\s+active\\s+0\\s+-\\s+-\\s+-\\s+\\d+[smhd]$`));
    expect(r.out).not.toContain("\u001b[");
    // From a subdirectory, and by path from elsewhere.
    // AGE is right-aligned: one call at 9s and the next at 10s pad it differently, so the padding goes with it.
    const noAge = (t: string) => t.replace(/ *\d+[smhd]$/gm, "");
    expect(noAge(cli(path.join(repo, "src"), "sessions").out)).toBe(noAge(r.out));
    expect(cli(tmpDir(), "sessions", repo).out).toContain(id);
    expect(checkoutState(repo)).toEqual(before);
  });

  it("sessions --json: stable keys for scripts", () => {
    const j = json(repo, "sessions", "--json");
    expect(j.repo).toBe(g(repo, "rev-parse", "--show-toplevel").trim());
    expect(j.sessions.map((s: Any) => s.sessionId)).toEqual([id, idle]);
    expect(Object.keys(j.sessions[0]).sort()).toEqual(
      [
        "ageSeconds",
        "bestScore",
        "bestStep",
        "branch",
        "createdAt",
        "emaScore",
        "lastActivityAt",
        "readable",
        "score",
        "sessionId",
        "status",
        "step",
        "tests",
        "worktreePath",
      ].sort(),
    );
    expect(j.sessions[0]).toMatchObject({ branch: `trm/${id}`, status: "active", step: 2, score: 1, bestScore: 1, bestStep: 2, tests: "4/4", readable: true });
    expect(j.sessions[1]).toMatchObject({ status: "active", step: 0, score: null, bestScore: null });
  });

  it("log: steps newest first with score, EMA, tests and rationale; best marked; checkpoints and undone work listed", () => {
    const r = cli(repo, "log", id);
    expect(r.code).toBe(0);
    const lines = r.out.split("\n");
    expect(lines[0]).toBe(`session ${id} (active) on trm/${id}, baseline ${g(repo, "rev-parse", `trm/${id}/baseline`).trim().slice(0, 10)}`);
    expect(lines[1]).toMatch(/^step 2 · score 1\.000 · ema 0\.953 · best 1\.000 at step 2 · streak 0 · halt: stop \(success/);
    const table = lines.slice(3, 7);
    expect(table[0]).toMatch(/^STEP\s+COMMIT\s+SCORE\s+EMA\s+TESTS\s+RATIONALE$/);
    expect(table[1]).toMatch(
      new RegExp(`^\\s+2\\s+${best.slice(0, 10)}\\s+1\\.000\\s+0\\.953\\s+4/4\\s+median: mean of the middle pair for even lengths <- best$`),
    );
    expect(table[2]).toMatch(/^\s+1\s+[0-9a-f]{10}\s+0\.500\s+0\.525\s+2\/4\s+median: the first element again \(cached\)$/);
    expect(table[3]).toMatch(/^\s+0\s+baseline\s+0\.750\s+0\.750\s+3\/4\s+\(baseline preflight\)$/);
    expect(r.out).toMatch(/checkpoints:\n {2}wrong {2}step 1 {2}score 0\.500 {2}[0-9a-f]{10} {2}the wrong fix/);
    expect(r.out).toMatch(new RegExp(`undone / superseded work[^\\n]*\\n  trm/${id}/undone/1-[0-9a-f]{12}  [0-9a-f]{10}  step 1, score 0\\.500`));
  });

  it("log --json: the same as data", () => {
    const j = json(repo, "log", id, "--json");
    expect(j).toMatchObject({
      sessionId: id,
      branch: `trm/${id}`,
      status: "active",
      step: 2,
      score: 1,
      bestScore: 1,
      bestStep: 2,
      noImproveStreak: 0,
      halt: { shouldHalt: true },
    });
    expect(j.steps.map((s: Any) => [s.step, s.score, s.best, s.testsSummary])).toEqual([
      [0, 0.75, false, "3/4"],
      [1, 0.5, false, "2/4"],
      [2, 1, true, "4/4"],
    ]);
    expect(j.steps[2]).toMatchObject({ commit: best, tests: { passed: 4, failed: 0, skipped: 0, total: 4 }, build: null, lint: null, improved: true });
    expect(j.steps[2].ema).toBeCloseTo(0.9 * 1 + 0.1 * (0.9 * 0.5 + 0.1 * 0.75), 9);
    expect(j.checkpoints).toEqual([expect.objectContaining({ name: "wrong", step: 1, score: 0.5, description: "the wrong fix", onCurrentHistory: true })]);
    expect(j.kept).toEqual([expect.objectContaining({ kind: "undone", step: 1, score: 0.5, stepsOffHistory: 1 })]);
  });

  it("finds a session by id from anywhere through the session index, or through --repo", () => {
    const elsewhere = tmpDir();
    expect(cli(elsewhere, "log", id).out).toContain(`session ${id}`);
    expect(cli(elsewhere, "log", id, "--repo", repo).code).toBe(0);
    const other = makeRepo("js-stats");
    const r = cli(other, "log", "20200101-000000-abcd");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/No session 20200101-000000-abcd in [\s\S]*`node \S+\/dist\/cli\/main\.js sessions/);
    // With --repo the lookup stays in that repository.
    expect(cli(elsewhere, "log", id, "--repo", other).code).toBe(1);
  });

  it("diff: unified diff baseline..current by default, between any points, with --stat and paths", () => {
    const d = cli(repo, "diff", id);
    expect(d.code).toBe(0);
    expect(d.out).toBe(g(repo, "diff", `trm/${id}/baseline`, `trm/${id}`));
    expect(d.out).toContain("+  const mid = Math.floor(s.length / 2);");
    expect(d.out).toContain("+++ b/NOTES-trm.md");
    expect(cli(repo, "diff", id, "wrong", "best").out).toBe(g(repo, "diff", `trm/${id}/wrong`, best));
    expect(cli(repo, "diff", id, "baseline", "1", "--", "NOTES-trm.md").out).toBe("");
    const only = cli(repo, "diff", id, "--", "NOTES-trm.md").out;
    expect(only).toContain("NOTES-trm.md");
    expect(only).not.toContain("stats.js");
    const stat = cli(repo, "diff", id, "--stat");
    expect(stat.out).toMatch(/^ NOTES-trm\.md \|\s+1 \+\n src\/stats\.js\s+\|\s+\d+ \+*-+\n 2 files changed, \d+ insertions\(\+\), \d+ deletions?\(-\)\n$/);
    const j = json(repo, "diff", id, "1", "best", "--stat", "--json");
    expect(j).toMatchObject({ sessionId: id, from: "step 1", to: "best", toCommit: best });
    expect(j.files.map((f: Any) => f.path)).toEqual(["NOTES-trm.md", "src/stats.js"]);
    expect(Object.keys(j).sort()).toEqual(["files", "from", "fromCommit", "linesAdded", "linesRemoved", "sessionId", "to", "toCommit"]);
    const bad = cli(repo, "diff", id, "nope");
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/No checkpoint named nope/);
  });
});

describe("apply", () => {
  it("brings the result into a clean checkout as uncommitted changes; index, HEAD, branches, stash untouched", async () => {
    const repo = makeRepo("js-stats");
    writeFileSync(path.join(repo, "stashed.txt"), "stash me\n");
    g(repo, "add", "stashed.txt");
    g(repo, "stash", "push", "-q");
    const { id, best } = await sessionWithHistory(repo);
    const before = checkoutState(repo);

    const dry = cli(repo, "apply", id, "--dry-run");
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(/would apply[\s\S]* A NOTES-trm\.md\n M src\/stats\.js/);
    expect(checkoutState(repo)).toEqual(before);

    const r = cli(path.join(repo, "src"), "apply", id);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^applied session .* as uncommitted changes:\n A NOTES-trm\.md\n M src\/stats\.js\n/);
    const after = checkoutState(repo);
    expect(readFileSync(path.join(repo, "src/stats.js"), "utf8")).toBe(g(repo, "show", `${best}:src/stats.js`));
    expect(readFileSync(path.join(repo, "NOTES-trm.md"), "utf8")).toBe("fixed median\n");
    expect(after.status).toBe(" M src/stats.js\n?? NOTES-trm.md\n");
    for (const k of ["index", "head", "headCommit", "refs", "stash"] as const) expect(after[k]).toEqual(before[k]);
    // Applying again is a no-op, not a refusal.
    expect(cli(repo, "apply", id)).toMatchObject({ code: 0, out: expect.stringMatching(/nothing to apply: your working tree already has/) });
    expect(checkoutState(repo)).toEqual(after);
  });

  it("keeps the user's uncommitted work that the session started from, and applies --best", async () => {
    const repo = makeRepo("js-stats");
    makeMessy(repo, "src/stats.js");
    const id = await start(repo);
    // The fix keeps the user's uncommitted edit, which the baseline carried.
    const s1 = await submit(id, filesCandidate("src/stats.js", `${statsWith(repo, MEDIAN_RIGHT)}\n// user's uncommitted edit\n`), "fix");
    await submit(id, filesCandidate("src/stats.js", statsWith(repo, MEDIAN_WRONG)), "worse");
    const before = checkoutState(repo);
    const r = cli(repo, "apply", id, "--best");
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("(best, step 1,");
    const content = readFileSync(path.join(repo, "src/stats.js"), "utf8");
    expect(content).toBe(g(repo, "show", `${s1.commit}:src/stats.js`));
    expect(content).toContain("user's uncommitted edit");
    const after = checkoutState(repo);
    for (const k of ["index", "head", "headCommit", "refs", "stash"] as const) expect(after[k]).toEqual(before[k]);
    expect(after.status).toBe(before.status);
  });

  it("refuses, changing nothing, when a touched file has uncommitted changes that conflict with the session's", async () => {
    const repo = makeRepo("js-stats");
    const { id } = await sessionWithHistory(repo);
    writeFileSync(path.join(repo, "src/stats.js"), `${readFileSync(path.join(repo, "src/stats.js"), "utf8")}// mine, not committed\n`);
    writeFileSync(path.join(repo, "NOTES-trm.md"), "my own notes\n");
    const before = checkoutState(repo);
    for (const args of [
      ["apply", id],
      ["apply", id, "--best"],
      ["apply", id, "--dry-run"],
    ]) {
      const r = cli(repo, ...args);
      expect(r.code).toBe(1);
      // stats.js would merge (the user's line is apart from the session's); the new file the user also wrote cannot.
      expect(r.err).toMatch(
        /Refused: 1 file the session changed has uncommitted changes of yours that conflict with the session's:\n  NOTES-trm\.md: the session adds this file, and yours differs\nNothing was changed\.\nCommit or set aside/,
      );
      expect(r.out).toBe("");
      expect(checkoutState(repo)).toEqual(before);
    }
  });

  it("refuses, changing nothing, when the changes do not apply cleanly to what the user committed since", async () => {
    const repo = makeRepo("js-stats");
    const { id } = await sessionWithHistory(repo);
    const stats = readFileSync(path.join(repo, "src/stats.js"), "utf8");
    writeFileSync(path.join(repo, "src/stats.js"), stats.replace("const s = [...xs].sort((a, b) => a - b);", "const s = xs.slice().sort((x, y) => x - y);"));
    g(repo, "commit", "-q", "-am", "my refactor");
    const before = checkoutState(repo);
    const r = cli(repo, "apply", id);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/do not apply cleanly[\s\S]*src\/stats\.js[\s\S]*Nothing was changed/);
    expect(checkoutState(repo)).toEqual(before);
  });
});

describe("prune", () => {
  it("dry run prints; the real run cleans ended and abandoned sessions, stale entries, locks and tmp, and keeps active ones", async () => {
    const repo = makeRepo("js-stats");
    const common = path.join(repo, ".git");
    const { id: ended } = await sessionWithHistory(repo);
    await srv.call("trm_end_session", { sessionId: ended });
    // An ended session still reads: log and diff work from git alone. Without an id, log shows the
    // newest session; the listing gives an ended session no worktree path (its folder is gone).
    expect(cli(repo, "log", ended).out).toContain(`session ${ended} (ended)`);
    expect(cli(repo, "log").out).toContain(`session ${ended} (ended)`);
    const listed = await srv.call<Any>("trm_list_sessions", { repoPath: repo });
    expect(listed.sessions.find((x: Any) => x.sessionId === ended).worktreePath).toBeNull();
    expect(cli(repo, "diff", ended, "--stat").out).toContain("src/stats.js");
    const active = await start(repo, false);
    await submit(active, filesCandidate("a.txt", "a\n"), "an active step");
    // Abandoned: its server is gone (a live server's session is in use and never pruned) and so is its worktree.
    const other = await startServer({ stateDir: srv.stateDir });
    const abandonedStart = await other.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
    const abandoned = abandonedStart.sessionId as string;
    const abandonedWt = abandonedStart.worktreePath as string;
    // code-trm's folder of this repository, in the state folder: worktrees/, tmp/.
    const root = path.resolve(abandonedWt, "..", "..");
    await other.close();
    for (let i = 0; i < 100 && existsSync(path.join(common, "trm", "run", `${abandoned}.owner`)); i++) await new Promise((r) => setTimeout(r, 50));
    rmSync(abandonedWt, { recursive: true, force: true });
    // The user's own worktree whose directory was deleted by hand: a stale .git/worktrees entry.
    const userWt = path.join(tmpDir(), "feature");
    g(repo, "worktree", "add", "-q", "--detach", userWt);
    rmSync(userWt, { recursive: true, force: true });
    const old = new Date(Date.now() - 10 * 60_000);
    const staleLock = path.join(common, "refs", "heads", "trm", `${active}.lock`);
    writeFileSync(staleLock, "");
    utimesSync(staleLock, old, old);
    const freshLock = path.join(common, "refs", "notes", "trm", `${active}.lock`);
    writeFileSync(freshLock, "");
    mkdirSync(path.join(root, "tmp"), { recursive: true });
    const staleTmp = path.join(root, "tmp", "index-20200101-000000-abcd");
    writeFileSync(staleTmp, "");
    const older = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(staleTmp, older, older);
    const youngTmp = path.join(root, "tmp", "eslint-running");
    mkdirSync(youngTmp);
    utimesSync(youngTmp, old, old);

    // Sessions started within the same second have no defined order: compare by id.
    const statuses = Object.fromEntries(json(repo, "sessions", "--json").sessions.map((s: Any) => [s.sessionId, s.status]));
    expect(statuses).toEqual({ [ended]: "ended", [active]: "active", [abandoned]: "abandoned" });
    const refsBefore = g(repo, "for-each-ref");
    const activeLog = cli(repo, "log", active, "--json").out;
    const userState = checkoutState(repo);

    const dry = cli(repo, "prune", "--dry-run");
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out).toContain("(dry run: nothing changed)");
    expect(dry.out).toMatch(new RegExp(`session ${ended} \\(ended\\):\\n  would delete ref refs/trm/${ended}/undone/`));
    expect(dry.out).toMatch(new RegExp(`session ${abandoned} \\(abandoned[^\\n]*\\n  would mark ended refs/trm/${abandoned}/ended`));
    expect(dry.out).toContain(`session ${active} (active): kept`);
    expect(dry.out).toContain(`would prune stale worktree entry ${abandonedWt}`);
    // A worktree of the user's whose folder is missing (an unmounted drive?) is theirs to forget.
    expect(dry.out).not.toContain(userWt);
    expect(dry.out).toContain(`would remove stale lock .git/refs/heads/trm/${active}.lock`);
    expect(dry.out).toContain(`would remove temporary file ${staleTmp}`);
    expect(dry.out).not.toContain("eslint-running");
    expect(dry.out).not.toContain(`notes/trm/${active}.lock`);
    expect(g(repo, "for-each-ref")).toBe(refsBefore);
    expect([staleLock, freshLock, staleTmp].every((f) => existsSync(f))).toBe(true);
    expect(g(repo, "worktree", "list", "--porcelain")).toContain(userWt);
    const dryJson = json(repo, "prune", "--dry-run", "--json");
    expect(dryJson).toMatchObject({ repo: g(repo, "rev-parse", "--show-toplevel").trim(), dryRun: true });
    expect(Object.keys(dryJson.actions[0]).sort()).toEqual(["action", "detail", "done", "sessionId", "target"]);
    expect(dryJson.actions.every((a: Any) => a.done === false)).toBe(true);

    const real = cli(repo, "prune");
    expect(real.code, real.err).toBe(0);
    expect(real.out).not.toContain("would");
    const refs = g(repo, "for-each-ref", "--format=%(refname)");
    // Ended: the work undo left behind is gone; branch, tags and notes (the user's result) stay.
    expect(refs).not.toContain(`refs/trm/${ended}/undone/`);
    for (const r of [
      `refs/heads/trm/${ended}`,
      `refs/tags/trm/${ended}/baseline`,
      `refs/tags/trm/${ended}/best`,
      `refs/tags/trm/${ended}/wrong`,
      `refs/notes/trm/${ended}`,
    ])
      expect(refs).toContain(r);
    // Abandoned: its locked worktree entry is gone and it is marked ended; its branch stays.
    expect(refs).toContain(`refs/trm/${abandoned}/ended`);
    expect(refs).toContain(`refs/heads/trm/${abandoned}`);
    const wtList = g(repo, "worktree", "list", "--porcelain");
    expect(wtList).not.toContain(`trm-${abandoned}`);
    expect(wtList).toContain(userWt);
    // Active: untouched, still locked, still usable.
    expect(wtList).toMatch(new RegExp(`worktree [^\\n]*trm-${active}\\n[\\s\\S]*?locked`));
    expect(cli(repo, "log", active, "--json").out).toBe(activeLog);
    expect(existsSync(staleLock)).toBe(false);
    expect(existsSync(freshLock)).toBe(true);
    expect(existsSync(staleTmp)).toBe(false);
    expect(existsSync(youngTmp)).toBe(true);
    rmSync(freshLock);
    const more = await submit(active, filesCandidate("b.txt", "b\n"), "still works after prune");
    expect(more.step).toBe(2);
    expect(checkoutState(repo)).toEqual(userState);
    expect(json(repo, "sessions", "--json").sessions.map((s: Any) => s.status)).toEqual(["ended", "active", "ended"]);
    expect(cli(repo, "prune").out).toMatch(/ended, nothing to remove\n[\s\S]*nothing to prune\n$/);

    // --delete-branches removes everything of the ended sessions, nothing of the active one.
    const del = cli(repo, "prune", "--delete-branches");
    expect(del.code, del.err).toBe(0);
    const left = g(repo, "for-each-ref", "--format=%(refname)");
    expect(left).not.toContain(ended);
    expect(left).not.toContain(abandoned);
    expect(left).toContain(`refs/heads/trm/${active}`);
    expect(left).toContain(`refs/tags/trm/${active}/baseline`);
    expect(json(repo, "sessions", "--json").sessions.map((s: Any) => s.sessionId)).toEqual([active]);

    // Whatever --older-than says, a session its live server owns is in use and kept...
    const inUse = JSON.parse(cli(repo, "prune", "--older-than", "0", "--json").out);
    expect(inUse.actions.filter((a: Any) => a.sessionId === active)).toEqual([]);
    expect(inUse.sessions.find((x: Any) => x.sessionId === active).reason).toBe(`in use by process ${srv.pid}`);
    // ...and once its server let it go (as on exit), --older-than prunes an idle active session too:
    // worktree removed, marked ended, branch kept.
    rmSync(path.join(common, "trm", "run", `${active}.owner`));
    const idle = cli(repo, "prune", "--older-than", "0", "--json");
    expect(idle.code, idle.err).toBe(0);
    const actions = JSON.parse(idle.out).actions.filter((a: Any) => a.sessionId === active);
    expect(actions.map((a: Any) => [a.action, a.done])).toEqual([
      ["remove-worktree", true],
      ["end-session", true],
    ]);
    expect(existsSync(path.join(root, "worktrees", `trm-${active}`))).toBe(false);
    expect(g(repo, "worktree", "list", "--porcelain")).not.toContain(`trm-${active}`);
    expect(g(repo, "for-each-ref", "--format=%(refname)")).toContain(`refs/heads/trm/${active}`);
    expect(checkoutState(repo)).toEqual(userState);
    g(repo, "fsck", "--no-progress");
  }, 180_000);
});

describe("prune after an interrupted pull request evaluation", () => {
  it("removes the temporary worktrees and fetched refs it left once they are an hour old, and only then", async () => {
    const repo = makeRepo("js-stats");
    const common = path.join(repo, ".git");
    // Where an evaluation puts them: code-trm's folder of the repository, in the state folder.
    const reviewRoot = path.join(
      withStateDir(srv.stateDir, () => workRoot(common)),
      "review",
    );
    mkdirSync(reviewRoot, { recursive: true });
    const wt = path.join(reviewRoot, "trm-review-0badcafe-head");
    g(repo, "worktree", "add", "-q", "--detach", "--lock", "--reason", "code-trm session review-head", wt, "HEAD");
    g(repo, "update-ref", "refs/trm/review/pr-7-abc123/head", "HEAD");
    const fresh = cli(repo, "prune", "--dry-run");
    expect(fresh.out).not.toMatch(/pull request evaluation|trm-review/);
    const old = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(wt, old, old);
    utimesSync(path.join(common, "refs", "trm", "review", "pr-7-abc123", "head"), old, old);
    const dry = cli(repo, "prune", "--dry-run");
    expect(dry.out).toMatch(/would remove worktree .*trm-review-0badcafe-head/);
    expect(dry.out).toMatch(/would delete ref refs\/trm\/review\/pr-7-abc123\/head/);
    expect(existsSync(wt)).toBe(true);
    const real = cli(repo, "prune");
    expect(real.code).toBe(0);
    expect(existsSync(wt)).toBe(false);
    expect(g(repo, "for-each-ref", "refs/trm")).toBe("");
    expect(g(repo, "worktree", "list")).not.toMatch(/trm-review/);
  });
});

describe("apply under the user's own diff settings", () => {
  it("writes to the right paths with diff.noprefix and diff.context=0, and says so when run again after a commit", async () => {
    const repo = makeRepo("js-stats");
    g(repo, "config", "diff.noprefix", "true");
    g(repo, "config", "diff.context", "0");
    const id = await start(repo, false);
    await submit(
      id,
      {
        mode: "files",
        files: [
          { path: "src/util/new.js", content: "export const x = 1;\n" },
          { path: "src/stats.js", content: statsWith(repo, MEDIAN_RIGHT) },
        ],
      },
      "fix and add",
    );
    const first = cli(repo, "apply", id);
    expect(first.err).toBe("");
    expect(first.code).toBe(0);
    expect(readFileSync(path.join(repo, "src/util/new.js"), "utf8")).toBe("export const x = 1;\n");
    expect(existsSync(path.join(repo, "util/new.js"))).toBe(false);
    expect(readFileSync(path.join(repo, "src/stats.js"), "utf8")).toContain("const mid");
    g(repo, "add", "-A");
    g(repo, "commit", "-q", "-m", "take the session's result");
    const again = cli(repo, "apply", id);
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/nothing to apply/);
  });
});
