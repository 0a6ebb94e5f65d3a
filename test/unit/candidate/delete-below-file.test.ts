import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CandidateError } from "../../../src/candidate/types.js";
import { planCandidate } from "../../../src/candidate/plan.js";
import { worktreeReader } from "../../../src/candidate/write.js";

describe("a delete of a path below a file", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), "trm-del-below-"));
    await mkdir(path.join(root, "src"));
    await writeFile(path.join(root, "src", "a.ts"), "a\n");
    await symlink("src/a.ts", path.join(root, "flink"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("is a candidate problem ('does not exist'), not an unexpected ENOTDIR, whether a link names the file or not", async () => {
    const r = worktreeReader(root);
    for (const p of ["src/a.ts/x", "flink/x", "src/a.ts/x/y"]) {
      const err = await planCandidate({ mode: "delete", paths: [p] }, r).catch((e: unknown) => e);
      expect(err, p).toBeInstanceOf(CandidateError);
      expect(String((err as Error).message), p).toMatch(/does not exist/);
    }
  });
});
