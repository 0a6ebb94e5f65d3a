import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { staticSuggestions, suggestionsFromReview } from "../../../src/suggest/static.js";
import { g, tmpDir } from "../../helpers/repo.js";

function repoWithChange(): { dir: string; base: string; head: string } {
  const dir = tmpDir("trm-static-");
  g(dir, "init", "-q", "-b", "main");
  mkdirSync(path.join(dir, "src"));
  writeFileSync(path.join(dir, "src/api.ts"), "export function ok(): number {\n  return 1;\n}\n");
  g(dir, "add", "-A");
  g(dir, "commit", "-q", "-m", "base");
  const base = g(dir, "rev-parse", "HEAD").trim();
  const longBody = Array.from({ length: 90 }, (_, i) => `  total += ${i % 3};`).join("\n");
  writeFileSync(
    path.join(dir, "src/api.ts"),
    [
      "export function ok(): number {",
      "  return 1;",
      "}",
      "",
      "export function parse(input: any): number {",
      "  try {",
      "    return JSON.parse(input).n;",
      "  } catch (e) {}",
      "  return 0;",
      "}",
      "",
      "export async function load(url: string): Promise<string> {",
      "  const res = await fetch(url);",
      "  console.log(res.status);",
      "  return res.text();",
      "}",
      "",
      "export function big(): number {",
      "  let total = 0;",
      longBody,
      "  return total;",
      "}",
      "",
    ].join("\n"),
  );
  g(dir, "commit", "-q", "-am", "change");
  return { dir, base, head: g(dir, "rev-parse", "HEAD").trim() };
}

describe("static review of the session's changes", () => {
  it("finds explicit any, empty catch, console output and long functions in changed lines, and lets a plain await be", async () => {
    const { dir, base, head } = repoWithChange();
    const r = await staticSuggestions(path.join(dir, ".git"), base, head);
    expect(r.note).toBeUndefined();
    const byCategory = (c: string) => r.suggestions.filter((s) => s.category === c);
    expect(byCategory("type-safety")).toEqual([expect.objectContaining({ priority: "medium", file: "src/api.ts", line: 5 })]);
    // An awaited call that lets its error propagate is not a finding (review calibration, issue 11).
    expect(byCategory("error-handling").map((s) => [s.priority, s.line])).toEqual([["medium", 8]]);
    expect(byCategory("logging")).toEqual([expect.objectContaining({ priority: "low", line: 14 })]);
    expect(byCategory("code-quality")).toEqual([expect.objectContaining({ priority: "low", line: 18, message: expect.stringMatching(/big/) })]);
    // Lines the session did not write are never commented on.
    expect(r.suggestions.every((s) => s.line! >= 4)).toBe(true);
  });

  it("is empty when the session changed nothing, and refuses anything but commit ids", async () => {
    const { dir, base } = repoWithChange();
    expect(await staticSuggestions(path.join(dir, ".git"), base, base)).toEqual({ suggestions: [] });
    expect((await staticSuggestions(path.join(dir, ".git"), base, "--output=/tmp/x")).note).toMatch(/not commit ids/);
  });

  it("keeps only the rules worth a step (no magic numbers, long lines or TODOs)", () => {
    const c = (rule: string, category: string) => ({ file: "a.ts", line: 1, severity: "info" as const, category: category as never, rule, message: rule });
    const s = suggestionsFromReview([
      c("magic-number", "code-quality"),
      c("todo-comment", "todos"),
      c("eval", "security"),
      c("ts-explicit-any", "type-safety"),
    ]);
    expect(s.map((x) => [x.message, x.priority])).toEqual([
      ["eval", "high"],
      ["ts-explicit-any", "medium"],
    ]);
  });
});
