import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validatedCandidate } from "../../../src/suggest/fixes.js";
import { replaceEdits, rewritesToCandidate } from "../../../src/suggest/to-candidate.js";
import { memTree, run } from "../candidate/helpers.js";

const before = `import { clamp } from "./math.js";

export function total(values: number[]): number {
  return values.reduce((acc, v) => add(acc, v), 0);
}

export function scale(value, factor: number): number {
  return clamp(value * factor, 0, 100);
}
`;

describe("rewritesToCandidate", () => {
  it("writes one replace edit per changed region, with only the changed line when it is unique", () => {
    const after = before.replace("import { clamp }", "import { add, clamp }").replace("scale(value,", "scale(value: number,");
    const c = rewritesToCandidate([{ path: "src/report.ts", before, after }]);
    expect(c).toEqual({
      mode: "modify",
      changes: [
        {
          file: "src/report.ts",
          edits: [
            { type: "replace", oldText: 'import { clamp } from "./math.js";\n', newText: 'import { add, clamp } from "./math.js";\n' },
            {
              type: "replace",
              oldText: "export function scale(value, factor: number): number {\n",
              newText: "export function scale(value: number, factor: number): number {\n",
            },
          ],
        },
      ],
    });
  });

  it("widens an edit until its old text is unique, and anchors pure insertions on a neighbour line", async () => {
    const text = "a\n}\nb\n}\nc\n";
    const edits = replaceEdits(text, "a\n}\nb\n  x;\n}\nc\n")!;
    expect(edits).toHaveLength(1);
    // "}" alone occurs twice, so the anchor grows to include a unique neighbour.
    expect(edits[0]!.oldText!.split("\n").length).toBeGreaterThan(2);
    const r = await run({ f: text }, { mode: "modify", changes: [{ file: "f", edits }] });
    expect(r.files.f).toBe("a\n}\nb\n  x;\n}\nc\n");
  });

  it("merges regions whose anchors would overlap (edits of one file may not overlap)", async () => {
    const text = "x\nx\nx\nx\n";
    const after = "y\nx\nx\ny\n";
    const r = await run({ f: text }, rewritesToCandidate([{ path: "f", before: text, after }]));
    expect(r.files.f).toBe(after);
  });

  it("falls back to whole files for an empty file (no text to anchor a replace on)", () => {
    expect(rewritesToCandidate([{ path: "f", before: "", after: "x\n" }])).toEqual({ mode: "files", files: [{ path: "f", content: "x\n" }] });
  });

  it("leaves out unchanged files and keeps the file order stable", () => {
    const c = rewritesToCandidate([
      { path: "b.ts", before: "1\n", after: "2\n" },
      { path: "same.ts", before: "s\n", after: "s\n" },
      { path: "a.ts", before: "1\n", after: "3\n" },
    ]);
    expect(c.changes!.map((x) => x.file)).toEqual(["a.ts", "b.ts"]);
  });

  // Any rewrite of any file becomes a candidate that plans to exactly the rewritten text.
  const line = fc.oneof(
    fc.constantFrom("", "}", "  return x;", "x", "{"),
    fc.nat(50).map((n) => `v${n};`),
  );
  const file = fc.tuple(fc.array(line, { maxLength: 25 }), fc.boolean()).map(([ls, nl]) => (ls.length ? ls.join("\n") + (nl ? "\n" : "") : ""));
  it("property: the candidate reproduces the rewrite exactly", async () => {
    await fc.assert(
      fc.asyncProperty(file, file, async (a, b) => {
        fc.pre(a !== b);
        const c = await validatedCandidate([{ path: "f.ts", before: a, after: b }], memTree({ "f.ts": a }));
        expect(c).not.toBeNull();
        const r = await run({ "f.ts": a }, c!);
        expect(r.files["f.ts"]).toBe(b);
      }),
      { numRuns: 300 },
    );
  });
});

describe("validatedCandidate", () => {
  it("returns null when the file no longer has the text the fixer saw", async () => {
    const c = await validatedCandidate([{ path: "f.ts", before: "let a = 1;\n", after: "const a = 1;\n" }], memTree({ "f.ts": "let b = 2;\n" }));
    expect(c).toBeNull();
  });

  it("returns null for a path a candidate may not write", async () => {
    expect(await validatedCandidate([{ path: "../outside.ts", before: "a\n", after: "b\n" }], memTree({}))).toBeNull();
  });

  it("keeps CRLF files CRLF", async () => {
    const a = "let a = 1;\r\nlet b = 2;\r\n";
    const b = "const a = 1;\r\nlet b = 2;\r\n";
    const c = await validatedCandidate([{ path: "f.ts", before: a, after: b }], memTree({ "f.ts": a }));
    expect(c).not.toBeNull();
    expect((await run({ "f.ts": a }, c!)).files["f.ts"]).toBe(b);
  });
});
