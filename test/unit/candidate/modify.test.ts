import { describe, expect, it } from "vitest";
import type { Edit } from "../../../src/candidate/schema.js";
import { issuesOf, lines, run } from "./helpers.js";

const mod = (file: string, edits: Array<Partial<Edit> & { type: Edit["type"] }>) => ({ mode: "modify" as const, changes: [{ file, edits: edits as Edit[] }] });
const ten = lines(10);

describe("modify: line edits", () => {
  it.each([
    ["replaceLine", { type: "replaceLine", line: 3, content: "X" }, ten.replace("line 3\n", "X\n")],
    ["replaceLine with two lines", { type: "replaceLine", line: 3, content: "X\nY\n" }, ten.replace("line 3\n", "X\nY\n")],
    ["replaceRange", { type: "replaceRange", startLine: 2, endLine: 4, content: "X" }, ten.replace("line 2\nline 3\nline 4\n", "X\n")],
    ["insertBefore", { type: "insertBefore", line: 1, content: "X" }, "X\n" + ten],
    ["insertBefore lineCount+1", { type: "insertBefore", line: 11, content: "X" }, ten + "X\n"],
    ["insertAfter 0", { type: "insertAfter", line: 0, content: "X" }, "X\n" + ten],
    ["insertAfter lineCount", { type: "insertAfter", line: 10, content: "X" }, ten + "X\n"],
    ["insertAfter empty content", { type: "insertAfter", line: 1, content: "" }, ten.replace("line 1\n", "line 1\n\n")],
    ["deleteLine", { type: "deleteLine", line: 10 }, ten.replace("line 10\n", "")],
    ["deleteRange", { type: "deleteRange", startLine: 1, endLine: 10 }, ""],
  ] as const)("%s", async (_, e, want) => {
    const r = await run({ f: ten }, mod("f", [e]));
    expect(r.files.f).toBe(want);
  });

  it("fills an empty file", async () => {
    expect((await run({ f: "" }, mod("f", [{ type: "insertAfter", line: 0, content: "a" }]))).files.f).toBe("a\n");
  });

  it("keeps CRLF, BOM and a missing final newline", async () => {
    const r = await run(
      { f: "\uFEFFa\r\nb\r\nc" },
      mod("f", [
        { type: "replaceLine", line: 2, content: "B" },
        { type: "insertAfter", line: 3, content: "d" },
      ]),
    );
    expect(r.files.f).toBe("\uFEFFa\r\nB\r\nc\r\nd");
  });

  it("reports out-of-range lines with the file's line count, and reversed ranges", async () => {
    const issues = await issuesOf(
      { f: ten },
      mod("f", [
        { type: "replaceLine", line: 11, content: "x" },
        { type: "insertAfter", line: -1, content: "x" },
        { type: "deleteRange", startLine: 5, endLine: 3 },
      ]),
    );
    expect(issues.map((i) => i.hunk)).toEqual([1, 2, 3]);
    expect(issues[0]!.message).toMatch(/line 11 is out of range: f has 10 lines \(line must be 1-10\)/);
    expect(issues[1]!.message).toMatch(/0-10/);
    expect(issues[2]!.message).toMatch(/after endLine/);
  });

  it("names missing fields per edit type", async () => {
    const issues = await issuesOf({ f: ten }, mod("f", [{ type: "replaceRange", startLine: 1 }, { type: "replace", oldText: "a" }, { type: "deleteLine" }]));
    expect(issues.map((i) => i.message)).toEqual([
      'edit 1: replaceRange needs "endLine" and "content"',
      'edit 2: replace needs "newText"',
      'edit 3: deleteLine needs "line"',
    ]);
  });

  it("rejects duplicate and overlapping edits, naming both", async () => {
    const issues = await issuesOf(
      { f: ten },
      mod("f", [
        { type: "insertAfter", line: 2, content: "x" },
        { type: "insertAfter", line: 2, content: "x" },
        { type: "replaceRange", startLine: 5, endLine: 7, content: "y" },
        { type: "deleteLine", line: 7 },
      ]),
    );
    expect(issues.map((i) => i.message)).toEqual(["edit 2: repeats edit 1 exactly", "edit 4 (deleteLine) (line 7) overlaps edit 3 (replaceRange) (lines 5-7)"]);
  });

  it("warns about fields the edit type does not use", async () => {
    const r = await run({ f: ten }, mod("f", [{ type: "deleteLine", line: 1, content: "ignored" }]));
    expect(r.plan.warnings.join()).toMatch(/content ignored/);
  });
});

describe("modify: replace", () => {
  const src = "function f(a) {\n  return a + 1;\n}\n\nfunction g(b) {\n  return b + 1;\n}\n";

  it("replaces a unique fragment in place", async () => {
    const r = await run({ f: src }, mod("f", [{ type: "replace", oldText: "f(a)", newText: "f(a = 0)" }]));
    expect(r.files.f).toBe(src.replace("f(a)", "f(a = 0)"));
    expect(r.plan.fuzz).toEqual([]);
  });

  it("lists the lines of every occurrence when oldText is not unique", async () => {
    const issues = await issuesOf({ f: src }, mod("f", [{ type: "replace", oldText: "+ 1;", newText: "+ 2;" }]));
    expect(issues[0]!.message).toBe("edit 1: oldText occurs 2 times (lines 2, 6)");
    expect(issues[0]!.hint).toMatch(/all: true/);
  });

  it("replaces every occurrence with all, including two on one line", async () => {
    const r = await run({ f: "a a\nb a\n" }, mod("f", [{ type: "replace", oldText: "a", newText: "c", all: true }]));
    expect(r.files.f).toBe("c c\nb c\n");
  });

  it("deletes whole lines when oldText includes their line break", async () => {
    const r = await run({ f: src }, mod("f", [{ type: "replace", oldText: "\nfunction g(b) {\n  return b + 1;\n}\n", newText: "" }]));
    expect(r.files.f).toBe("function f(a) {\n  return a + 1;\n}\n");
  });

  it("joins lines when newText drops oldText's line break, and warns", async () => {
    const r = await run({ f: "a\nb\nc\n" }, mod("f", [{ type: "replace", oldText: "a\n", newText: "a " }]));
    expect(r.files.f).toBe("a b\nc\n");
    expect(r.plan.warnings.join()).toMatch(/joined/);
  });

  it("detects a replace and a line edit that touch the same line", async () => {
    const issues = await issuesOf(
      { f: src },
      mod("f", [
        { type: "replace", oldText: "return a + 1;", newText: "return a;" },
        { type: "deleteLine", line: 2 },
      ]),
    );
    expect(issues[0]!.message).toMatch(/overlaps/);
  });

  it("combines a replace with line edits elsewhere, all against the original", async () => {
    const r = await run(
      { f: src },
      mod("f", [
        { type: "insertAfter", line: 7, content: "// end" },
        { type: "replace", oldText: "g(b)", newText: "h(b)" },
        { type: "deleteLine", line: 1 },
      ]),
    );
    expect(r.files.f).toBe("  return a + 1;\n}\n\nfunction h(b) {\n  return b + 1;\n}\n// end\n");
  });

  it("falls back to whitespace-insensitive token matching for fragments", async () => {
    const r = await run({ f: "const x = f(a,  b) + 1;\n" }, mod("f", [{ type: "replace", oldText: "f(a, b) +", newText: "g(a, b) -" }]));
    expect(r.files.f).toBe("const x = g(a, b) - 1;\n");
    expect(r.plan.fuzz.join()).toMatch(/not found verbatim/);
  });

  it("falls back to whole lines ignoring indentation, re-indenting newText", async () => {
    const r = await run(
      { f: src },
      mod("f", [{ type: "replace", oldText: "function g(b) {\n    return b + 1;\n}", newText: "function g(b) {\n    return b + 2;\n}" }]),
    );
    expect(r.files.f).toBe(src.replace("b + 1", "b + 2"));
  });

  it("fails with the closest lines when oldText is nowhere", async () => {
    const issues = await issuesOf({ f: src }, mod("f", [{ type: "replace", oldText: "function g(c) {\n  return c * 1;", newText: "x" }]));
    expect(issues[0]).toMatchObject({ hunk: 1, expected: ["function g(c) {", "  return c * 1;"], closest: { line: 5 } });
    expect(issues[0]!.hint).toMatch(/replaceRange/);
  });

  it("refuses an empty oldText", async () => {
    expect((await issuesOf({ f: src }, mod("f", [{ type: "replace", oldText: "", newText: "x" }])))[0]!.message).toMatch(/oldText is empty/);
  });
});

describe("modify: files", () => {
  it("reports missing files, binary files and empty edit lists together", async () => {
    const issues = await issuesOf(
      { bin: Buffer.from([0, 1, 2]), e: "x\n" },
      {
        mode: "modify",
        changes: [
          { file: "nope.ts", edits: [{ type: "deleteLine", line: 1 }] },
          { file: "bin", edits: [{ type: "deleteLine", line: 1 }] },
          { file: "e", edits: [] },
        ],
      },
    );
    expect(issues.map((i) => [i.file, i.message])).toEqual([
      ["nope.ts", expect.stringMatching(/does not exist/)],
      ["bin", expect.stringMatching(/binary/)],
      ["e", "no edits"],
    ]);
  });

  it("combines a file listed twice, numbering its edits on", async () => {
    const r = await run(
      { f: ten },
      {
        mode: "modify",
        changes: [
          { file: "f", edits: [{ type: "deleteLine", line: 1 }] },
          { file: "./f", edits: [{ type: "deleteLine", line: 2 }] },
        ],
      },
    );
    expect(r.files.f).toBe(ten.replace("line 1\nline 2\n", ""));
    expect(r.plan.warnings.join()).toMatch(/listed several times/);
  });
});
