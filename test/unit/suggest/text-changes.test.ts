import { describe, expect, it } from "vitest";
import { applyTextChanges, combineFixes, type FileChanges } from "../../../src/suggest/text-changes.js";

describe("applyTextChanges", () => {
  it("applies changes given in any order against the original offsets", () => {
    expect(
      applyTextChanges("abcdef", [
        { start: 4, length: 1, newText: "E" },
        { start: 0, length: 0, newText: ">" },
        { start: 1, length: 2, newText: "" },
      ]),
    ).toBe(">adEf");
  });
  it("refuses overlapping changes", () => {
    expect(() =>
      applyTextChanges("abcdef", [
        { start: 0, length: 3, newText: "" },
        { start: 2, length: 1, newText: "x" },
      ]),
    ).toThrow(/overlaps/);
  });
});

describe("combineFixes", () => {
  const fix = (file: string, start: number, length: number, newText: string): FileChanges => new Map([[file, [{ start, length, newText }]]]);
  it("takes a change shared by two fixes once", () => {
    const r = combineFixes([fix("a", 9, 0, "add, "), fix("a", 9, 0, "add, "), fix("a", 30, 0, ": number")]);
    expect(r.taken).toEqual([0, 1, 2]);
    expect(r.changes.get("a")).toHaveLength(2);
  });
  it("leaves out a whole fix that conflicts with an earlier one, in every file it touches", () => {
    const both: FileChanges = new Map([
      ["a", [{ start: 5, length: 2, newText: "x" }]],
      ["b", [{ start: 0, length: 0, newText: "y" }]],
    ]);
    const r = combineFixes([fix("a", 4, 2, "z"), both]);
    expect(r.taken).toEqual([0]);
    expect(r.changes.has("b")).toBe(false);
  });
  it("treats two different insertions at one point as a conflict (their order is undefined)", () => {
    expect(combineFixes([fix("a", 3, 0, "x"), fix("a", 3, 0, "y")]).taken).toEqual([0]);
  });
});
