import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { planCandidate } from "../../../src/candidate/plan.js";
import { CandidateError, type FileOp } from "../../../src/candidate/types.js";
import { applyPlan, worktreeReader } from "../../../src/candidate/write.js";
import { snapshot } from "./helpers.js";

const create = (p: string): FileOp => ({ op: "write", path: p, content: Buffer.from("x\n"), create: true });

/** A file below a folder, and a link to it: `src/a.ts`, `flink -> src/a.ts`. */
describe("deletes below and at a file or a link to one", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), "trm-rollback-order-"));
    await mkdir(path.join(root, "src"));
    await writeFile(path.join(root, "src", "a.ts"), "a\n");
    await symlink("src/a.ts", path.join(root, "flink"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  describe("a delete of a path below a file", () => {
    it("is a candidate problem ('does not exist'), not an unexpected ENOTDIR, whether a link names the file or not", async () => {
      const r = worktreeReader(root);
      for (const p of ["src/a.ts/x", "flink/x", "src/a.ts/x/y"]) {
        const err = await planCandidate({ mode: "delete", paths: [p] }, r).catch((e: unknown) => e);
        expect(err, p).toBeInstanceOf(CandidateError);
        expect(String((err as Error).message), p).toMatch(/does not exist/);
      }
    });
  });

  describe("rollback of a delete followed by a write below the deleted name", () => {
    // A patch may delete `flink` (or src/a.ts) and create `flink/x.js` (src/a.ts/x.js): the folder made for
    // the new file stands where the link (file) was until it is removed, so it must go before they come back.
    for (const [label, ops] of [
      ["a link", [{ op: "delete", path: "flink" }, create("flink/x.js")]],
      ["a file (its folder emptied)", [{ op: "delete", path: "src/a.ts" }, create("src/a.ts/x.js")]],
      ["a file, two folders deep", [{ op: "delete", path: "src/a.ts" }, create("src/a.ts/d/x.js")]],
    ] as [string, FileOp[]][]) {
      it(`puts back ${label} exactly, the rollback complete`, async () => {
        const before = await snapshot(root);
        const applied = await applyPlan(root, ops);
        await expect(applied.rollback()).resolves.toBeUndefined();
        expect(await snapshot(root)).toEqual(before);
      });
    }

    it("and when a later op fails, the error says nothing was changed, and nothing was", async () => {
      const before = await snapshot(root);
      // The third op fails (below a file): everything before it is undone.
      const err = await applyPlan(root, [{ op: "delete", path: "flink" }, create("flink/x.js"), create("src/a.ts/../a.ts/y")]).catch((e: unknown) => e);
      expect(String(err)).not.toMatch(/Restoring the worktree failed/);
      expect(await snapshot(root)).toEqual(before);
    });
  });
});
