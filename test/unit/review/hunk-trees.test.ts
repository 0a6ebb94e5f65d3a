import { describe, expect, it } from "vitest";
import { reviewPr } from "../../../src/review/review.js";

/**
 * With only a diff, the syntax-tree rules parse each hunk's new side (context and added lines) and
 * report on added lines only: a problem the change did not write stays the author's business.
 */

const keys = async (diff: string): Promise<string[]> => (await reviewPr({ diff }, { env: {} })).comments.map((c) => `${c.file}:${c.line}:${c.rule}`);

describe("syntax-tree rules on a bare diff's hunks", () => {
  it("report `.only`, a floating promise and a non-null assertion on a lookup written by the change", async () => {
    const diff = [
      "--- a/test/a.test.ts",
      "+++ b/test/a.test.ts",
      '@@ -4,3 +4,6 @@ describe("a", () => {',
      '   it("one", () => {',
      "     expect(1).toBe(1);",
      "   });",
      '+  describe.only("two", () => {',
      '+    it("x", () => expect(2).toBe(2));',
      "+  });",
      "--- a/src/store.ts",
      "+++ b/src/store.ts",
      "@@ -30,5 +30,7 @@ export class Store {",
      "   async save(): Promise<void> {",
      "     await this.flush();",
      "+    const row = this.rows.get(this.id)!;",
      "+    fetch(`/rows/${row.id}`);",
      "   }",
      " }",
      "",
    ].join("\n");
    expect(await keys(diff)).toEqual(
      expect.arrayContaining(["test/a.test.ts:7:test-only", "src/store.ts:32:ts-non-null-assertion", "src/store.ts:33:floating-promise"]),
    );
  });

  it("say nothing about the same problems on context lines", async () => {
    const diff = [
      "--- a/test/a.test.ts",
      "+++ b/test/a.test.ts",
      "@@ -4,3 +4,4 @@",
      '   it.only("one", () => {',
      "+    // checks one",
      "     expect(1).toBe(1);",
      "   });",
      "--- a/src/store.ts",
      "+++ b/src/store.ts",
      "@@ -30,4 +30,5 @@ export class Store {",
      "   save(): void {",
      '     fetch("/rows").then(() => this.done());',
      "+    this.count += 1;",
      "     const row = this.rows.get(this.id)!;",
      "   }",
      "",
    ].join("\n");
    expect(await keys(diff)).toEqual([]);
  });

  it("do not read code in a doc comment the hunk starts inside", async () => {
    const diff = [
      "--- a/test/b.test.ts",
      "+++ b/test/b.test.ts",
      "@@ -8,4 +8,5 @@",
      " * Example:",
      '+ *   it.only("focus", () => run());',
      " *   fetch(url);",
      " */",
      " export const b = 1;",
      "",
    ].join("\n");
    expect(await keys(diff)).toEqual([]);
  });
});
