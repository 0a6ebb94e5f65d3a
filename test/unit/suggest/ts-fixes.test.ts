import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { typescriptFixes } from "../../../src/suggest/ts-fixes.js";
import { ROOT } from "../../helpers/repo.js";
import { NODENEXT_TSCONFIG, project, snapshot, tscDiagnostics } from "./helpers.js";

const PKG = '{ "type": "module" }\n';
const MATH = "export function clamp(v: number, lo: number, hi: number): number {\n  return Math.min(hi, Math.max(lo, v));\n}\n";

describe("TypeScript language service fixes", () => {
  it("fixes the ts-fixable fixture: missing import (into the existing import) and implicit any (inferred from usage)", async () => {
    const dir = project("ts-fixable");
    const diagnostics = tscDiagnostics(dir);
    expect(diagnostics.map((d) => d.code)).toEqual(["TS2304", "TS7006"]);
    const before = snapshot(dir);
    const r = await typescriptFixes({ worktree: dir, diagnostics });
    expect(r.typescript).toMatchObject({ origin: "code-trm", version: expect.stringMatching(/^6\./) });
    expect(r.fixes.map((f) => [f.fixName, f.diagnostics[0]!.code, f.errorsBefore, f.errorsAfter])).toEqual([
      ["import", "TS2304", 2, 1],
      ["inferFromUsage", "TS7006", 2, 1],
    ]);
    expect(r.fixes[0]!.rewrites[0]!.after).toContain('import { add, clamp } from "./math.js";');
    expect(r.fixes[1]!.rewrites[0]!.after).toContain("export function scale(value: number, factor: number)");
    // The stub declaration the service also offers is listed as an alternative, not chosen.
    expect(r.fixes[0]!.alternatives).toEqual(["Add missing function declaration 'add'"]);
    expect(r.combined).toMatchObject({ errorsBefore: 2, errorsAfter: 0 });
    expect(r.combined!.rewrites).toHaveLength(1);
    expect(r.unfixed).toEqual([]);
    // Read only: not a byte (nor an mtime) of the project changed.
    expect(snapshot(dir)).toEqual(before);
  });

  it("adds a new import statement, with the .js extension NodeNext needs, and the file's quotes and indentation", async () => {
    const dir = project({
      "package.json": PKG,
      "tsconfig.json": NODENEXT_TSCONFIG,
      "src/math.ts": MATH,
      "src/use.ts": "export function pct(v: number): number {\n  return clamp(v, 0, 100);\n}\n",
    });
    const r = await typescriptFixes({ worktree: dir, diagnostics: tscDiagnostics(dir) });
    expect(r.fixes).toHaveLength(1);
    expect(r.fixes[0]!.rewrites).toEqual([
      {
        path: "src/use.ts",
        before: expect.any(String),
        after: 'import { clamp } from "./math.js";\n\nexport function pct(v: number): number {\n  return clamp(v, 0, 100);\n}\n',
      },
    ]);
  });

  it("corrects misspelled names (TS2551 property, TS2552 variable) with the compiler's suggestion", async () => {
    const dir = project({
      "package.json": PKG,
      "tsconfig.json": NODENEXT_TSCONFIG,
      "src/a.ts": "export function f(values: number[]): number {\n  const total = values.length;\n  return Math.flor(totl / 2);\n}\n",
    });
    const diagnostics = tscDiagnostics(dir);
    expect(diagnostics.map((d) => d.code).sort()).toEqual(["TS2551", "TS2552"]);
    const r = await typescriptFixes({ worktree: dir, diagnostics });
    expect(r.fixes.map((f) => f.fixName)).toEqual(["spelling", "spelling"]);
    expect(r.combined!.rewrites[0]!.after).toContain("return Math.floor(total / 2);");
    expect(r.combined!.errorsAfter).toBe(0);
  });

  it("offers a stub declaration as a placeholder, never as part of the combined fix", async () => {
    const dir = project({
      "package.json": PKG,
      "tsconfig.json": NODENEXT_TSCONFIG,
      "src/a.ts": "export function f(x: number): number {\n  missingHelper(x);\n  return x;\n}\n\nexport function g(y): number {\n  return y * 2;\n}\n",
    });
    const r = await typescriptFixes({ worktree: dir, diagnostics: tscDiagnostics(dir) });
    const stub = r.fixes.find((f) => f.diagnostics[0]!.code === "TS2304")!;
    expect(stub).toMatchObject({ fixName: "fixMissingFunctionDeclaration", placeholder: true, errorsAfter: 1 });
    // With only one real fix left there is nothing to combine.
    expect(r.combined).toBeUndefined();
  });

  it("rejects a fix that trades the error for another one", async () => {
    // The stub returns void, so `missingHelper(x) + 1` would become TS2365: the check catches it.
    const dir = project({
      "package.json": PKG,
      "tsconfig.json": NODENEXT_TSCONFIG,
      "src/a.ts": "export function f(x: number): number {\n  return missingHelper(x) + 1;\n}\n",
    });
    const r = await typescriptFixes({ worktree: dir, diagnostics: tscDiagnostics(dir) });
    expect(r).toMatchObject({ fixes: [], rejected: 1 });
    expect(r.unfixed.map((d) => d.code)).toEqual(["TS2304"]);
  });

  it("on a big project loads only the files with errors and what they import, which still finds the usual fixes", async () => {
    const dir = project("ts-fixable");
    const r = await typescriptFixes({ worktree: dir, diagnostics: tscDiagnostics(dir), maxRootFiles: 1 });
    expect(r.notes.join()).toMatch(/has 2 files: the language service loaded only the files with errors/);
    expect(r.fixes.map((f) => f.fixName)).toEqual(["import", "inferFromUsage"]);
  });

  it("uses the repository's own typescript when the worktree resolves one", async () => {
    const dir = project("ts-fixable");
    mkdirSync(path.join(dir, "node_modules"));
    symlinkSync(path.join(ROOT, "node_modules", "typescript"), path.join(dir, "node_modules", "typescript"));
    const r = await typescriptFixes({ worktree: dir, diagnostics: tscDiagnostics(dir) });
    expect(r.typescript?.origin).toBe("repository");
    expect(r.fixes).toHaveLength(2);
  });

  it("uses the tsconfig the build command names with -p", async () => {
    const dir = project({
      "package.json": PKG,
      "tsconfig.build.json": NODENEXT_TSCONFIG,
      "src/math.ts": MATH,
      "src/use.ts": "export const x = clamp(5, 0, 1);\n",
    });
    const diagnostics = tscDiagnostics(dir, ["-p", "tsconfig.build.json"]);
    const without = await typescriptFixes({ worktree: dir, diagnostics });
    expect(without.fixes).toEqual([]);
    expect(without.notes.join()).toMatch(/no tsconfig.json found for src\/use.ts/);
    const r = await typescriptFixes({ worktree: dir, diagnostics, buildCmd: "npx tsc -p tsconfig.build.json" });
    expect(r.fixes.map((f) => f.fixName)).toEqual(["import"]);
  });

  it("says so when the service does not see a reported error, and leaves it to other fixers", async () => {
    const dir = project("ts-fixable");
    const ghost = {
      file: "src/math.ts",
      line: 2,
      column: 1,
      code: "TS2322",
      message: "Type 'string' is not assignable to type 'number'.",
      severity: "error" as const,
      source: "tsc",
    };
    const r = await typescriptFixes({ worktree: dir, diagnostics: [ghost] });
    expect(r.unfixed).toEqual([ghost]);
    expect(r.notes.join()).toMatch(/does not report TS2322 at src\/math.ts:2/);
  });

  it("ignores diagnostics outside the worktree or in dependencies", async () => {
    const dir = project("ts-fixable");
    const base = { line: 1, column: 1, code: "TS2304", message: "Cannot find name 'x'.", severity: "error" as const, source: "tsc" };
    const r = await typescriptFixes({
      worktree: dir,
      diagnostics: [
        { ...base, file: "../outside.ts" },
        { ...base, file: "/etc/passwd" },
        { ...base, file: "node_modules/x/index.ts" },
      ],
    });
    expect(r).toMatchObject({ fixes: [], unfixed: [] });
  });

  it("stops at its time budget and reports what it could not look at", async () => {
    const dir = project("ts-fixable");
    const diagnostics = tscDiagnostics(dir);
    const r = await typescriptFixes({ worktree: dir, diagnostics, budgetMs: 1 });
    expect(r.notes.join()).toMatch(/stopped after 1 ms/);
    expect(r.unfixed).toHaveLength(2);
  });
});
