import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { LIMITS } from "../util/limits.js";
import { UserError } from "../util/errors.js";
import { normalizeRelPath } from "../util/paths.js";
import type { HaltPolicy, PerfDirection, Weights } from "../evaluate/score.js";

export const DEFAULT_WEIGHTS: Weights = { build: 0.3, test: 0.5, lint: 0.1, perf: 0.1 };
export const DEFAULT_HALT: HaltPolicy = { maxSteps: 12, passThreshold: 0.95, patienceNoImprove: 3, minSteps: 1 };
export const DEFAULT_TIMEOUT_SEC = 120;
export const DEFAULT_EMA_ALPHA = 0.9;

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
  benchCmd: cmd.optional().describe("prints a number (lower is better unless perfDirection=higher)"),
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
  linkPaths: z.array(z.string()).max(50).optional().describe("ignored paths to symlink, e.g. .env"),
  checks: z
    .array(z.object({ name: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/), cmd, weight }))
    .max(10)
    .optional()
    .describe("extra pass/fail signals"),
  testReport: z.string().optional().describe("JUnit XML testCmd writes"),
  // A string ("NPM_TOKEN,GH_TOKEN") rather than an array: it costs half the schema tokens (see tools-list).
  passEnv: z.string().max(2000).optional(),
  sandbox: z.boolean().optional(),
  network: z.boolean().optional(),
  sandboxPaths: z.array(z.string().min(1).max(4096)).max(20).optional(),
  protectTests: z.array(z.string().min(1).max(200)).max(20).optional().describe("globs candidates may not change"),
  testStrength: z.boolean().optional(),
};

/** What is stored durably with the session (a git note on the baseline commit). */
export interface SessionConfig {
  version: 1;
  id: string;
  repoTop: string;
  commonDir: string;
  createdAt: string;
  userHead: string | null;
  userBranch: string | null;
  uncommittedIncluded: boolean;
  commands: { build?: string; test?: string; quickTest?: string; lint?: string; bench?: string; setup?: string };
  timeoutSec: number;
  weights: Weights;
  halt: HaltPolicy;
  emaAlpha: number;
  zNotes: string;
  cascade: boolean;
  /** false: test, lint and the checks run one after another (default: at the same time). */
  parallel?: boolean;
  /** false: every step runs the whole suite, never the tests that failed before first (docs/failing-first.md). */
  selectTests?: boolean;
  perfDirection: PerfDirection;
  linkPaths: string[];
  /** Extra pass/fail signals (a data-quality script, a security scan, a coverage gate), each weighted. */
  checks: { name: string; cmd: string; weight: number }[];
  /** Worktree-relative path of a JUnit XML report the test command writes. */
  testReport?: string;
  /** Credential-named variables the commands may see (util/secrets.ts); their values stay redacted. */
  passEnv?: string[];
  /** Commands run under bubblewrap (exec/sandbox.ts); network only with `network`. */
  sandbox?: { network: boolean; paths?: string[] };
  /** A step that would halt with success also reports the surviving mutants of the session's lines (test-strength.ts). */
  testStrength?: boolean;
  /** Globs of files a candidate may not change (the tests that judge it). */
  protectTests?: string[];
}

export type StartInput = z.infer<z.ZodObject<typeof startSessionInput>>;

export function resolveConfig(input: StartInput): Omit<SessionConfig, "id" | "repoTop" | "commonDir" | "createdAt" | "userHead" | "userBranch" | "uncommittedIncluded"> {
  const commands = {
    build: input.buildCmd?.trim() || undefined,
    test: input.testCmd?.trim() || undefined,
    quickTest: (input.testCmd?.trim() && input.quickTestCmd?.trim()) || undefined,
    lint: input.lintCmd?.trim() || undefined,
    bench: input.benchCmd?.trim() || undefined,
    setup: input.setupCmd?.trim() || undefined,
  };
  if (!commands.build && !commands.test && !commands.lint && !commands.bench && !input.checks?.length) {
    throw new UserError(
      "No evaluation command given, so nothing could be scored.",
      'Pass at least one of buildCmd, testCmd, lintCmd, benchCmd (the command you run the tests with as testCmd), or none at all to have them detected from the repository.',
    );
  }
  const weights: Weights = { ...DEFAULT_WEIGHTS, ...input.weights };
  const configured = (["build", "test", "lint", "perf"] as const).filter((k) => (k === "perf" ? commands.bench : commands[k]));
  if (configured.every((k) => weights[k] === 0) && (input.checks ?? []).every((c) => c.weight === 0)) {
    throw new UserError(
      `Every configured signal (${configured.join(", ")}) has weight 0, so every score would be 0.`,
      "Give at least one configured signal a positive weight.",
    );
  }
  const checks = (input.checks ?? []).map((c) => ({ name: c.name, cmd: c.cmd.trim(), weight: c.weight }));
  const dup = checks.find((c, i) => checks.findIndex((d) => d.name === c.name) !== i);
  if (dup) throw new UserError(`Two checks are named ${dup.name}.`, "Give every check its own name.");
  const halt: HaltPolicy = { ...DEFAULT_HALT, ...input.halt };
  if (halt.minSteps > halt.maxSteps) {
    throw new UserError(`halt.minSteps (${halt.minSteps}) is greater than halt.maxSteps (${halt.maxSteps}).`, "Lower minSteps or raise maxSteps.");
  }
  return {
    version: 1,
    commands,
    timeoutSec: input.timeoutSec ?? DEFAULT_TIMEOUT_SEC,
    weights,
    halt,
    emaAlpha: input.emaAlpha ?? DEFAULT_EMA_ALPHA,
    zNotes: input.zNotes ?? "",
    cascade: input.cascade ?? true,
    ...(input.parallel === false ? { parallel: false } : {}),
    ...(input.selectTests === false ? { selectTests: false } : {}),
    perfDirection: input.perfDirection ?? "lower",
    linkPaths: input.linkPaths ?? [],
    checks,
    ...(input.testReport ? { testReport: normalizeRelPath(input.testReport) } : {}),
    ...(input.passEnv?.trim() ? { passEnv: parsePassEnv(input.passEnv) } : {}),
    ...(input.sandbox ? { sandbox: { network: input.network ?? false, ...(input.sandboxPaths?.length ? { paths: input.sandboxPaths.map(sandboxPath) } : {}) } } : {}),
    ...(input.protectTests?.length ? { protectTests: input.protectTests.map((g) => g.trim()).filter(Boolean) } : {}),
    ...(input.testStrength ? { testStrength: true } : {}),
  };
}

/** Names of the credential variables the commands may see, separated by commas or spaces. */
function parsePassEnv(text: string): string[] {
  const names = [...new Set(text.split(/[\s,]+/).filter(Boolean))];
  const bad = names.find((n) => !/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(n));
  if (bad !== undefined) {
    throw new UserError(`passEnv: ${JSON.stringify(bad.slice(0, 80))} is not an environment variable name.`, 'List variable names separated by commas, e.g. passEnv: "NPM_TOKEN,GH_TOKEN".');
  }
  return names;
}

/** A `sandboxPaths` entry: absolute, or `~/…` in the home folder; re-exposed read-only in the sandbox. */
function sandboxPath(p: string): string {
  const abs = p === "~" || p.startsWith("~/") ? path.join(os.homedir(), p.slice(1)) : p;
  if (!path.isAbsolute(abs)) throw new UserError(`sandboxPaths: ${JSON.stringify(p.slice(0, 200))} is not an absolute path.`, "Name folders to show read-only in the sandbox as absolute paths or ~/…, e.g. sandboxPaths: [\"~/.cache/ms-playwright\"].");
  return path.resolve(abs);
}
