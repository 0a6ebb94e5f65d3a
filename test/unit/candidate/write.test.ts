import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { planCandidate } from "../../../src/candidate/plan.js";
import type { FileOp } from "../../../src/candidate/types.js";
import { applyPlan, worktreeReader } from "../../../src/candidate/write.js";
import { linkDeletionDiff, snapshot } from "./helpers.js";

const w = (p: string, s: string): FileOp => ({ op: "write", path: p, content: Buffer.from(s), create: false });

describe("applyPlan", () => {
  let root: string;
  let outside: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), "trm-apply-"));
    outside = await mkdtemp(path.join(tmpdir(), "trm-outside-"));
    await mkdir(path.join(root, "src/deep"), { recursive: true });
    await writeFile(path.join(root, "src/a.ts"), "a\r\n");
    await writeFile(path.join(root, "src/deep/only.ts"), "only\n");
    await writeFile(path.join(root, "run.sh"), "#!/bin/sh\n");
    await chmod(path.join(root, "run.sh"), 0o755);
    await writeFile(path.join(root, "target.txt"), "target\n");
    await symlink("target.txt", path.join(root, "link.txt"));
    await writeFile(path.join(root, "blocker"), "a file, not a dir\n");
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it("writes, creates and deletes", async () => {
    await applyPlan(root, [
      w("src/a.ts", "A\n"),
      { op: "write", path: "new/dir/n.ts", content: Buffer.from("n"), create: true },
      { op: "delete", path: "src/deep/only.ts" },
    ]);
    expect(await readFile(path.join(root, "src/a.ts"), "utf8")).toBe("A\n");
    expect(await readFile(path.join(root, "new/dir/n.ts"), "utf8")).toBe("n");
    // The emptied directory goes too: git would not keep it.
    await expect(stat(path.join(root, "src/deep"))).rejects.toThrow();
  });

  it.each([
    ["a write below a file", w("blocker/x.ts", "x")],
    ["a write onto a directory", w("src", "x")],
    ["a delete of a missing file", { op: "delete", path: "nope.ts" } as FileOp],
    ["a path into .git", w(".git/config", "x")],
    ["a path escaping the root", w("../escape.txt", "x")],
  ])("leaves the tree byte-identical when %s fails midway", async (_, failing) => {
    const before = await snapshot(root);
    const ops: FileOp[] = [
      w("src/a.ts", "changed\n"),
      { op: "write", path: "fresh/sub/new.ts", content: Buffer.from("new"), create: true },
      { op: "delete", path: "src/deep/only.ts" },
      { op: "delete", path: "run.sh" },
      w("link.txt", "through the link\n"),
      failing,
      w("never.ts", "never"),
    ];
    await expect(applyPlan(root, ops)).rejects.toThrow();
    expect(await snapshot(root)).toEqual(before);
  });

  it("refuses to write through a symlink that leaves the worktree", async () => {
    await symlink(outside, path.join(root, "out"));
    const before = await snapshot(root);
    await expect(applyPlan(root, [w("src/a.ts", "x"), w("out/pwned.txt", "x")])).rejects.toThrow(/symlink/);
    expect(await readdir(outside)).toEqual([]);
    expect(await snapshot(root)).toEqual(before);
  });

  it("refuses a symlink that resolves into .git", async () => {
    await mkdir(path.join(root, ".git"));
    await symlink(".git", path.join(root, "g"));
    await expect(applyPlan(root, [w("g/config", "x")])).rejects.toThrow(/\.git/);
    expect(await readdir(path.join(root, ".git"))).toEqual([]);
  });

  it("rollback() undoes a successful apply", async () => {
    const before = await snapshot(root);
    const applied = await applyPlan(root, [
      w("src/a.ts", "x"),
      { op: "delete", path: "run.sh" },
      { op: "write", path: "n/m.ts", content: Buffer.from("m"), create: true },
    ]);
    expect(applied.paths).toEqual(["src/a.ts", "run.sh", "n/m.ts"]);
    await applied.rollback();
    expect(await snapshot(root)).toEqual(before);
  });

  it("deletes a committed link as itself, wherever it points, and puts it back on rollback", async () => {
    await symlink("src/deep", path.join(root, "to-folder"));
    await symlink("gone.ts", path.join(root, "dangling"));
    await symlink(outside, path.join(root, "out"));
    await writeFile(path.join(outside, "keep.txt"), "outside\n");
    const before = await snapshot(root);
    const r = worktreeReader(root);
    const ops = (await planCandidate({ mode: "delete", paths: ["to-folder", "dangling", "out"] }, r)).ops;
    expect(ops).toEqual([
      { op: "delete", path: "to-folder" },
      { op: "delete", path: "dangling" },
      { op: "delete", path: "out" },
    ]);
    const applied = await applyPlan(root, ops);
    expect(applied.paths).toEqual(["to-folder", "dangling", "out"]);
    for (const p of ["to-folder", "dangling", "out"]) await expect(lstat(path.join(root, p))).rejects.toThrow(/ENOENT/);
    // What the links pointed at is untouched.
    expect(await readFile(path.join(root, "src/deep/only.ts"), "utf8")).toBe("only\n");
    expect(await readFile(path.join(outside, "keep.txt"), "utf8")).toBe("outside\n");
    await applied.rollback();
    expect(await snapshot(root)).toEqual(before);
  });

  it("plans git's own diff of deleted links (mode 120000, the link text removed) as deletes of the links", async () => {
    await symlink("src/deep", path.join(root, "dl"));
    await symlink("nowhere", path.join(root, "dang"));
    await symlink(outside, path.join(root, "out"));
    // What `git rm dl dang out link.txt && git diff --cached` prints (git 2.39), the outside path as created here.
    const patch =
      linkDeletionDiff("dang", "nowhere") + linkDeletionDiff("dl", "src/deep") + linkDeletionDiff("out", outside) + linkDeletionDiff("link.txt", "target.txt");
    const r = worktreeReader(root);
    const ops = (await planCandidate({ mode: "patch", patch }, r)).ops;
    expect(ops).toEqual(["dang", "dl", "out", "link.txt"].map((p) => ({ op: "delete", path: p })));
    // A model's deletion of the file a link points at, diffed as that file: the link goes (as before).
    const asFile = "--- a/link.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-target\n";
    expect((await planCandidate({ mode: "patch", patch: asFile }, r)).ops).toEqual([{ op: "delete", path: "link.txt" }]);
    // Lines that are neither the link's text nor its file's content: refused as before.
    await expect(planCandidate({ mode: "patch", patch: linkDeletionDiff("dl", "elsewhere") }, r)).rejects.toThrow(/not the file's current content/);
    await expect(planCandidate({ mode: "patch", patch: linkDeletionDiff("out", "/etc") }, r)).rejects.toThrow(/not the file's current content/);
  });

  it("still refuses a delete below a link that leaves the worktree or enters .git, and a delete of a folder", async () => {
    await writeFile(path.join(outside, "keep.txt"), "outside\n");
    await symlink(outside, path.join(root, "out"));
    await mkdir(path.join(root, ".git"));
    await writeFile(path.join(root, ".git", "index"), "index");
    await symlink(".git", path.join(root, "g"));
    const r = worktreeReader(root);
    await expect(planCandidate({ mode: "delete", paths: ["out/keep.txt"] }, r)).rejects.toThrow(/symlink/);
    await expect(planCandidate({ mode: "delete", paths: ["g/index"] }, r)).rejects.toThrow(/\.git/);
    await expect(applyPlan(root, [{ op: "delete", path: "out/keep.txt" }])).rejects.toThrow(/symlink/);
    await expect(applyPlan(root, [{ op: "delete", path: "g/index" }])).rejects.toThrow(/\.git/);
    await expect(planCandidate({ mode: "delete", paths: ["src/deep"] }, r)).rejects.toThrow(/does not exist/);
    expect(await readFile(path.join(outside, "keep.txt"), "utf8")).toBe("outside\n");
    expect(await readFile(path.join(root, ".git", "index"), "utf8")).toBe("index");
  });

  it("worktreeReader reads files and links, null for missing files and directories", async () => {
    const r = worktreeReader(root);
    expect((await r.read("src/a.ts"))?.toString()).toBe("a\r\n");
    expect((await r.read("link.txt"))?.toString()).toBe("target\n");
    expect(await r.read("src/deep")).toBeNull();
    expect(await r.read("missing.ts")).toBeNull();
    await expect(r.read("../x")).rejects.toThrow(/escapes/);
  });
});
