import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readObjectRaw } from "../../../src/git/object-read.js";
import { decodeTree, readBlobBytes } from "../../../src/git/objects.js";
import { peelToCommitFast, treeOfCommitFast } from "../../../src/git/session-git.js";
import { g, removeTmpDirs, ROOT, tmpDir } from "../../helpers/repo.js";

afterAll(removeTmpDirs);

/** `git ls-tree <tree>` as entries (mode, name, id). */
function lsTree(repo: string, tree: string) {
  return g(repo, "ls-tree", "-z", tree)
    .split("\0")
    .filter(Boolean)
    .map((l) => {
      const [meta, name] = l.split("\t");
      const [mode, , oid] = meta!.split(" ");
      return { mode: mode === "040000" ? "40000" : mode!, name: name!, oid: oid! };
    });
}

describe("objects read by id (git/object-read.ts)", () => {
  it("reads packed trees, blobs, commits and tags of a real repository as git does (77 trees of tj/n, packed)", async () => {
    const repo = path.join(tmpDir("trm-read-"), "n");
    g(path.dirname(repo), "clone", "-q", "--branch", "corpus", path.join(ROOT, "fixtures", "real-trees", "tj-n.bundle"), repo);
    g(repo, "tag", "-a", "-m", "annotated", "t1", "corpus");
    g(repo, "gc", "-q");
    const commonDir = path.join(repo, ".git");
    // Everything is packed: the reads below go through git cat-file, not the loose store.
    expect(g(repo, "count-objects", "-v")).toMatch(/^count: 0$/m);
    for (const c of g(repo, "rev-list", "corpus").trim().split("\n")) {
      const tree = await treeOfCommitFast(commonDir, c);
      expect(tree).toBe(g(repo, "rev-parse", `${c}^{tree}`).trim());
      expect(decodeTree((await readObjectRaw(commonDir, tree)).content)).toEqual(lsTree(repo, tree));
    }
    const bin = g(repo, "rev-parse", "corpus:bin/n").trim();
    expect((await readBlobBytes(commonDir, bin)).equals(Buffer.from(g(repo, "cat-file", "blob", bin), "utf8"))).toBe(true);
    expect(await peelToCommitFast(commonDir, g(repo, "rev-parse", "t1").trim())).toBe(g(repo, "rev-parse", "corpus").trim());
    await expect(readObjectRaw(commonDir, "0".repeat(40))).rejects.toThrow(/no object/);
  });

  it("reads loose objects in-process and objects of a borrowed store (clone --shared) through git", async () => {
    const src = tmpDir("trm-read-src-");
    g(src, "init", "-q", "-b", "main");
    mkdirSync(path.join(src, "d"));
    writeFileSync(path.join(src, "d", "a.txt"), "a\n");
    symlinkSync("d/a.txt", path.join(src, "link"));
    g(src, "add", "-A");
    g(src, "commit", "-q", "-m", "one");
    const clone = path.join(tmpDir("trm-read-shared-"), "c");
    g(path.dirname(clone), "clone", "-q", "--shared", src, clone);
    expect(existsSync(path.join(clone, ".git", "objects", "info", "alternates"))).toBe(true);
    for (const repo of [src, clone]) {
      const commonDir = path.join(repo, ".git");
      const tree = await treeOfCommitFast(commonDir, g(repo, "rev-parse", "HEAD").trim());
      expect(decodeTree((await readObjectRaw(commonDir, tree)).content)).toEqual(lsTree(repo, tree));
      expect((await readBlobBytes(commonDir, g(repo, "rev-parse", "HEAD:link").trim())).toString()).toBe("d/a.txt");
    }
  });
});
