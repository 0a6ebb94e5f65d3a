import { UserError } from "../util/errors.js";
import { normalizeRelPath } from "../util/paths.js";
import type { CandidateIssue } from "./types.js";

/** Normalises a path, recording a refusal as an issue instead of throwing so all problems are reported at once. */
export function normalizeInto(p: string, issues: CandidateIssue[]): string | null {
  try {
    return normalizeRelPath(p);
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    issues.push({ file: p, message: err.message, hint: err.hint });
    return null;
  }
}
