import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Candidate } from "../../src/candidate/schema.js";
import type { CandidateIssue } from "../../src/candidate/types.js";

/**
 * The candidate corpus under fixtures/patches/<case>/: before/ (the files), patch.diff or
 * candidate.json (what the model sent), and either after/ (the complete, byte-exact expected files)
 * or expected-error.json. expected.json optionally says whether fuzz must (not) be reported and which
 * warnings must appear. Read by the unit test (planning in memory) and the end-to-end test (stdio).
 */
export const CORPUS = path.resolve(import.meta.dirname, "../../fixtures/patches");

export const CASES = readdirSync(CORPUS)
  .filter((n) => statSync(path.join(CORPUS, n)).isDirectory())
  .sort();

export function readTree(dir: string): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  if (!existsSync(dir)) return out;
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const abs = path.join(d, name);
      if (statSync(abs).isDirectory()) walk(abs);
      else out[path.relative(dir, abs).split(path.sep).join("/")] = readFileSync(abs);
    }
  };
  walk(dir);
  return out;
}

export interface ExpectedIssue {
  file?: string;
  hunk?: number;
  message?: string;
  closestLine?: number;
  minScore?: number;
}

export interface CorpusCase {
  name: string;
  before: Record<string, Buffer>;
  candidate: Candidate;
  /** Present when the candidate must apply. */
  after?: Record<string, Buffer>;
  /** Present when the candidate must be refused. */
  error?: { count?: number; issues: ExpectedIssue[] };
  extra: { fuzz?: boolean; warnings?: string[] };
}

export function loadCase(name: string): CorpusCase {
  const dir = path.join(CORPUS, name);
  const json = (f: string) => JSON.parse(readFileSync(path.join(dir, f), "utf8"));
  const candidate: Candidate = existsSync(path.join(dir, "candidate.json"))
    ? json("candidate.json")
    : { mode: "patch", patch: readFileSync(path.join(dir, "patch.diff"), "utf8") };
  return {
    name,
    before: readTree(path.join(dir, "before")),
    candidate,
    ...(existsSync(path.join(dir, "expected-error.json")) ? { error: json("expected-error.json") } : { after: readTree(path.join(dir, "after")) }),
    extra: existsSync(path.join(dir, "expected.json")) ? json("expected.json") : {},
  };
}

/** The reported issue that satisfies an expectation, if any. */
export function findIssue(issues: CandidateIssue[], w: ExpectedIssue): CandidateIssue | undefined {
  return issues.find(
    (i) =>
      (w.file === undefined || i.file === w.file) &&
      (w.hunk === undefined || i.hunk === w.hunk) &&
      (w.message === undefined || i.message.includes(w.message)) &&
      (w.closestLine === undefined || i.closest?.line === w.closestLine) &&
      (w.minScore === undefined || (i.closest?.score ?? 0) >= w.minScore),
  );
}
