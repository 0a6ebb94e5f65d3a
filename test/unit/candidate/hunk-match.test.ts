import { describe, expect, it } from "vitest";
import { findAllBlocks, LineIndex, placeBlock } from "../../../src/candidate/hunk-match.js";
import { reindent } from "../../../src/candidate/indent.js";
import { findClosest, lineSimilarity } from "../../../src/candidate/similarity.js";

const idx = (lines: string[]) => new LineIndex(lines);

describe("placeBlock", () => {
  const file = ["a", "x", "y", "b", "c", "x", "y", "d", "e", "f"];

  it("takes the expected line when it matches exactly, even with other matches", () => {
    expect(placeBlock(idx(file), ["x", "y"], 5)).toEqual({ ok: true, at: 5, kind: "exact" });
  });

  it("takes the only match within NEAR_WINDOW lines of an expected line that is off", () => {
    const far = ["a", "x", "y", ...Array.from({ length: 17 }, (_, i) => `f${i}`), "x", "y", "z"];
    expect(placeBlock(idx(far), ["x", "y"], 3)).toEqual({ ok: true, at: 1, kind: "exact" });
    expect(placeBlock(idx(far), ["x", "y"], 12)).toEqual({ ok: true, at: 20, kind: "exact" });
    // 9 and 10 lines away: neither is near enough to be singled out.
    expect(placeBlock(idx(far), ["x", "y"], 10)).toEqual({ ok: false, reason: "ambiguous", kind: "exact", at: [1, 20] });
  });

  it("refuses when several matches lie near the expected line and none is at it", () => {
    expect(placeBlock(idx(file), ["x", "y"], 3)).toEqual({ ok: false, reason: "ambiguous", kind: "exact", at: [1, 5] });
    expect(placeBlock(idx(file), ["x", "y"], 6)).toEqual({ ok: false, reason: "ambiguous", kind: "exact", at: [1, 5] });
  });

  it("refuses a stated line far from every one of several matches (the reported cases)", () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`);
    for (const at of [77, 82, 86, 91]) lines[at] = "    return null;";
    expect(placeBlock(idx(lines), ["    return null;"], 0)).toEqual({ ok: false, reason: "ambiguous", kind: "exact", at: [77, 82, 86, 91] });
    const twice = Array.from({ length: 100 }, (_, i) => (i % 50 < 3 ? `block ${i % 50}` : `l${i}`));
    expect(placeBlock(idx(twice), ["block 0", "block 1", "block 2"], 899)).toMatchObject({ ok: false, reason: "ambiguous", at: [0, 50] });
    // A unique match is still found anywhere in the file.
    expect(placeBlock(idx(twice), ["l10", "l11"], 899)).toEqual({ ok: true, at: 10, kind: "exact" });
  });

  it("tolerates one stale context line when the others match in one place only", () => {
    const f = ["function f(a) {", "  const sorted = a.sort();", "  return {", "    count: a.length,", "  };", "}"];
    const want = ["function f(a) {", "  const ordered = a.sort();", "  return {", "    count: a.length,"];
    expect(placeBlock(idx(f), want, 0, [true, true, true, false])).toEqual({ ok: true, at: 0, kind: "exact", stale: 1 });
    // Without context lines allowed to differ, or when the differing line is a removed one: not found.
    expect(placeBlock(idx(f), want, 0)).toEqual({ ok: false, reason: "not-found" });
    expect(placeBlock(idx(f), want, 0, [true, false, true, true])).toEqual({ ok: false, reason: "not-found" });
    // Two differing lines are not one stale line.
    expect(placeBlock(idx(f), ["function f(a) {", "  const ordered = a.sort();", "  return [", "    count: a.length,"], 0, [true, true, true, false])).toEqual({
      ok: false,
      reason: "not-found",
    });
  });

  it("without an expected line, needs a unique match", () => {
    expect(placeBlock(idx(file), ["x", "y"], null)).toMatchObject({ ok: false, reason: "ambiguous" });
    expect(placeBlock(idx(file), ["d", "e"], null)).toEqual({ ok: true, at: 7, kind: "exact" });
  });

  it("prefers an exact match anywhere over a whitespace match at the expected line", () => {
    const f = ["  foo()", "bar", "foo()", "bar"];
    expect(placeBlock(idx(f), ["foo()", "bar"], 0)).toEqual({ ok: true, at: 2, kind: "exact" });
  });

  it("falls back to collapsed, then to stripped whitespace", () => {
    expect(placeBlock(idx(["if (a)  {", "\tgo();  "]), ["if (a) {", "    go();"], 0)).toEqual({ ok: true, at: 0, kind: "whitespace" });
    expect(placeBlock(idx(["f(a, b);"]), ["f(a,b);"], 0)).toEqual({ ok: true, at: 0, kind: "whitespace-stripped" });
  });

  it("does not place blank-only blocks by whitespace alone", () => {
    expect(placeBlock(idx(["a", "  ", "b"]), [""], 0)).toEqual({ ok: false, reason: "not-found" });
  });

  it("reports not-found for a block longer than the file", () => {
    expect(placeBlock(idx(["a"]), ["a", "b"], 0)).toEqual({ ok: false, reason: "not-found" });
  });

  it("findAllBlocks returns non-overlapping matches", () => {
    expect(findAllBlocks(idx(["x", "x", "x"]), ["x", "x"])).toEqual({ kind: "exact", at: [0] });
    expect(findAllBlocks(idx(file), ["x", "y"])).toEqual({ kind: "exact", at: [1, 5] });
  });
});

describe("closest lines", () => {
  it("scores similar lines high and unrelated ones low", () => {
    expect(lineSimilarity("const total = 0;", "const  total = 0;")).toBe(1);
    expect(lineSimilarity("const total = 0;", "const sum = 0;")).toBeGreaterThan(0.5);
    expect(lineSimilarity("const total = 0;", "}")).toBe(0);
  });

  it("finds the most similar window, in small and large files", () => {
    const small = ["a", "function f(x) {", "  return x * 2;", "}", "b"];
    expect(findClosest(small, ["function f(y) {", "  return y * 2;"], null)?.at).toBe(1);
    const big = Array.from({ length: 5000 }, (_, i) => `line number ${i}`);
    big[4000] = "  return total / count;";
    const c = findClosest(big, ["line number 3999", "  return sum / count;", "line number 4001"], 10);
    expect(c?.at).toBe(3999);
    expect(c!.score).toBeGreaterThan(0.8);
  });
});

describe("reindent", () => {
  it("scales 2-space model output to a 4-space file", () => {
    const r = reindent(
      [
        ["  a", "    a"],
        ["    b", "        b"],
      ],
      ["    c", "      d", ""],
    );
    expect(r.lines).toEqual(["        c", "            d", ""]);
    expect(r.note).toMatch(/2 -> 4/);
  });

  it("adds a constant prefix when the file is nested one level deeper", () => {
    expect(
      reindent(
        [
          ["a", "\ta"],
          ["  b", "\t  b"],
        ],
        ["  c"],
      ).lines,
    ).toEqual(["\t  c"]);
  });

  it("converts spaces to tabs and tabs to spaces", () => {
    expect(
      reindent(
        [
          ["    a", "\ta"],
          ["        b", "\t\tb"],
        ],
        ["        c", "      d"],
      ).lines,
    ).toEqual(["\t\tc", "\t  d"]);
    expect(reindent([["\ta", "  a"]], ["\t\tc"]).lines).toEqual(["    c"]);
  });

  it("keeps lines as sent when indentation matches", () => {
    expect(reindent([["  a ", "  a"]], ["  x"])).toEqual({ lines: ["  x"] });
  });

  it("without one mapping for all lines, follows the neighbouring line", () => {
    // The model lost the indentation of one line only; the added line follows the pair it sits after.
    const pairs: Array<[string, string]> = [
      ["b", "  b"],
      ["c", "c"],
      ["d", "    d"],
    ];
    expect(reindent(pairs, ["C", "e"], (i) => [1, 2][i]!)).toEqual({ lines: ["C", "    e"], note: "added lines re-indented like their neighbouring lines" });
    expect(
      reindent(
        [
          ["  a", "     a"],
          ["    b", "  b"],
        ],
        ["  x"],
        () => 1,
      ).lines,
    ).toEqual(["x"]);
    expect(
      reindent(
        [
          ["\ta", "  a"],
          ["  b", "\tb"],
        ],
        ["  x"],
        () => 0,
      ),
    ).toEqual({ lines: ["  x"] });
  });
});

describe("reported similarity", () => {
  it("is order-sensitive: swapped arguments are similar, not identical", async () => {
    const { editSimilarity } = await import("../../../src/candidate/similarity.js");
    expect(editSimilarity("  a(b, c)", "a(b,  c)")).toBe(1);
    const s = editSimilarity("return Math.max(lo, Math.min(hi, x));", "return Math.min(hi, Math.max(lo, x));");
    expect(s).toBeGreaterThan(0.5);
    expect(s).toBeLessThan(0.9);
  });
});
