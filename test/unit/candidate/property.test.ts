import { createTwoFilesPatch, structuredPatch } from "diff";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffRegions } from "../../../src/candidate/line-diff.js";
import { run } from "./helpers.js";

/**
 * Properties over random files and random edits: a unified diff produced by the `diff` library
 * (an independent implementation) applies to give exactly the edited file, including when the file
 * has meanwhile been shifted by unrelated lines at the top.
 */

// Lines from a small vocabulary repeat (as `}` and blank lines do in code); unique lines make shifts unambiguous.
const commonLine = fc.constantFrom("", "}", "  return x;", "\t// note", "  x += 1;  ", "end");
const uniqueLine = fc.integer({ min: 0, max: 1_000_000 }).map((n) => `value_${n} = ${n % 97};`);
const anyLine = fc.oneof(
  commonLine,
  uniqueLine,
  fc.string({ maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, "")),
);

type Op = { at: number; del: number; ins: string[] };
const op = fc.record({ at: fc.nat(), del: fc.nat({ max: 3 }), ins: fc.array(anyLine, { maxLength: 3 }) });

function edit(lines: string[], ops: Op[]): string[] {
  const out = [...lines];
  for (const o of ops) {
    const at = out.length === 0 ? 0 : o.at % (out.length + 1);
    out.splice(at, o.del, ...o.ins);
  }
  return out;
}

const join = (lines: string[], finalNewline: boolean) => (lines.length === 0 ? "" : lines.join("\n") + (finalNewline ? "\n" : ""));

const fileArb = (line: fc.Arbitrary<string>) =>
  fc.record({
    lines: fc.array(line, { maxLength: 40 }),
    ops: fc.array(op, { minLength: 1, maxLength: 5 }),
    finalBefore: fc.boolean(),
    finalAfter: fc.boolean(),
    context: fc.integer({ min: 0, max: 4 }),
  });

describe("diffs made by the diff library apply exactly", () => {
  it("as mode diff (per-file)", async () => {
    await fc.assert(
      fc.asyncProperty(fileArb(anyLine), async ({ lines, ops, finalBefore, finalAfter, context }) => {
        const before = join(lines, finalBefore);
        const after = join(edit(lines, ops), finalAfter);
        fc.pre(before !== after && before !== "" && after !== "");
        // Context 0 gives hunks with nothing to anchor them but line numbers, which is exact here.
        const patch = createTwoFilesPatch("a/f.txt", "b/f.txt", before, after, undefined, undefined, { context });
        const r = await run({ "f.txt": before }, { mode: "diff", diffs: [{ path: "f.txt", diff: patch }] });
        expect(r.files["f.txt"]).toBe(after);
      }),
      { numRuns: 300 },
    );
  });

  it("as mode patch, after unrelated lines were inserted at the top", async () => {
    await fc.assert(
      fc.asyncProperty(
        fileArb(fc.oneof(uniqueLine, uniqueLine, commonLine)),
        fc.array(
          fc.integer({ min: 0, max: 999 }).map((n) => `// inserted later ${n}`),
          { minLength: 1, maxLength: 30 },
        ),
        fc.boolean(),
        async ({ lines, ops, finalBefore, finalAfter }, shift, crlf) => {
          const edited = edit(lines, ops);
          const before = join(lines, finalBefore);
          const after = join(edited, finalAfter);
          // An empty file gives a hunk without context, which nothing could place after a shift.
          fc.pre(before !== "" && before !== after && edited.length > 0);
          const patch = createTwoFilesPatch("a/f.txt", "b/f.txt", before, after, undefined, undefined, { context: 3 });
          const eol = crlf ? "\r\n" : "\n";
          const prefix = shift.map((l) => l + eol).join("");
          const r = await run({ "f.txt": prefix + before.replace(/\n/g, eol) }, { mode: "patch", patch });
          expect(r.files["f.txt"]).toBe(prefix + after.replace(/\n/g, eol));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("hunk by hunk: every hunk of a structured patch lands at its own place", async () => {
    await fc.assert(
      fc.asyncProperty(fileArb(uniqueLine), async ({ lines, ops }) => {
        const before = join(lines, true);
        const after = join(edit(lines, ops), true);
        fc.pre(before !== after && after !== "" && before !== "");
        const sp = structuredPatch("f", "f", before, after, undefined, undefined, { context: 2 });
        const body = sp.hunks.map((h) => `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@\n${h.lines.join("\n")}\n`).join("");
        // Headerless per-file diff, the shape models send most.
        const r = await run({ "f.txt": before }, { mode: "diff", diffs: [{ path: "f.txt", diff: body }] });
        expect(r.files["f.txt"]).toBe(after);
      }),
      { numRuns: 200 },
    );
  });
});

describe("modify line edits refer to the original file", () => {
  it("matches a reference that applies non-overlapping edits bottom-up", async () => {
    const arb = fc
      .record({
        n: fc.integer({ min: 1, max: 30 }),
        picks: fc.array(fc.record({ a: fc.nat(), len: fc.nat({ max: 2 }), kind: fc.nat({ max: 3 }), text: uniqueLine }), { maxLength: 6 }),
      })
      .map(({ n, picks }) => {
        const lines = Array.from({ length: n }, (_, i) => `orig ${i + 1}`);
        // Keep only edits on disjoint line ranges (the planner rejects overlaps, tested elsewhere).
        const used = new Set<number>();
        const edits: Array<{ type: "replaceRange" | "deleteRange" | "insertBefore" | "replaceLine"; start: number; end: number; text: string }> = [];
        for (const p of picks) {
          const start = (p.a % n) + 1;
          const end = Math.min(n, start + p.len);
          const type = (["replaceRange", "deleteRange", "insertBefore", "replaceLine"] as const)[p.kind]!;
          const span = type === "insertBefore" ? [start] : type === "replaceLine" ? [start] : Array.from({ length: end - start + 1 }, (_, i) => start + i);
          if (span.some((l) => used.has(l))) continue;
          span.forEach((l) => used.add(l));
          edits.push({ type, start, end: type === "replaceLine" || type === "insertBefore" ? start : end, text: p.text });
        }
        return { lines, edits };
      });
    await fc.assert(
      fc.asyncProperty(arb, async ({ lines, edits }) => {
        fc.pre(edits.length > 0);
        const expected = [...lines];
        for (const e of [...edits].sort((x, y) => y.start - x.start)) {
          if (e.type === "insertBefore") expected.splice(e.start - 1, 0, e.text);
          else if (e.type === "deleteRange") expected.splice(e.start - 1, e.end - e.start + 1);
          else expected.splice(e.start - 1, e.end - e.start + 1, e.text);
        }
        const candidateEdits = edits.map((e) =>
          e.type === "insertBefore" || e.type === "replaceLine"
            ? { type: e.type, line: e.start, content: e.text }
            : e.type === "deleteRange"
              ? { type: e.type, startLine: e.start, endLine: e.end }
              : { type: e.type, startLine: e.start, endLine: e.end, content: e.text },
        );
        const r = await run({ "f.txt": join(lines, true) }, { mode: "modify", changes: [{ file: "f.txt", edits: candidateEdits }] });
        expect(r.files["f.txt"]).toBe(join(expected, true));
      }),
      { numRuns: 300 },
    );
  });
});

describe("line diff", () => {
  it("its regions turn a into b", () => {
    fc.assert(
      fc.property(fc.array(commonLine, { maxLength: 30 }), fc.array(op, { maxLength: 6 }), (a, ops) => {
        const b = edit(a, ops);
        const out: string[] = [];
        let i = 0;
        for (const r of diffRegions(a, b)) {
          out.push(...a.slice(i, r.aStart), ...b.slice(r.bStart, r.bEnd));
          i = r.aEnd;
        }
        out.push(...a.slice(i));
        expect(out).toEqual(b);
      }),
      { numRuns: 500 },
    );
  });
});
