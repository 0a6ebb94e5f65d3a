import { describe, expect, it } from "vitest";
import { planCandidate } from "../../../src/candidate/plan.js";
import { CandidateError } from "../../../src/candidate/types.js";
import { CASES, findIssue, loadCase } from "../../helpers/patch-corpus.js";
import { memTree } from "./helpers.js";

const cases = CASES;

describe("patch corpus", () => {
  it("has at least 25 cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
  });

  for (const name of cases) {
    it(name, async () => {
      const { before, candidate, error: want, after: expectedAfter, extra } = loadCase(name);

      if (want) {
        const err = await planCandidate(candidate, memTree(before)).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(CandidateError);
        const issues = (err as CandidateError).issues;
        if (want.count !== undefined) expect(issues).toHaveLength(want.count);
        for (const w of want.issues) {
          const match = findIssue(issues, w);
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
      const after = expectedAfter!;
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
