import { describe, expect, it } from "vitest";
import { parseBenchValue } from "../../../../src/evaluate/parsers/index.js";

describe("parseBenchValue", () => {
  it("returns null when nothing is printed or no number is", () => {
    expect(parseBenchValue("")).toBeNull();
    expect(parseBenchValue("done\nok\n")).toBeNull();
  });

  it("prefers a JSON value over any number printed after it", () => {
    expect(parseBenchValue('warming up 1/3\n{"value": 42.5, "unit": "ms"}\nbench finished in 3 rounds\n')).toBe(42.5);
    // The last JSON line wins among several.
    expect(parseBenchValue('{"value": 1}\n{"value": 2}\ncleanup 99\n')).toBe(2);
    // The whole output may be one pretty-printed object.
    expect(parseBenchValue('{\n  "value": 7,\n  "runs": 30\n}\n')).toBe(7);
  });

  it("falls back to the last number when the JSON has no numeric value", () => {
    expect(parseBenchValue('{"value": "fast"}\ntook 12 ms\n')).toBe(12);
    expect(parseBenchValue('{"other": 3}\n')).toBe(3);
  });

  it("reads units, exponents, thousands separators, signs and colour codes", () => {
    expect(parseBenchValue("elapsed: 12.5ms")).toBe(12.5);
    expect(parseBenchValue("ops 1e3")).toBe(1000);
    expect(parseBenchValue("total 1,234.5 µs")).toBe(1234.5);
    expect(parseBenchValue("delta -3.25")).toBe(-3.25);
    expect(parseBenchValue("\u001b[32mtotal:\u001b[39m 4,198.4µs\n")).toBe(4198.4);
    expect(parseBenchValue("ratio .5")).toBe(0.5);
  });

  it("takes the last number of the last line that has one", () => {
    expect(parseBenchValue("run 1: 10\nrun 2: 20\nmedian 15 (n=3)\n\n")).toBe(3);
    expect(parseBenchValue("1,2,3")).toBe(3);
    // A hyphen inside a word is not a minus sign; digits inside identifiers and versions are not values.
    expect(parseBenchValue("build-7")).toBe(7);
    expect(parseBenchValue("score 0.92 (node v20.1.3, x86_64)")).toBe(0.92);
    expect(parseBenchValue("sha256 utf8")).toBeNull();
  });

  it("reads the last number of a large output quickly", () => {
    const big = `${"progress line 123 of 456\n".repeat(200_000)}result 9.75\n`;
    const t0 = performance.now();
    expect(parseBenchValue(big)).toBe(9.75);
    expect(performance.now() - t0).toBeLessThan(500);
  });
});
