import { describe, expect, it } from "vitest";
import { applyLineEdits, findOverlaps, type LineEdit } from "../../../src/candidate/line-edits.js";
import { binaryReason, contentLines, decodeText, encodeText, hasFinalNewline, parseText } from "../../../src/candidate/text.js";

const roundTrip = (s: string) => encodeText(parseText(s)).toString("utf8");

describe("text model", () => {
  it.each([
    ["LF", "a\nb\n"],
    ["CRLF", "a\r\nb\r\n"],
    ["mixed endings", "a\r\nb\nc\r\n"],
    ["no final newline", "a\nb"],
    ["BOM", "\uFEFFa\nb\n"],
    ["empty", ""],
    ["only a newline", "\n"],
    ["lone CR inside a line", "a\rb\n"],
  ])("round-trips %s byte for byte", (_, s) => {
    expect(roundTrip(s)).toBe(s);
  });

  it("records each line's terminator and the dominant one", () => {
    const d = parseText("a\r\nb\r\nc\nd");
    expect(d.lines).toEqual(["a", "b", "c", "d"]);
    expect(d.eols).toEqual(["\r\n", "\r\n", "\n", ""]);
    expect(d.eol).toBe("\r\n");
    expect(hasFinalNewline(d)).toBe(false);
    expect(hasFinalNewline(parseText(""))).toBe(true);
  });

  it("strips the BOM from the first line but remembers it", () => {
    const d = parseText("\uFEFFx\n");
    expect(d.lines[0]).toBe("x");
    expect(d.bom).toBe(true);
  });

  it("refuses NUL bytes and invalid UTF-8 as binary, accepts multi-byte text", () => {
    expect(binaryReason(Buffer.from([0x61, 0x00, 0x62]))).toMatch(/NUL/);
    expect(binaryReason(Buffer.from([0xc3, 0x28]))).toMatch(/UTF-8/);
    expect(binaryReason(Buffer.from("héllo ✓ 日本", "utf8"))).toBeNull();
    expect(decodeText(Buffer.from([0xff, 0xfe, 0x00])).ok).toBe(false);
  });

  it("treats one trailing newline of sent content as a terminator", () => {
    expect(contentLines("a\nb\n")).toEqual(["a", "b"]);
    expect(contentLines("a\r\nb")).toEqual(["a", "b"]);
    expect(contentLines("")).toEqual([""]);
    expect(contentLines("a\n\n")).toEqual(["a", ""]);
  });
});

const edit = (start: number, end: number, lines: Array<string | number>, order = 0, extra: Partial<LineEdit> = {}): LineEdit => ({
  start,
  end,
  lines,
  label: `e${order}`,
  order,
  ...extra,
});
const apply = (s: string, edits: LineEdit[]) => encodeText(applyLineEdits(parseText(s), edits)).toString("utf8");

describe("line edits", () => {
  it("gives new lines the file's dominant ending and keeps kept lines' own endings", () => {
    expect(apply("a\r\nb\r\nc\n", [edit(1, 2, ["B", "B2"])])).toBe("a\r\nB\r\nB2\r\nc\n");
  });

  it("keeps a missing final newline missing when lines are appended", () => {
    expect(apply("a\nb", [edit(2, 2, ["c"])])).toBe("a\nb\nc");
  });

  it("obeys an edit that states the final newline", () => {
    expect(apply("a\nb", [edit(1, 2, ["b"], 0, { finalNewline: true })])).toBe("a\nb\n");
    expect(apply("a\nb\n", [edit(1, 2, ["b"], 0, { finalNewline: false })])).toBe("a\nb");
  });

  it("ignores a final-newline statement from an edit that does not reach the end", () => {
    expect(apply("a\nb\n", [edit(0, 1, ["A"], 0, { finalNewline: false })])).toBe("A\nb\n");
  });

  it("puts inserts at one position in the order sent, before a replacement starting there", () => {
    expect(apply("a\nb\n", [edit(1, 2, ["B"], 0), edit(1, 1, ["x"], 1), edit(1, 1, ["y"], 2)])).toBe("a\nx\ny\nB\n");
  });

  it("empties a file completely", () => {
    expect(apply("a\nb\n", [edit(0, 2, [])])).toBe("");
  });

  it("flags ranges that share a line and inserts inside a replaced range, not adjacent ones", () => {
    expect(findOverlaps([edit(0, 2, [], 0), edit(1, 3, [], 1)])).toHaveLength(1);
    expect(findOverlaps([edit(0, 3, [], 0), edit(1, 1, [], 1)])).toHaveLength(1);
    expect(findOverlaps([edit(0, 2, [], 0), edit(2, 3, [], 1)])).toHaveLength(0);
    expect(findOverlaps([edit(2, 2, [], 0), edit(2, 3, [], 1), edit(3, 3, [], 2)])).toHaveLength(0);
  });
});
