import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FileOp } from "../../../src/candidate/types.js";
import { applyPlan } from "../../../src/candidate/write.js";

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    for (const name of (await readdir(d)).sort()) {
      const abs = path.join(d, name);
      const rel = path.relative(dir, abs);
      const st = await lstat(abs);
      if (st.isSymbolicLink()) out[rel] = `link -> ${await readlink(abs)}`;
      else if (st.isDirectory()) {
        out[rel] = "dir";
        await walk(abs);
      } else out[rel] = `file ${(st.mode & 0o777).toString(8)} ${(await readFile(abs)).toString("base64")}`;
    }
  };
  await walk(dir);
  return out;
}

const create = (p: string): FileOp => ({ op: "write", path: p, content: Buffer.from("x\n"), create: true });

describe("rollback of a delete followed by a write below the deleted name", () => {
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
