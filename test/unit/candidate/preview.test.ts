import { describe, expect, it } from "vitest";
import { planCandidate } from "../../../src/candidate/plan.js";
import { previewPlan, validationWarnings } from "../../../src/candidate/preview.js";
import { lines, memTree } from "./helpers.js";

describe("previewPlan", () => {
  it("summarises added, modified and deleted files with counts and excerpts", async () => {
    const files = { "m.txt": lines(30), "d.txt": "gone\ngone too\n" };
    const tree = memTree(files);
    const plan = await planCandidate(
      {
        mode: "patch",
        patch:
          "--- a/m.txt\n+++ b/m.txt\n@@ -9,3 +9,4 @@\n line 9\n-line 10\n+TEN\n+ten and a half\n line 11\n" +
          "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+new 1\n+new 2\n" +
          "--- a/d.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-gone\n-gone too\n",
      },
      tree,
    );
    const p = await previewPlan(plan, tree);
    expect(p.filesAffected).toEqual(["m.txt", "n.txt", "d.txt"]);
    expect([p.linesAdded, p.linesRemoved]).toEqual([4, 3]);
    expect(p.files[0]).toEqual({
      path: "m.txt",
      status: "modified",
      linesAdded: 2,
      linesRemoved: 1,
      excerpts: [
        {
          startLine: 8,
          before: ["line 8", "line 9", "line 10", "line 11", "line 12"],
          after: ["line 8", "line 9", "TEN", "ten and a half", "line 11", "line 12"],
        },
      ],
    });
    expect(p.files[1]).toMatchObject({ status: "added", linesAdded: 2, excerpts: [{ startLine: 1, before: [], after: ["new 1", "new 2"] }] });
    expect(p.files[2]).toMatchObject({ status: "deleted", linesRemoved: 2, excerpts: [{ before: ["gone", "gone too"], after: [] }] });
  });

  it("bounds excerpts: lines per side, characters per line, regions per file", async () => {
    const before = lines(400);
    const after = before
      .split("\n")
      .map((l, i) => (i % 20 === 0 && l ? `${l} changed ${"x".repeat(500)}` : l))
      .join("\n");
    const big = lines(100, (i) => `added ${i}`);
    const tree = memTree({ f: before });
    const plan = await planCandidate(
      {
        mode: "files",
        files: [
          { path: "f", content: after },
          { path: "g", content: big },
        ],
      },
      tree,
    );
    const p = await previewPlan(plan, tree);
    const f = p.files[0]!;
    expect(f.linesAdded).toBe(20);
    expect(f.excerpts).toHaveLength(9);
    expect(f.excerpts[8]!.before[0]).toMatch(/12 more changed regions/);
    expect(Math.max(...f.excerpts.flatMap((e) => e.after.map((l) => l.length)))).toBeLessThan(260);
    const g = p.files[1]!.excerpts[0]!;
    expect(g.after).toHaveLength(16);
    expect(g.after[15]).toBe("… (85 more lines)");
  });

  it("shows binary content as a note", async () => {
    const tree = memTree({ b: Buffer.from([0, 1, 2]) });
    const p = await previewPlan({ ops: [{ op: "delete", path: "b" }], warnings: [], fuzz: [] }, tree);
    expect(p.files[0]!.excerpts[0]!.before[0]).toMatch(/binary content, 3 bytes/);
  });

  it("validationWarnings lists warnings and each use of fuzz", async () => {
    const tree = memTree({ f: "a\n  b\nc\n" });
    const plan = await planCandidate({ mode: "patch", patch: "--- a/f\n+++ b/f\n@@ -5,2 +5,2 @@\n b\n-c\n+C\n" }, tree);
    expect(validationWarnings(plan)).toEqual(["fuzz: f hunk 1: applied at line 2, 3 line(s) above the stated line 5; matched ignoring whitespace differences"]);
    const same = await planCandidate({ mode: "files", files: [{ path: "f", content: "a\n  b\nc\n" }] }, tree);
    expect(validationWarnings(same)).toEqual(["f: content identical to the current file (no change)"]);
  });
});
