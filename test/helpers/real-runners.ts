import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, lstatSync, statSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import type { TestServer } from "./client.js";
import { filesCandidate } from "./fixtures.js";
import { checkoutState, ROOT, repoFromFiles } from "./repo.js";

/**
 * Real test runners run for real through the real server (issue 22): each runner gets a small git
 * repository with a clamp() bug, and the same three steps (a failing baseline, a wrong fix, the right
 * fix) must give the counts the runner itself prints, then a score of exactly 1 and a halt.
 */

type Any = Record<string, any>;
export const CI = process.env.CI === "true";

/** The JavaScript runners, installed once (fixtures/runners/package-lock.json) and linked into each repository. */
export const RUNNERS = path.join(ROOT, "fixtures", "runners");

/**
 * Installs fixtures/runners when its node_modules is missing or older than its lock file (.ci/run has
 * installed it already in CI; a linked node_modules is left alone). flock: test files starting together install once, one after the other.
 */
export function installRunners(): void {
  const stamp = path.join(RUNNERS, "node_modules", ".package-lock.json");
  const fresh = () => existsSync(stamp) && statSync(stamp).mtimeMs >= statSync(path.join(RUNNERS, "package-lock.json")).mtimeMs;
  // A linked node_modules is another checkout's install (a second worktree of this repository): npm ci
  // through the link would empty that copy, and its lock file's age here says nothing about it.
  if (fresh() || lstatSync(path.join(RUNNERS, "node_modules"), { throwIfNoEntry: false })?.isSymbolicLink()) return;
  execFileSync("flock", ["package.json", "sh", "-c", "[ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund"], {
    cwd: RUNNERS,
    stdio: ["ignore", "ignore", "inherit"],
    timeout: 600_000,
  });
  if (!fresh()) throw new Error(`npm ci in ${RUNNERS} did not install the runners`);
}

const has = (tool: string) => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0;
const hasPytest = () => spawnSync("python3", ["-m", "pytest", "--version"]).status === 0;

/**
 * Whether a test needing `tools` runs: always in CI (.ci/run installs them; absent is a failure there),
 * elsewhere only when they are installed. `why` goes into the test's name when it is skipped.
 */
export function needs(tools: string[]): { skip: boolean; why: string } {
  const absent = tools.filter((t) => (t === "pytest" ? !hasPytest() : !has(t)));
  if (absent.length === 0 || CI) return { skip: false, why: "" };
  return { skip: true, why: ` SKIPPED: ${absent.join(", ")} not installed` };
}

/** The server runs with an empty HOME: rustup's cargo finds its toolchains through RUSTUP_HOME. */
export function rustEnv(): Record<string, string> {
  const v = process.env.RUSTUP_HOME ?? path.join(os.homedir(), ".rustup");
  return existsSync(v) ? { RUSTUP_HOME: v } : {};
}

/** clamp(x, lo, hi) three ways: the bug ignores hi, the wrong fix ignores lo, the right one uses both. */
export interface Bodies {
  bug: string;
  wrong: string;
  right: string;
}
export const JS_BODIES: Bodies = { bug: "Math.max(lo, x)", wrong: "Math.min(hi, x)", right: "Math.min(hi, Math.max(lo, x))" };

export interface RunnerCase {
  runner: string;
  /** The test command as the runner's users type it. */
  cmd: string;
  /** The library file the candidates rewrite, and its text for a body of clamp. */
  lib: [path: string, source: (body: string) => string];
  bodies: Bodies;
  /** Every other file of the repository (tests, configuration). */
  files: Record<string, string>;
  /** Links fixtures/runners/node_modules into the repository (ignored) and the worktree (linkPaths). */
  node?: boolean;
  /** The runner's own summary of the counts in its output: code-trm's counts must be the runner's. */
  summary: (passed: number, failed: number) => RegExp;
  /** The name the runner gives the test only the wrong fix fails (clamp below lo). */
  below: RegExp;
  /** null: the runner's output leaves the total unknown (the reader says why in a note). */
  total?: null;
  /** The runner names only failing tests (go test without -v): passed unknown, the score follows the exit code. */
  onlyFailures?: true;
}

/** A repository of `c` with the bug committed; node_modules linked when the runner is a JavaScript one. */
export function runnerRepo(c: RunnerCase): string {
  const [libPath, source] = c.lib;
  const ignore: Record<string, string> = ".gitignore" in c.files ? {} : { ".gitignore": "node_modules\n" };
  const dir = repoFromFiles({ ...ignore, ...c.files, [libPath]: source(c.bodies.bug) }, `trm-${c.runner.replace(/\W/g, "")}-`);
  if (c.node) symlinkSync(path.join(RUNNERS, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}

/** The test output recorded at `at`, which must hold the runner's own summary. */
async function testLog(srv: TestServer, sessionId: string, at: string): Promise<string> {
  return (await srv.call<Any>("trm_read_log", { sessionId, at, command: "test", limit: 200_000 })).content as string;
}

/**
 * The three steps of a refinement loop on `c`: baseline 3 passed / 2 failed (score 0.6), the wrong fix
 * 4 / 1 (0.8, the test it breaks named as new), the right fix 5 / 0, score 1 and halting; each count
 * also found in the runner's own summary. Returns the milliseconds the three evaluations took.
 */
export async function refineWith(srv: TestServer, c: RunnerCase, opts: { sandbox?: boolean } = {}): Promise<number> {
  const t0 = Date.now();
  const repo = runnerRepo(c);
  const before = checkoutState(repo);
  const s = await srv.call<Any>("trm_start_session", {
    repoPath: repo,
    testCmd: c.cmd,
    preflight: true,
    ...(c.node ? { linkPaths: ["node_modules"] } : {}),
    ...(opts.sandbox ? { sandbox: true } : {}),
  });
  const total = c.total === null ? null : 5;
  const counts = (passed: number, failed: number) => (c.onlyFailures ? { passed: null, failed, total: null } : { passed, failed, total });
  const score = (passed: number, failed: number) => (c.onlyFailures ? (failed ? 0 : 1) : passed / (passed + failed));
  const where = `${c.runner}${opts.sandbox ? " (sandbox)" : ""}`;
  const base = s.preflight;
  const baseLog = await testLog(srv, s.sessionId, "baseline");
  expect(base.tests, `${where} baseline: ${JSON.stringify(base)}\n${baseLog}`).toMatchObject(counts(3, 2));
  expect(baseLog).toMatch(c.summary(3, 2));
  expect(base.score).toBeCloseTo(score(3, 2), 6);

  const candidate = (body: string) => filesCandidate(c.lib[0], c.lib[1](body));
  const wrong = await srv.call<Any>("trm_submit_candidate", {
    sessionId: s.sessionId,
    candidate: candidate(c.bodies.wrong),
    rationale: "clamp to hi (forgets lo)",
  });
  const wrongLog = await testLog(srv, s.sessionId, "1");
  expect(wrong.tests, `${where} wrong fix: ${wrong.feedback}\n${wrongLog}`).toMatchObject(counts(4, 1));
  expect(wrongLog).toMatch(c.summary(4, 1));
  expect(wrong.score).toBeCloseTo(score(4, 1), 6);
  expect(wrong.shouldHalt).toBe(false);
  expect(wrong.tests.failures.map((f: Any) => f.name)).toEqual([expect.stringMatching(c.below)]);
  expect(wrong.feedback).toMatch(/new test failures \(1\):/);

  const right = await srv.call<Any>("trm_submit_candidate", {
    sessionId: s.sessionId,
    candidate: candidate(c.bodies.right),
    rationale: "clamp to both bounds",
  });
  const rightLog = await testLog(srv, s.sessionId, "2");
  expect(right.tests, `${where} right fix: ${right.feedback}\n${rightLog}`).toMatchObject({ ...counts(5, 0), failures: [] });
  expect(rightLog).toMatch(c.summary(5, 0));
  expect(right.score).toBe(1);
  expect(right.shouldHalt).toBe(true);
  expect(right.reasons[0]).toMatch(/^success: all tests pass/);
  expect(checkoutState(repo)).toEqual(before);
  await srv.call("trm_end_session", { sessionId: s.sessionId, discard: true });
  return Date.now() - t0;
}
