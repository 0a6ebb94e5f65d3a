import { describe, expect, it } from "vitest";
import { suggestMode } from "../../../src/candidate/mode-suggest.js";
import { planCandidate } from "../../../src/candidate/plan.js";
import type { Candidate } from "../../../src/candidate/schema.js";
import { type Files, lines, memTree } from "./helpers.js";

async function suggest(files: Files, c: Candidate) {
  const tree = memTree(files);
  return suggestMode(c, await planCandidate(c, tree), tree);
}

const big = lines(400, (i) => `  const value${i} = compute(${i}, "some text on this line");`);

describe("suggestMode", () => {
  it("suggests modify or patch when a whole file was sent to change three lines", async () => {
    const after = big.replace("value10 =", "renamed10 =").replace("value200 =", "renamed200 =").replace("value390 =", "renamed390 =");
    const s = await suggest({ "a.ts": big }, { mode: "files", files: [{ path: "a.ts", content: after }] });
    expect(s).toMatch(/^Mode files sent ~[\d,]+ tokens for 3 of 400 lines changed in a.ts; modify \(replace \/ replaceRange edits\) would take ~\d+/);
    const [sent, cost] = [...s!.matchAll(/~([\d,]+)/g)].map((m) => Number(m[1]!.replace(/,/g, "")));
    expect(cost! * 10).toBeLessThan(sent!);
  });

  it("suggests files when a patch rewrites a small file", async () => {
    const before = lines(6);
    const after = lines(6, (i) => `rewritten ${i}`);
    const patch = `--- a/s.txt\n+++ b/s.txt\n@@ -1,6 +1,6 @@\n${before
      .split("\n")
      .filter(Boolean)
      .map((l) => `-${l}`)
      .join("\n")}\n${after
      .split("\n")
      .filter(Boolean)
      .map((l) => `+${l}`)
      .join("\n")}\n`;
    // Small absolute savings are not worth a remark.
    expect(await suggest({ "s.txt": before }, { mode: "patch", patch })).toBeUndefined();
  });

  it("says nothing when the mode used was already cheap", async () => {
    expect(
      await suggest(
        { "a.ts": big },
        { mode: "modify", changes: [{ file: "a.ts", edits: [{ type: "replace", oldText: "value10 =", newText: "renamed10 =" }] }] },
      ),
    ).toBeUndefined();
    expect(await suggest({}, { mode: "files", files: [{ path: "n.ts", content: big }] })).toBeUndefined();
  });

  it("suggests delete for a patch that only deletes a large file with all its lines", async () => {
    const patch = `--- a/a.ts\n+++ /dev/null\n@@ -1,400 +0,0 @@\n${big
      .split("\n")
      .filter(Boolean)
      .map((l) => `-${l}`)
      .join("\n")}\n`;
    expect(await suggest({ "a.ts": big }, { mode: "patch", patch })).toMatch(/delete would take/);
  });
});
