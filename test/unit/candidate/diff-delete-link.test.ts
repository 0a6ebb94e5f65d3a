import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { planCandidate } from "../../../src/candidate/plan.js";
import { worktreeReader } from "../../../src/candidate/write.js";
import { linkDeletionDiff } from "./helpers.js";

describe("mode diff: git's own diff of a deleted link", () => {
  let root: string;
  let outside: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), "trm-diff-dlink-"));
    outside = await mkdtemp(path.join(tmpdir(), "trm-diff-dlink-out-"));
    await writeFile(path.join(outside, "s.txt"), "secret\n");
    await symlink(path.join(outside, "s.txt"), path.join(root, "outf"));
    await symlink(outside, path.join(root, "out"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it("deletes a link out of the worktree as mode patch does, without reading through it", async () => {
    const r = worktreeReader(root);
    for (const [name, text] of [
      ["outf", path.join(outside, "s.txt")],
      ["out", outside],
    ] as const) {
      const diff = linkDeletionDiff(name, text);
      expect((await planCandidate({ mode: "patch", patch: diff }, r)).ops, `patch ${name}`).toEqual([{ op: "delete", path: name }]);
      // Was refused: 'Path leaves the worktree through a symlink' (the diff's path was read through the link).
      expect((await planCandidate({ mode: "diff", diffs: [{ path: name, diff }] }, r)).ops, `diff ${name}`).toEqual([{ op: "delete", path: name }]);
    }
    // What the link points at is still neither read nor matched.
    await expect(planCandidate({ mode: "diff", diffs: [{ path: "outf", diff: linkDeletionDiff("outf", "secret") }] }, r)).rejects.toThrow(
      /not the file's current content/,
    );
  });

  it("refuses a hunkless deletion of a missing file as mode patch does, instead of planning nothing", async () => {
    const diff = "diff --git a/nothere b/nothere\ndeleted file mode 100644\nindex e69de29..0000000\n";
    await expect(planCandidate({ mode: "diff", diffs: [{ path: "nothere", diff }] }, worktreeReader(root))).rejects.toThrow(/does not exist/);
  });
});
