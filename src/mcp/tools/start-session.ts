import { z } from "zod";
import { DEFAULT_EMA_ALPHA, DEFAULT_HALT, DEFAULT_TIMEOUT_SEC, DEFAULT_WEIGHTS, type StartInput } from "../../session/config.js";
import { detectedLines } from "../../session/detect-commands.js";
import type { SessionManager } from "../../session/manager.js";
import { startSession } from "../../session/start.js";
import { LIMITS } from "../../util/limits.js";
import { defineTool, type SameShape } from "../register.js";
import { evaluationOut, evaluationView } from "../views.js";

const cmd = z.string().min(1).max(4000);
const weight = z.number().min(0).max(100);

/** Input of trm_start_session. Descriptions are minimal: this schema is part of every model turn. */
export const startSessionInput = {
  repoPath: z.string().describe("absolute path of a git checkout"),
  buildCmd: cmd.optional(),
  testCmd: cmd.optional(),
  quickTestCmd: cmd.optional().describe("gate first; {files}=changed files"),
  selectTests: z.boolean().optional(),
  lintCmd: cmd.optional(),
  benchCmd: cmd.optional().describe("prints a number, lower is better (perfDirection)"),
  setupCmd: cmd.optional().describe("run once in the new worktree (npm ci)"),
  allowSetupFailure: z.boolean().optional(),
  timeoutSec: z.number().int().min(1).max(LIMITS.maxTimeoutSec).optional().describe("per command (120)"),
  weights: z.object({ build: weight, test: weight, lint: weight, perf: weight }).partial().optional(),
  halt: z
    .object({
      maxSteps: z.number().int().min(1).max(1000),
      passThreshold: z.number().min(0).max(1),
      patienceNoImprove: z.number().int().min(1).max(1000),
      minSteps: z.number().int().min(0).max(1000),
    })
    .partial()
    .optional(),
  emaAlpha: z.number().gt(0).max(1).optional(),
  zNotes: z.string().max(LIMITS.maxZNotesChars).optional(),
  preflight: z.boolean().optional().describe("score baseline as step 0"),
  cascade: z.boolean().optional().describe("skip test/bench on failed build"),
  parallel: z.boolean().optional(),
  perfDirection: z.enum(["lower", "higher"]).optional(),
  linkPaths: z.array(z.string()).max(50).optional().describe("ignored paths to link, e.g. .env"),
  checks: z
    .array(z.object({ name: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/), cmd, weight }))
    .max(10)
    .optional()
    .describe("extra pass/fail signals"),
  testReport: z.string().optional().describe("JUnit XML testCmd writes"),
  // A string ("NPM_TOKEN,GH_TOKEN") rather than an array: it costs half the schema tokens (see test/snapshots/tools).
  passEnv: z.string().max(2000).optional(),
  sandbox: z.boolean().optional(),
  network: z.boolean().optional(),
  sandboxPaths: z.array(z.string().min(1).max(4096)).max(20).optional(),
  protectTests: z.array(z.string().min(1).max(200)).max(20).optional().describe("globs candidates may not change"),
  // A number is its weight in the score, checked in session/config.ts: min and max would cost schema tokens.
  testStrength: z.union([z.boolean(), z.number()]).optional(),
};

// The session layer takes a plain type (session/config.ts StartInput): an option added to one and not
// the other, or typed differently, fails the build here.
true satisfies SameShape<z.infer<z.ZodObject<typeof startSessionInput>>, StartInput>;

/** What resolveConfig (session/config.ts) takes for an option not given; docs/tools.md shows them, a test checks them. */
export const startSessionDefaults = {
  timeoutSec: DEFAULT_TIMEOUT_SEC,
  weights: DEFAULT_WEIGHTS,
  halt: DEFAULT_HALT,
  emaAlpha: DEFAULT_EMA_ALPHA,
  cascade: true,
  parallel: true,
  perfDirection: "lower",
};

export function startSessionTool(sessions: SessionManager) {
  return defineTool({
    name: "trm_start_session",
    description: "Start a refinement session: baseline = the checkout with uncommitted work, branch trm/<id>, own worktree; the checkout stays unchanged.",
    input: startSessionInput,
    defaults: startSessionDefaults,
    notes: {
      buildCmd: "its errors are read as diagnostics (tsc, go, rustc, Python, …)",
      testCmd: "its output is read for counts and failing tests",
      allowSetupFailure: "start even when setupCmd fails",
      weights: "each signal's share of the score",
      halt: "when shouldHalt turns true",
      emaAlpha: "weight of the latest score in emaScore",
      zNotes: "notes carried to every step",
      parallel: "false: test, lint and the checks run one after another",
      passEnv: "credential variables the commands may see, comma-separated (values stay redacted)",
      sandbox: "run the commands under bubblewrap: worktree writable, the rest read-only",
      network: "with sandbox: allow the network",
      sandboxPaths: "with sandbox: folders re-exposed read-only (absolute or ~/…)",
      testStrength: "true: a success also reports its surviving mutants; a number 0..1: also their weight in its score (docs/scoring.md)",
    },
    output: {
      sessionId: z.string(),
      branch: z.string(),
      worktreePath: z.string(),
      baselineCommit: z.string(),
      uncommittedIncluded: z.boolean(),
      startMs: z.number(),
      sandbox: z.boolean(),
      setup: z.object({ cmd: z.string(), ok: z.boolean(), exitCode: z.number().nullable(), durationMs: z.number(), output: z.string() }).optional(),
      submodules: z.object({ ok: z.boolean(), message: z.string() }).optional(),
      /** Files of the checkout that could not be read and are missing from the baseline. */
      unreadable: z.array(z.string()).optional(),
      preflight: evaluationOut.optional(),
      /** The commands detected when none was given: as a client would pass them, and why each. */
      detected: z.object({ commands: z.record(z.string(), z.string()), why: z.record(z.string(), z.string()) }).optional(),
      notes: z.array(z.string()).optional(),
      feedback: z.string().optional(),
    },
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(args, ctx) {
      const r = await startSession(args, ctx);
      sessions.add(r.session);
      const pre = r.session.preflight;
      const structured = {
        sessionId: r.session.id,
        branch: r.branch,
        worktreePath: r.session.worktree,
        baselineCommit: r.snap.commit,
        uncommittedIncluded: r.snap.dirty,
        startMs: r.startMs,
        sandbox: !!r.session.config.sandbox,
        ...(r.setup ? { setup: r.setup } : {}),
        ...(r.submodules ? { submodules: r.submodules } : {}),
        ...(r.snap.skipped.length ? { unreadable: r.snap.skipped } : {}),
        ...(pre ? { preflight: evaluationView(pre) } : {}),
        ...(r.detected ? { detected: { commands: r.detected.args, why: r.detected.why } } : {}),
        ...(r.notes.length ? { notes: r.notes } : {}),
        ...(r.preflightFeedback ? { feedback: r.preflightFeedback } : {}),
      };
      const text = [
        `session ${r.session.id} started on branch ${r.branch} (baseline ${r.snap.commit.slice(0, 12)}${r.snap.dirty ? ", uncommitted changes included" : ""})`,
        `worktree: ${r.session.worktree}`,
        ...(r.session.config.sandbox
          ? [`sandbox: bubblewrap active (worktree writable, rest read-only, ${r.session.config.sandbox.network ? "network allowed" : "no network"})`]
          : []),
        ...(r.submodules ? [`${r.submodules.ok ? "" : "note: "}${r.submodules.message}`] : []),
        ...(r.snap.skipped.length
          ? [`note: ${r.snap.skipped.length} file(s) of the checkout could not be read and are not in the baseline: ${r.snap.skipped.slice(0, 10).join(", ")}`]
          : []),
        ...(r.setup ? [`setup ${r.setup.ok ? "ok" : `FAILED (exit ${r.setup.exitCode})`}: ${r.setup.cmd}${r.setup.ok ? "" : `\n${r.setup.output}`}`] : []),
        ...(r.detected ? detectedLines(r.detected) : []),
        ...r.notes.map((n) => `note: ${n}`),
        ...(r.preflightFeedback ? [`preflight (step 0): ${r.preflightFeedback}`] : []),
      ].join("\n");
      return { structured, text };
    },
  });
}
