import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { suggestFixes } from "../../../src/suggest/fixes.js";
import { getSuggestions } from "../../../src/suggest/suggestions.js";
import { UserError } from "../../../src/util/errors.js";
import { g } from "../../helpers/repo.js";
import { filesCandidate, NODENEXT_TSCONFIG, sessionOver, snapshot, TSC } from "./helpers.js";

const REPORT_FIXED = `import { add, clamp } from "./math.js";

export function total(values: number[]): number {
  return values.reduce((acc, v) => add(acc, v), 0);
}

export function scale(value: number, factor: number): number {
  return clamp(value * factor, 0, 100);
}
`;

describe("trm_suggest_fix on a session", () => {
  it("offers the combined TypeScript fix first; submitted, it makes the build pass", async () => {
    const { session } = await sessionOver("ts-fixable", { buildCmd: TSC, preflight: true });
    expect(session.entries[0]!.evaluation.okBuild).toBe(false);
    const wt = snapshot(session.worktree);
    const r = await suggestFixes(session);
    expect(snapshot(session.worktree)).toEqual(wt);
    expect(g(session.worktree, "status", "--porcelain")).toBe("");
    expect(r.dropped).toBe(0);
    expect(r.suggestions.map((s) => [s.priority, s.fixer, s.issue])).toEqual([
      ["critical", "typescript", expect.stringMatching(/^2 tsc errors: src\/report.ts:4 TS2304 .*src\/report.ts:7 TS7006/)],
      ["critical", "typescript", "src/report.ts:4 TS2304 Cannot find name 'add'."],
      ["critical", "typescript", "src/report.ts:7 TS7006 Parameter 'value' implicitly has an 'any' type."],
    ]);
    expect(r.suggestions[0]!.rationale).toMatch(/2 → 0 errors/);
    const step = await session.submit({ candidate: r.suggestions[0]!.candidateToFix, rationale: "apply suggested fix" }, {});
    expect(step.ev.okBuild).toBe(true);
    expect(readFileSync(path.join(session.worktree, "src/report.ts"), "utf8")).toBe(REPORT_FIXED);
    // Nothing left to fix.
    const after = await suggestFixes(session);
    expect(after.suggestions).toEqual([]);
    expect(after.notes.join()).toMatch(/no diagnostics/);
  });

  it("single fixes stay valid after another one was submitted (they anchor on text, not line numbers)", async () => {
    const { session } = await sessionOver("ts-fixable", { buildCmd: TSC, preflight: true });
    const r = await suggestFixes(session);
    const singles = r.suggestions.slice(1);
    expect(singles).toHaveLength(2);
    await session.submit({ candidate: singles[1]!.candidateToFix, rationale: "implicit any" }, {});
    const last = await session.submit({ candidate: singles[0]!.candidateToFix, rationale: "missing import" }, {});
    expect(last.ev.okBuild).toBe(true);
  });

  it("falls back to a hand-written rule where the language service has no fix (TS2835)", async () => {
    const { session } = await sessionOver(
      {
        "package.json": '{ "type": "module" }\n',
        "tsconfig.json": NODENEXT_TSCONFIG,
        "src/m.ts": "export const a = 1;\n",
        "src/i.ts": 'import { a } from "./m";\nexport const b = a + 1;\n',
      },
      { buildCmd: TSC, preflight: true },
    );
    expect(session.entries[0]!.evaluation.diagnostics.map((d) => d.code)).toEqual(["TS2835"]);
    const r = await suggestFixes(session);
    expect(r.suggestions).toEqual([
      expect.objectContaining({
        priority: "critical",
        fixer: "rule",
        candidateToFix: {
          mode: "modify",
          changes: [{ file: "src/i.ts", edits: [{ type: "replace", oldText: 'import { a } from "./m";\n', newText: 'import { a } from "./m.js";\n' }] }],
        },
      }),
    ]);
    expect((await session.submit({ candidate: r.suggestions[0]!.candidateToFix, rationale: "" }, {})).ev.okBuild).toBe(true);
  });

  it("says what to do before the first evaluation, and refuses an ended session", async () => {
    const { session } = await sessionOver("ts-fixable", { buildCmd: TSC });
    expect(await suggestFixes(session)).toMatchObject({ suggestions: [], notes: [expect.stringMatching(/No evaluation yet/)] });
    await session.end(false);
    await expect(suggestFixes(session)).rejects.toBeInstanceOf(UserError);
  });
});

describe("trm_get_suggestions on a session", () => {
  it("ranks build errors first, then a regression, then smells in the files the session changed", async () => {
    const { session } = await sessionOver("ts-fixable", { buildCmd: TSC, preflight: true });
    const fixed = await session.submit({ candidate: filesCandidate("src/report.ts", REPORT_FIXED), rationale: "fix" }, {});
    expect(fixed.ev.okBuild).toBe(true);
    // A step that breaks the build again and adds a debug helper with an explicit any.
    const broken = REPORT_FIXED.replace("import { add, clamp }", "import { clamp }") + "\nexport function debug(x: any): void {\n  console.log(x);\n}\n";
    await session.submit({ candidate: filesCandidate("src/report.ts", broken), rationale: "debug helper" }, {});
    const r = await getSuggestions(session);
    expect(r.step).toBe(2);
    expect(r.suggestions.map((s) => [s.priority, s.category])).toEqual([
      ["critical", "build"],
      ["high", "regression"],
      ["medium", "type-safety"],
      ["low", "logging"],
    ]);
    expect(r.suggestions[0]).toMatchObject({ file: "src/report.ts", line: 4, message: "TS2304 Cannot find name 'add'." });
    expect(r.suggestions[1]!.message).toBe("score 0.000 is 100% below the best, 1.000 at step 1");
    expect(r.suggestions[2]).toMatchObject({ file: "src/report.ts", line: 11 });
    // The same state gives the same list.
    expect(await getSuggestions(session)).toEqual(r);
  });

  it("keeps only the top 5 and counts the rest", async () => {
    const many = Array.from({ length: 8 }, (_, i) => `export const v${i}: number = missing${i};`).join("\n") + "\n";
    const { session } = await sessionOver("ts-fixable", { buildCmd: TSC });
    await session.submit({ candidate: filesCandidate("src/many.ts", many), rationale: "many errors" }, {});
    const r = await getSuggestions(session);
    expect(r.suggestions).toHaveLength(5);
    expect(r.omitted).toBeGreaterThanOrEqual(5);
    expect(r.suggestions.every((s) => s.priority === "critical")).toBe(true);
  });
});
