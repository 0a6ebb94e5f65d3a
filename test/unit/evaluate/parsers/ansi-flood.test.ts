/**
 * Hostile command output: escape floods crafted to make a backtracking ANSI pattern quadratic. The former
 * hand-written pattern took 45 s on `ESC[` followed by 60,000 `;` (bench/ansi.mjs), freezing every session
 * of the server. Stripping and every parser together must stay far below 100 ms on each flood.
 */
import { describe, expect, it } from "vitest";
import { parseBenchValue, parseDiagnostics, parseTests } from "../../../../src/evaluate/parsers/index.js";
import { stripAnsi } from "../../../../src/util/text.js";

const E = "\u001b";
const N = 60_000;
const FLOODS: Record<string, string> = {
  "ESC[ then 60,000 ';'": `${E}[${";".repeat(N)}`,
  "C1 CSI then 60,000 ';'": `\u009b${";".repeat(N)}`,
  "ESC[ then 30,000 '1;'": `${E}[${"1;".repeat(N / 2)}`,
  "repeated ESC[;;;;": `${E}[;;;;`.repeat(N / 6),
  "unterminated OSC, 60,000 chars": `${E}]8;;${"a".repeat(N)}`,
  "30,000 OSC introducers": `${E}]`.repeat(N / 2),
  "60,000 '[' after ESC[": `${E}[${"[".repeat(N)}`,
  "unterminated DCS": `${E}P${"a".repeat(N)}`,
  "escapes between digits on one line": `${E}[1;`.repeat(N / 4) + " 3 passed",
  "60,000 ';' on many lines": `${E}[${";".repeat(600)}\n`.repeat(100),
};

function best(f: () => void): number {
  let ms = Infinity;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    f();
    ms = Math.min(ms, performance.now() - t0);
  }
  return ms;
}

describe("escape floods", () => {
  it.each(Object.entries(FLOODS))("%s: stripped and parsed in under 100 ms", (_name, flood) => {
    const ms = best(() => {
      stripAnsi(flood);
      parseTests({ stdout: flood, stderr: flood, all: flood + flood }, { cwd: "/w" });
      parseDiagnostics(flood, { cwd: "/w" });
      parseBenchValue(flood);
    });
    expect(ms).toBeLessThan(100);
  });

  it("still strips what real tools print", () => {
    const vitest = `${E}[32m✓${E}[39m test/a.test.ts ${E}[2m(${E}[22m3 tests${E}[2m)${E}[22m`;
    expect(stripAnsi(vitest)).toBe("✓ test/a.test.ts (3 tests)");
    const link = `${E}]8;;https://example.com${E}\\file.ts${E}]8;;${E}\\`;
    expect(stripAnsi(link)).toBe("file.ts");
    expect(stripAnsi(`\u009b31mred\u009b0m`)).toBe("red");
    // An unterminated sequence is not a sequence: the text after it stays (nothing is swallowed).
    expect(stripAnsi(`${E}[;;;\nnext line`)).toContain("next line");
    expect(stripAnsi(`${E}]8;;no terminator\nnext line`)).toContain("next line");
  });
});
