import { describe, expect, it } from "vitest";
import { chooseMutants, isArid, mutantDiff, type RawMutant } from "../../../../src/evaluate/mutate/choose.js";
import { applyMutant } from "../../../../src/evaluate/mutate/run-mutants.js";

const at = (id: string, mutatorName: string, line: number, c0: number, c1: number, replacement: string): RawMutant => ({
  id,
  mutatorName,
  replacement,
  location: { start: { line, column: c0 }, end: { line, column: c1 } },
});

describe("choosing the mutants of a change", () => {
  const content = [
    "import x from 'y';",
    "export function f(a, b) {",
    "  if (a < b) {",
    '    console.log("low", a);',
    '    throw new Error("a is low");',
    "  }",
    "  return a + b;",
    "}",
  ].join("\n");
  const mutants = [
    at("0", "StringLiteral", 0, 14, 17, '""'),
    at("1", "BlockStatement", 2, 13, 60, "{}"),
    at("2", "EqualityOperator", 2, 6, 11, "a <= b"),
    at("3", "ConditionalExpression", 2, 6, 11, "false"),
    at("4", "StringLiteral", 3, 16, 21, '""'),
    at("5", "StringLiteral", 4, 20, 30, '""'),
    at("6", "ArithmeticOperator", 6, 9, 14, "a - b"),
  ];

  it("keeps one mutant per changed line, the most telling mutator, and none on arid lines or error messages", () => {
    const chosen = chooseMutants("src/f.js", content, mutants, [1, 3, 4, 5, 7]);
    expect(chosen.map((m) => [m.line, m.id, m.mutator])).toEqual([
      [3, "3", "ConditionalExpression"],
      [7, "6", "ArithmeticOperator"],
    ]);
    expect(chosen[0]!.diff).toBe("-  if (a < b) {\n+  if (false) {");
  });

  it("leaves out lines the change did not add or no test ran", () => {
    expect(chooseMutants("src/f.js", content, mutants, [7]).map((m) => m.id)).toEqual(["6"]);
  });

  it("calls logging, imports and type declarations arid, and code not", () => {
    expect(isArid("import { a } from './a';")).toBe(true);
    expect(isArid("  logger.debug(`x ${y}`);")).toBe(true);
    expect(isArid("export type A = { x: number };")).toBe(true);
    expect(isArid("  return a.log(b);")).toBe(false);
    expect(isArid("  if (importance > 2) return;")).toBe(false);
  });

  it("writes a mutant into the file text at its location, across lines too", () => {
    expect(applyMutant("a\n  x < y;\nb", at("0", "EqualityOperator", 1, 2, 7, "x <= y"))).toBe("a\n  x <= y;\nb");
    expect(applyMutant("f() {\n  g();\n}\n", { replacement: "{}", location: { start: { line: 0, column: 4 }, end: { line: 2, column: 1 } } })).toBe("f() {}\n");
  });
});

describe("a mutant's diff", () => {
  it("of a block that spans a long function is clipped: a review comment quotes a few lines, not the file", () => {
    const body = Array.from({ length: 500 }, (_, i) => `  x${i}();`);
    const content = ["function f() {", ...body, "}"].join("\n");
    const d = mutantDiff(content, {
      id: "1",
      mutatorName: "BlockStatement",
      replacement: "{}",
      location: { start: { line: 0, column: 13 }, end: { line: 501, column: 1 } },
    });
    expect(d.split("\n").length).toBeLessThanOrEqual(12);
    expect(d).toMatch(/^-function f\(\) \{/);
    expect(d).toContain("+function f() {}");
    expect(d).toMatch(/more lines/);
  });
});
