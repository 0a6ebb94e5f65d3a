import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { planCandidate } from "../../../src/candidate/plan.js";
import type { Candidate } from "../../../src/candidate/schema.js";
import { CandidateError } from "../../../src/candidate/types.js";
import { memTree } from "./helpers.js";

/**
 * Each case under fixtures/patches/<case>/ holds before/ (the files), patch.diff or candidate.json (what
 * the model sent), and either after/ (the complete, byte-exact expected files) or expected-error.json.
 * expected.json optionally says whether fuzz must (not) be reported and which warnings must appear.
 */
const CORPUS = path.resolve(__dirname, "../../../fixtures/patches");

function readTree(dir: string): Record<string, Buffer> {
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

interface ExpectedIssue {
  file?: string;
  hunk?: number;
  message?: string;
  closestLine?: number;
  minScore?: number;
}

const cases = readdirSync(CORPUS).filter((n) => statSync(path.join(CORPUS, n)).isDirectory()).sort();

describe("patch corpus", () => {
  it("has at least 25 cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
  });

  for (const name of cases) {
    it(name, async () => {
      const dir = path.join(CORPUS, name);
      const before = readTree(path.join(dir, "before"));
      const candidate: Candidate = existsSync(path.join(dir, "candidate.json"))
        ? JSON.parse(readFileSync(path.join(dir, "candidate.json"), "utf8"))
        : { mode: "patch", patch: readFileSync(path.join(dir, "patch.diff"), "utf8") };
      const errorFile = path.join(dir, "expected-error.json");
      const extra = existsSync(path.join(dir, "expected.json")) ? JSON.parse(readFileSync(path.join(dir, "expected.json"), "utf8")) : {};

      if (existsSync(errorFile)) {
        const want = JSON.parse(readFileSync(errorFile, "utf8")) as { count?: number; issues: ExpectedIssue[] };
        const err = await planCandidate(candidate, memTree(before)).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(CandidateError);
        const issues = (err as CandidateError).issues;
        if (want.count !== undefined) expect(issues).toHaveLength(want.count);
        for (const w of want.issues) {
          const match = issues.find(
            (i) =>
              (w.file === undefined || i.file === w.file) &&
              (w.hunk === undefined || i.hunk === w.hunk) &&
              (w.message === undefined || i.message.includes(w.message)) &&
              (w.closestLine === undefined || i.closest?.line === w.closestLine) &&
              (w.minScore === undefined || (i.closest?.score ?? 0) >= w.minScore),
          );
          expect(match, `no issue like ${JSON.stringify(w)} in ${JSON.stringify(issues, null, 1)}`).toBeDefined();
        }
        return;
      }

      const plan = await planCandidate(candidate, memTree(before));
      const result: Record<string, Buffer> = { ...before };
      for (const op of plan.ops) {
        if (op.op === "delete") delete result[op.path];
        else result[op.path] = op.content;
      }
      const after = readTree(path.join(dir, "after"));
      expect(Object.keys(result).sort()).toEqual(Object.keys(after).sort());
      for (const [p, content] of Object.entries(after)) {
        // Compared as JSON strings so a CR, BOM or missing final newline shows up in the failure diff.
        expect(JSON.stringify(result[p]!.toString("utf8")), p).toBe(JSON.stringify(content.toString("utf8")));
        expect(result[p]!.equals(content), p).toBe(true);
      }
      if (extra.fuzz === true) expect(plan.fuzz.length, "fuzz expected").toBeGreaterThan(0);
      if (extra.fuzz === false) expect(plan.fuzz, "no fuzz expected").toEqual([]);
      for (const w of (extra.warnings ?? []) as string[]) expect(plan.warnings.join("\n")).toContain(w);
    });
  }
});
