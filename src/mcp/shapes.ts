import { z } from "zod";

/** Output schema pieces shared by several tools. */
export const testsOut = z
  .object({
    passed: z.number().nullable(),
    failed: z.number().nullable(),
    skipped: z.number().nullable(),
    total: z.number().nullable(),
    format: z.string(),
    failures: z.array(z.object({ name: z.string(), message: z.string().optional(), file: z.string().optional(), line: z.number().optional(), introducedAtStep: z.number().optional() })),
  })
  .nullable();

export const diagnosticOut = z.object({
  file: z.string().optional(),
  line: z.number().optional(),
  column: z.number().optional(),
  code: z.string().optional(),
  message: z.string(),
  severity: z.string(),
  source: z.string(),
  introducedAtStep: z.number(),
});

export const commandOut = z.object({
  kind: z.string(),
  cmd: z.string(),
  ok: z.boolean(),
  exitCode: z.number().nullable(),
  timedOut: z.boolean(),
  skipped: z.string().optional(),
  durationMs: z.number(),
});

export const evaluationOut = z.object({
  score: z.number(),
  okBuild: z.boolean().optional(),
  okLint: z.boolean().optional(),
  tests: testsOut.optional(),
  partial: z.boolean().optional(),
  ran: z.string().optional(),
  perf: z.object({ value: z.number().nullable(), score: z.number() }).optional(),
  commands: z.array(commandOut),
  notices: z.array(z.string()),
});

export const historyItemOut = z.object({
  step: z.number(),
  commit: z.string(),
  score: z.number(),
  tests: z.string(),
  build: z.string(),
  rationale: z.string(),
  testFiles: z.array(z.string()).optional(),
});

export const sessionSummaryOut = z.object({
  sessionId: z.string(),
  branch: z.string(),
  status: z.string(),
  step: z.number(),
  score: z.number().nullable(),
  bestScore: z.number().nullable(),
  tests: z.string().nullable(),
  createdAt: z.string(),
  worktreePath: z.string().nullable(),
});

/** The running figures of a session (figuresView). */
export const figuresOut = {
  step: z.number(),
  score: z.number().nullable(),
  emaScore: z.number().nullable(),
  bestScore: z.number().nullable(),
  bestStep: z.number().nullable(),
  noImproveStreak: z.number(),
  commit: z.string(),
};

/**
 * A point of a session's history (baseline|best|current|<step>|<checkpoint>). Models often send a step
 * as a number: it is accepted as its string. Advertised as a string, so it costs no schema tokens.
 */
export const pointIn = z.preprocess((v) => (typeof v === "number" && Number.isSafeInteger(v) ? String(v) : v), z.string());
