const MiB = 1024 * 1024;
const maxCandidateBytes = 20 * MiB;

/** Bounds on what a client may send or receive in one call. One place so docs and tests agree. */
export const LIMITS = {
  maxFileBytes: 5 * MiB,
  maxCandidateFiles: 200,
  maxCandidateBytes,
  /**
   * One JSON-RPC message read from stdin, as sent. JSON may spend 6 bytes on one content byte (`\u0001`),
   * so a candidate at maxCandidateBytes always fits, with 1 MiB for names and fields (121 MiB).
   * Larger messages get a JSON-RPC error and the server carries on (src/mcp/stdio-transport.ts).
   */
  maxRequestBytes: 6 * maxCandidateBytes + MiB,
  maxRationaleChars: 4000,
  maxZNotesChars: 8000,
  maxReadPaths: 50,
  maxReadBytes: 512 * 1024,
  /** Output of one command kept for parsing (beyond this, head and tail are kept). */
  maxParseOutputChars: 8 * 1024 * 1024,
  /** Output of one command stored in the evaluation record. */
  maxStoredOutputChars: 64 * 1024,
  /** Output excerpt of one command shown in feedback. */
  maxFeedbackOutputChars: 1500,
  maxTimeoutSec: 3600,
} as const;

/** Progress interval; overridable (CODE_TRM_PROGRESS_MS) so tests need not wait for the 5 s default. */
export function progressIntervalMs(): number {
  const v = Number(process.env.CODE_TRM_PROGRESS_MS);
  return Number.isFinite(v) && v >= 50 ? v : 5000;
}
