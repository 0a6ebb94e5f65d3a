import os from "node:os";
import path from "node:path";
import type { HaltPolicy, PerfDirection, Weights } from "../evaluate/score.js";
import { UserError } from "../util/errors.js";
import { normalizeRelPath } from "../util/paths.js";

export const DEFAULT_WEIGHTS: Weights = { build: 0.3, test: 0.5, lint: 0.1, perf: 0.1 };
export const DEFAULT_HALT: HaltPolicy = { maxSteps: 12, passThreshold: 0.95, patienceNoImprove: 3, minSteps: 1 };
export const DEFAULT_TIMEOUT_SEC = 120;
export const DEFAULT_EMA_ALPHA = 0.9;

/**
 * What a session is started with (trm_start_session's arguments). The tool's zod schema, with its
 * limits and the descriptions a model reads, is in mcp/tools/start-session.ts and is checked at compile
 * time to list exactly these options; resolveConfig checks what a schema cannot (how options combine).
 */
export interface StartInput {
  /** Absolute path of a git checkout. */
  repoPath: string;
  buildCmd?: string;
  testCmd?: string;
  /** Run first as a gate; {files} is replaced by the changed files. */
  quickTestCmd?: string;
  /** false: every step runs the whole suite (docs/failing-first.md). */
  selectTests?: boolean;
  lintCmd?: string;
  /** Prints a number: lower is better unless perfDirection is "higher". */
  benchCmd?: string;
  /** Run once in the new worktree, e.g. npm ci. */
  setupCmd?: string;
  allowSetupFailure?: boolean;
  /** Per command, default 120. */
  timeoutSec?: number;
  weights?: Partial<Weights>;
  halt?: Partial<HaltPolicy>;
  emaAlpha?: number;
  zNotes?: string;
  /** Evaluate the baseline as step 0. */
  preflight?: boolean;
  /** Skip test and bench when the build fails (default true). */
  cascade?: boolean;
  parallel?: boolean;
  perfDirection?: PerfDirection;
  /** Ignored paths to symlink from the checkout, e.g. .env. */
  linkPaths?: string[];
  checks?: { name: string; cmd: string; weight: number }[];
  /** Worktree-relative path of the JUnit XML report testCmd writes. */
  testReport?: string;
  /** Credential variables the commands may see, separated by commas or spaces. */
  passEnv?: string;
  sandbox?: boolean;
  network?: boolean;
  sandboxPaths?: string[];
  /** Globs of files candidates may not change. */
  protectTests?: string[];
  /**
   * A step that would halt with success also reports surviving mutants (docs/review-runs-code.md); a
   * number in (0, 1] is also their weight in its score (docs/scoring.md).
   */
  testStrength?: boolean | number;
}

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
  /** A step that would halt with success also reports the surviving mutants of the session's lines; a number weighs them in its score (test-strength.ts). */
  testStrength?: boolean | number;
  /** Globs of files a candidate may not change (the tests that judge it). */
  protectTests?: string[];
}

export function resolveConfig(
  input: StartInput,
): Omit<SessionConfig, "id" | "repoTop" | "commonDir" | "createdAt" | "userHead" | "userBranch" | "uncommittedIncluded"> {
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
      "Pass at least one of buildCmd, testCmd, lintCmd, benchCmd (the command you run the tests with as testCmd), or none at all to have them detected from the repository.",
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
  if (typeof input.testStrength === "number" && !(input.testStrength >= 0 && input.testStrength <= 1))
    throw new UserError(
      `testStrength ${input.testStrength} is not a weight between 0 and 1.`,
      "Pass true to report surviving mutants only, or a weight such as 0.3.",
    );
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
    ...(input.sandbox
      ? { sandbox: { network: input.network ?? false, ...(input.sandboxPaths?.length ? { paths: input.sandboxPaths.map(sandboxPath) } : {}) } }
      : {}),
    ...(input.protectTests?.length ? { protectTests: input.protectTests.map((g) => g.trim()).filter(Boolean) } : {}),
    ...(input.testStrength ? { testStrength: input.testStrength } : {}),
  };
}

/** Names of the credential variables the commands may see, separated by commas or spaces. */
function parsePassEnv(text: string): string[] {
  const names = [...new Set(text.split(/[\s,]+/).filter(Boolean))];
  const bad = names.find((n) => !/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(n));
  if (bad !== undefined) {
    throw new UserError(
      `passEnv: ${JSON.stringify(bad.slice(0, 80))} is not an environment variable name.`,
      'List variable names separated by commas, e.g. passEnv: "NPM_TOKEN,GH_TOKEN".',
    );
  }
  return names;
}

/** A `sandboxPaths` entry: absolute, or `~/…` in the home folder; re-exposed read-only in the sandbox. */
function sandboxPath(p: string): string {
  const abs = p === "~" || p.startsWith("~/") ? path.join(os.homedir(), p.slice(1)) : p;
  if (!path.isAbsolute(abs))
    throw new UserError(
      `sandboxPaths: ${JSON.stringify(p.slice(0, 200))} is not an absolute path.`,
      'Name folders to show read-only in the sandbox as absolute paths or ~/…, e.g. sandboxPaths: ["~/.cache/ms-playwright"].',
    );
  return path.resolve(abs);
}
