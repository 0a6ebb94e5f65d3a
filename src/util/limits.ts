/** Bounds on what a client may send or receive in one call. One place so docs and tests agree. */
export const LIMITS = {
  maxFileBytes: 5 * 1024 * 1024,
  maxCandidateFiles: 200,
  maxCandidateBytes: 20 * 1024 * 1024,
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
