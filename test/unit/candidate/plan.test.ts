import { describe, expect, it } from "vitest";
import { planCandidate } from "../../../src/candidate/plan.js";
import type { Candidate } from "../../../src/candidate/schema.js";
import { UserError } from "../../../src/util/errors.js";
import { issuesOf, memTree, run } from "./helpers.js";

describe("planCandidate: files and create", () => {
  it("keeps an existing file's CRLF endings and BOM, with warnings", async () => {
    const r = await run({ w: "\uFEFFa\r\nb\r\n" }, { mode: "files", files: [{ path: "w", content: "a\nc\n" }] });
    expect(r.files.w).toBe("\uFEFFa\r\nc\r\n");
    expect(r.plan.warnings).toEqual([
      "w: the file uses CRLF line endings; the LF content sent was converted to CRLF",
      "w: kept the file's UTF-8 byte-order mark",
    ]);
  });

  it("writes new files and LF files exactly as sent", async () => {
    const r = await run(
      { lf: "a\n" },
      {
        mode: "files",
        files: [
          { path: "lf", content: "b" },
          { path: "new/x", content: "x\r\n" },
        ],
      },
    );
    expect(r.files).toEqual({ lf: "b", "new/x": "x\r\n" });
    expect(r.plan.warnings).toEqual([]);
  });

  it.each([
    ["identical content", "a\nb\n", "a\nb\n", /content identical/],
    ["whitespace only", "a  b\n", "a b\n", /whitespace-only change/],
    ["line endings only", "a\nb\n", "a\r\nb\r\n", /only line endings change/],
  ])("warns about %s", async (_, before, after, re) => {
    const r = await run({ f: before }, { mode: "files", files: [{ path: "f", content: after }] });
    expect(r.plan.warnings.join("\n")).toMatch(re);
  });

  // A model resending a file it did not edit must not count as changing it (protectTests, changed test files).
  it.each<[string, Candidate]>([
    [
      "files",
      {
        mode: "files",
        files: [
          { path: "t", content: "x\n" },
          { path: "s", content: "2\n" },
        ],
      },
    ],
    [
      "modify",
      {
        mode: "modify",
        changes: [
          { file: "t", edits: [{ type: "replace", oldText: "x", newText: "x" }] },
          { file: "s", edits: [{ type: "replace", oldText: "1", newText: "2" }] },
        ],
      },
    ],
    ["patch", { mode: "patch", patch: "--- a/t\n+++ b/t\n@@ -1 +1 @@\n-x\n+x\n--- a/s\n+++ b/s\n@@ -1 +1 @@\n-1\n+2\n" }],
  ])("%s: a write of the file's current content is left out of the plan, with its warning", async (_, c) => {
    const plan = await planCandidate(c, memTree({ t: "x\n", s: "1\n" }));
    expect(plan.ops.map((o) => o.path)).toEqual(["s"]);
    expect(plan.warnings).toContain("t: content identical to the current file (no change)");
  });

  it("create refuses existing files; both modes refuse a path given twice", async () => {
    const issues = await issuesOf(
      { a: "x" },
      {
        mode: "create",
        files: [
          { path: "a", content: "y" },
          { path: "b", content: "1" },
          { path: "./b", content: "2" },
        ],
      },
    );
    expect(issues.map((i) => i.file)).toEqual(["a", "b"]);
  });
});

describe("planCandidate: shape", () => {
  it("names the field a mode needs", async () => {
    await expect(planCandidate({ mode: "modify" }, memTree({}))).rejects.toThrow(/needs a non-empty "changes"/);
    await expect(planCandidate({ mode: "patch", patch: "" }, memTree({}))).rejects.toBeInstanceOf(UserError);
  });

  it("collects issues of every file before failing", async () => {
    const issues = await issuesOf({}, { mode: "delete", paths: ["a", "../b", "c"] });
    expect(issues.map((i) => i.file)).toEqual(["a", "../b", "c"]);
  });

  it("reads each file once however many times planning needs it", async () => {
    const reads: string[] = [];
    const tree = {
      read: async (p: string) => {
        reads.push(p);
        return p === "x" ? Buffer.from("1\n") : null;
      },
    };
    await planCandidate({ mode: "patch", patch: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-1\n+2\n" }, tree);
    expect(reads).toEqual(["x"]);
  });
});
