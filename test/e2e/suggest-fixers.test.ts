import { existsSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { locateTool } from "../../src/suggest/fixers/locate.js";
import { startServer, type TestServer } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { checkoutState, makeRepo } from "../helpers/repo.js";

/**
 * trm_suggest_fix with the real fixers of other toolchains (gofmt, goimports, autoflake or ruff, cargo
 * clippy) over stdio: the suggested candidate, submitted, removes the problem, and neither the worktree
 * (until the submit) nor the user's checkout is written. A test whose tool is not installed is skipped
 * here; in CI (CI=true) the tools .ci/run installs must be there, so their absence fails the test.
 */

type Any = Record<string, any>;
const CI = process.env.CI === "true";
/** Installed by .ci/run (Debian packages): absent in CI is a failure, not a skip. */
const CI_INSTALLS = new Set(["go", "gofmt", "goimports", "autoflake", "flake8"]);
const has = (tool: string) => locateTool("/nonexistent", tool) !== null;

function needs(tools: string[]): { skip: boolean; why: string } {
  const absent = tools.filter((t) => !has(t));
  if (absent.length === 0) return { skip: false, why: "" };
  if (CI && absent.every((t) => CI_INSTALLS.has(t))) return { skip: false, why: "" };
  return { skip: true, why: ` SKIPPED: ${absent.join(", ")} not installed (.ci/run installs golang-go golang-golang-x-tools autoflake flake8)` };
}

// The server runs with an empty HOME: rustup's cargo finds its toolchains through these.
const rustEnv: Record<string, string> = {};
for (const [k, d] of [
  ["RUSTUP_HOME", ".rustup"],
  ["CARGO_HOME", ".cargo"],
] as const) {
  const v = process.env[k] ?? path.join(os.homedir(), d);
  if (existsSync(v)) rustEnv[k] = v;
}

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ env: rustEnv });
});
afterAll(async () => {
  await srv.close();
});

/** What the fixers left in code-trm's scratch folder of the repository (beside the session's worktree). */
const scratchLeft = (worktree: string) => {
  const tmp = path.resolve(worktree, "..", "..", "tmp");
  return existsSync(tmp) ? readdirSync(tmp).filter((n) => !n.startsWith("index-")) : [];
};

/** Starts a session, asks for fixes, submits the one from `fixer`, and checks the checkout stayed as it was. */
async function fixRoundTrip(fixture: string, start: Any, fixer: string, prepare?: (sessionId: string) => Promise<void>) {
  const repo = makeRepo(fixture);
  const before = checkoutState(repo);
  const { sessionId, preflight, worktreePath } = await srv.call<Any>("trm_start_session", { repoPath: repo, preflight: true, ...start });
  if (prepare) await prepare(sessionId);
  const fix = await srv.call<Any>("trm_suggest_fix", { sessionId });
  const s = fix.suggestions.find((x: Any) => x.fixer === fixer);
  expect(s, JSON.stringify(fix)).toBeDefined();
  expect(scratchLeft(worktreePath)).toEqual([]);
  const step = await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: s.candidateToFix, rationale: s.rationale });
  expect(checkoutState(repo)).toEqual(before);
  return { fix, s, step, preflight };
}

describe("trm_suggest_fix with other toolchains' fixers", () => {
  const go = needs(["gofmt", "go"]);
  it.skipIf(go.skip)(`gofmt: a lint of gofmt -l fails, the gofmt candidate makes it pass${go.why}`, async () => {
    const lintCmd = 'out=$(gofmt -l .); echo "$out"; test -z "$out"';
    const { s, step, preflight } = await fixRoundTrip("go-fmt", { lintCmd, testCmd: "go test ./..." }, "gofmt");
    expect(preflight.okLint).toBe(false);
    expect(s).toMatchObject({ priority: "medium", files: ["calc.go"] });
    expect(s.candidateToFix.mode).toBe("modify");
    expect(s.rationale).toMatch(/^gofmt -w \(go version go\d/);
    expect(step).toMatchObject({ okLint: true, score: 1 });
  });

  const gi = needs(["goimports", "go"]);
  it.skipIf(gi.skip)(`goimports: an unused import that breaks the build is removed${gi.why}`, async () => {
    const broken = 'package calc\n\nimport "os"\n\n// Triple returns three times n.\nfunc Triple(n int) int { return 3 * n }\n';
    const { s, step } = await fixRoundTrip("go-fmt", { buildCmd: "go vet ./..." }, "goimports", async (sessionId) => {
      const r = await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesCandidate("triple.go", broken), rationale: "add Triple" });
      expect(r.okBuild).toBe(false);
      expect(r.diagnostics.map((d: Any) => [d.file, d.message])).toContainEqual(["triple.go", expect.stringMatching(/"os" imported (and|but) not used/)]);
    });
    expect(s).toMatchObject({ priority: "critical", files: ["triple.go"] });
    expect(step.okBuild).toBe(true);
  });

  const py = needs(["flake8"]);
  const pyFixer = has("ruff") ? "ruff" : "autoflake";
  const pyTool = needs([pyFixer]);
  it.skipIf(py.skip || pyTool.skip)(`${pyFixer}: flake8 F401 unused import removed${py.why}${pyTool.why}`, async () => {
    const { fix, s, step } = await fixRoundTrip("py-unused", { lintCmd: "flake8 pkg" }, pyFixer);
    expect(s.issue).toBe("pkg/stats.py:1 F401 'os' imported but unused");
    expect(s.files).toEqual(["pkg/stats.py"]);
    // The fixer that ran took the problem: no "would fix it" hint about the one that is missing.
    expect(fix.notes.join("\n")).not.toMatch(/would fix it/);
    // Only one Python fixer is offered for one problem.
    expect(fix.suggestions.filter((x: Any) => x.fixer === "autoflake" || x.fixer === "ruff")).toHaveLength(1);
    expect(step).toMatchObject({ okLint: true, score: 1 });
  });

  const rf = needs(["ruff"]);
  it.skipIf(rf.skip)(`ruff format: a failing ruff format --check gets the formatted file${rf.why}`, async () => {
    const { s, step } = await fixRoundTrip("py-unused", { lintCmd: "ruff format --check pkg" }, "ruff-format", async (sessionId) => {
      const r = await srv.call<Any>("trm_submit_candidate", {
        sessionId,
        candidate: filesCandidate("pkg/config.py", "DEFAULTS = {  'mean':0, 'count' : 1 }\n"),
        rationale: "add config",
      });
      expect(r.okLint).toBe(false);
    });
    expect(s).toMatchObject({ priority: "medium", files: ["pkg/config.py"], issue: "formatting (ruff format --check failed): pkg/config.py" });
    expect(step).toMatchObject({ okLint: true, score: 1 });
  });

  const rs = needs(["cargo-clippy"]);
  it.skipIf(rs.skip)(`cargo clippy --fix: a clippy lint under -D warnings is fixed in a scratch crate${rs.why}`, async () => {
    const { s, step } = await fixRoundTrip("rust-clippy", { lintCmd: "cargo clippy --offline -- -D warnings" }, "clippy");
    expect(s.issue).toMatch(/^src\/lib\.rs:3 unneeded `return` statement/);
    expect(s.rationale).toMatch(/^cargo clippy --fix \(clippy \d/);
    expect(step).toMatchObject({ okLint: true, score: 1 });
  });
});
