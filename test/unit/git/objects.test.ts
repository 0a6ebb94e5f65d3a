import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { prepareNote } from "../../../src/git/notes.js";
import { encodeTree, type PathChange, writeObject, writeTreeWith } from "../../../src/git/objects.js";
import { peelToCommitFast, updateRefs, writeNote, writeTagFast } from "../../../src/git/session-git.js";
import { g, gitTreeOf, removeTmpDirs, repoFromFiles } from "../../helpers/repo.js";

afterAll(removeTmpDirs);

const repoWith = (files: Record<string, string>) => repoFromFiles(files, "trm-objects-");

/** The changes as candidate-tree.ts builds them from the disk (blobs of files and link texts). */
async function changesFromDisk(dir: string, paths: string[]): Promise<PathChange[]> {
  const { lstatSync, readFileSync, readlinkSync } = await import("node:fs");
  const out: PathChange[] = [];
  for (const p of paths) {
    const abs = path.join(dir, p);
    let st;
    try {
      st = lstatSync(abs);
    } catch {
      out.push({ path: p, entry: null });
      continue;
    }
    const common = path.join(dir, ".git");
    if (st.isDirectory()) out.push({ path: p, entry: null });
    else if (st.isSymbolicLink()) out.push({ path: p, entry: { mode: "120000", oid: await writeObject(common, "blob", Buffer.from(readlinkSync(abs))) } });
    else out.push({ path: p, entry: { mode: st.mode & 0o100 ? "100755" : "100644", oid: await writeObject(common, "blob", readFileSync(abs)) } });
  }
  return out;
}

describe("in-process trees", () => {
  it("encode entries in git's order (a folder sorts as if its name ended with '/')", () => {
    const dir = repoWith({ "a.txt": "x\n" });
    const blob = g(dir, "rev-parse", "HEAD:a.txt").trim();
    const sub = g(dir, "rev-parse", "HEAD^{tree}").trim();
    const entries = [
      { mode: "100644", name: "a.b", oid: blob },
      { mode: "40000", name: "a", oid: sub },
      { mode: "100644", name: "a-", oid: blob },
      { mode: "100755", name: "Z", oid: blob },
    ];
    const input = "100644 blob " + blob + "\ta.b\n040000 tree " + sub + "\ta\n100644 blob " + blob + "\ta-\n100755 blob " + blob + "\tZ\n";
    const expected = execFileSync("git", ["mktree"], { cwd: dir, input, encoding: "utf8" }).trim();
    const body = encodeTree(entries);
    const oid = createHash("sha1")
      .update(Buffer.concat([Buffer.from(`tree ${body.length}\0`), body]))
      .digest("hex");
    expect(oid).toBe(expected);
  });

  it("record what git add -A records: edits, executable bit, links, deletions, emptied folders, file <-> folder", async () => {
    const dir = repoWith({
      "a.txt": "a\n",
      "d/one.txt": "1\n",
      "d/two.txt": "2\n",
      "gone/only.txt": "x\n",
      f: "file\n",
      "dir2/x.txt": "x\n",
      "keep/k.txt": "k\n",
    });
    const common = path.join(dir, ".git");
    const base = g(dir, "rev-parse", "HEAD^{tree}").trim();
    writeFileSync(path.join(dir, "a.txt"), "changed\n");
    chmodSync(path.join(dir, "d/one.txt"), 0o755);
    symlinkSync("../a.txt", path.join(dir, "d/link"));
    unlinkSync(path.join(dir, "d/two.txt"));
    rmSync(path.join(dir, "gone"), { recursive: true });
    unlinkSync(path.join(dir, "f"));
    mkdirSync(path.join(dir, "f"));
    writeFileSync(path.join(dir, "f/inner.txt"), "now a folder\n");
    rmSync(path.join(dir, "dir2"), { recursive: true });
    writeFileSync(path.join(dir, "dir2"), "now a file\n");
    mkdirSync(path.join(dir, "new/deep"), { recursive: true });
    writeFileSync(path.join(dir, "new/deep/n.txt"), "n\n");
    const paths = ["a.txt", "d/one.txt", "d/link", "d/two.txt", "gone/only.txt", "f", "f/inner.txt", "dir2/x.txt", "dir2", "new/deep/n.txt"];
    const ours = await writeTreeWith(common, base, await changesFromDisk(dir, paths));
    expect(ours).toBe(gitTreeOf(dir, paths));
    // Every object written is sound, and no temporary file is left behind.
    expect(g(dir, "fsck", "--full", "--no-dangling")).toBe("");
    for (const d of readdirSync(path.join(common, "objects"))) {
      if (/^[0-9a-f]{2}$/.test(d)) expect(readdirSync(path.join(common, "objects", d)).filter((f) => f.startsWith("tmp_"))).toEqual([]);
    }
  });

  it("deleting every file gives git's empty tree", async () => {
    const dir = repoWith({ "only.txt": "x\n" });
    const base = g(dir, "rev-parse", "HEAD^{tree}").trim();
    expect(await writeTreeWith(path.join(dir, ".git"), base, [{ path: "only.txt", entry: null }])).toBe("4b825dc642cb6eb9a060e54bf8d69288fbee4904");
  });
});

describe("in-process notes", () => {
  it("are read by git notes show and git log --notes, with the message given, in one notes commit", async () => {
    const dir = repoWith({ "a.txt": "a\n" });
    const common = path.join(dir, ".git");
    const head = g(dir, "rev-parse", "HEAD").trim();
    const n = await prepareNote(common, "refs/notes/trm/x", head, '{"step":1}', "trm: step 1 record", { name: "code-trm", email: "code-trm@localhost" });
    expect(n.expected).toBeNull();
    await updateRefs(dir, [n], "test");
    expect(g(dir, "notes", "--ref=trm/x", "show", head)).toBe('{"step":1}\n');
    expect(g(dir, "log", "--notes=trm/x", "--format=%N", "-1")).toContain('{"step":1}');
    expect(g(dir, "log", "--format=%s%x00%an", "refs/notes/trm/x").trim().split("\n")).toEqual(["trm: step 1 record\0code-trm"]);
    // Replaced, not doubled.
    await writeNote(dir, "refs/notes/trm/x", head, { step: 2 }, { commonDir: common, message: "trm: step 2 record" });
    expect(JSON.parse(g(dir, "notes", "--ref=trm/x", "show", head))).toEqual({ step: 2 });
    expect(g(dir, "notes", "--ref=trm/x", "list").trim().split("\n")).toHaveLength(1);
    expect(g(dir, "fsck", "--full", "--no-dangling")).toBe("");
  });

  it("keep a note git wrote meanwhile, and replace a note stored in a fanout folder where it lies", async () => {
    const dir = repoWith({ "a.txt": "a\n" });
    const common = path.join(dir, ".git");
    const c1 = g(dir, "rev-parse", "HEAD").trim();
    g(dir, "commit", "-q", "--allow-empty", "-m", "two");
    const c2 = g(dir, "rev-parse", "HEAD").trim();
    // A note in git's fanout layout (ab/cdef...), as git writes past many notes.
    const blob = await writeObject(common, "blob", Buffer.from("old\n"));
    const { writeTreeObject } = await import("../../../src/git/objects.js");
    const fan = await writeTreeObject(common, [{ mode: "100644", name: c1.slice(2), oid: blob }]);
    const top = await writeTreeObject(common, [{ mode: "40000", name: c1.slice(0, 2), oid: fan }]);
    const first = g(dir, "commit-tree", top, "-m", "fanout").trim();
    g(dir, "update-ref", "refs/notes/trm/y", first);
    expect(g(dir, "notes", "--ref=trm/y", "show", c1)).toBe("old\n");
    // Prepared on top of `first`; then git adds a note: the compare-and-swap refuses the stale write...
    const stale = await prepareNote(common, "refs/notes/trm/y", c2, '"mine"', "m", { name: "n", email: "e" });
    g(dir, "notes", "--ref=trm/y", "add", "-m", "by git", c2);
    await expect(updateRefs(dir, [stale], "test")).rejects.toThrow(/moved outside/);
    // ...and writeNote re-bases on it.
    await writeNote(dir, "refs/notes/trm/y", c1, "new", { commonDir: common, message: "trm: relabel" });
    expect(g(dir, "notes", "--ref=trm/y", "show", c2)).toBe("by git\n");
    expect(JSON.parse(g(dir, "notes", "--ref=trm/y", "show", c1))).toBe("new");
    expect(g(dir, "notes", "--ref=trm/y", "list").trim().split("\n")).toHaveLength(2);
    expect(g(dir, "fsck", "--full", "--no-dangling")).toBe("");
  });
});

describe("objects written side by side", () => {
  it("every tree on the changed paths and every object of a note is on disk when their ids are answered, a removed fan-out folder included", async () => {
    const dir = repoWith({ "a/b/c/d.txt": "d\n", "e.txt": "e\n" });
    const objects = path.join(dir, ".git", "objects");
    const base = g(dir, "rev-parse", "HEAD^{tree}").trim();
    // git prune removes empty fan-out folders: the write must make the folder again. A content whose folder no
    // other object of the repository uses (the commit's id changes with the clock: removing a shared folder took
    // the commit with it, and the test failed one run in about forty).
    const blobOf = (c: Buffer) => createHash("sha1").update(`blob ${c.length}\0`).update(c).digest("hex");
    let k = 0;
    while (existsSync(path.join(objects, blobOf(Buffer.from(`new content of d ${k}\n`)).slice(0, 2)))) k++;
    const content = Buffer.from(`new content of d ${k}\n`);
    const blob = blobOf(content);
    expect(existsSync(path.join(objects, blob.slice(0, 2)))).toBe(false);
    await writeObject(path.join(dir, ".git"), "blob", content);
    const tree = await writeTreeWith(path.join(dir, ".git"), base, [
      { path: "a/b/c/d.txt", entry: { mode: "100644", oid: blob } },
      { path: "a/x/y.txt", entry: { mode: "100644", oid: blob } },
    ]);
    expect(g(dir, "ls-tree", "-r", tree)).toContain(`${blob}\ta/x/y.txt`);
    for (const sub of ["a", "a/b", "a/b/c", "a/x"]) expect(g(dir, "cat-file", "-t", `${tree}:${sub}`).trim()).toBe("tree");
    const head = g(dir, "rev-parse", "HEAD").trim();
    const n = await prepareNote(path.join(dir, ".git"), "trm/t", head, "{}", "trm: test note", { name: "t", email: "t@t" });
    expect(g(dir, "cat-file", "-t", n.next).trim()).toBe("commit");
    expect(g(dir, "cat-file", "-p", `${n.next}:${head}`)).toBe("{}\n");
    expect(g(dir, "fsck", "--full", "--no-dangling", "--no-progress")).toBe("");
  });
});

describe("a checkpoint's tag written in-process", () => {
  it("holds what git tag -a -F - writes (message cleaned alike), and peels back to its commit", async () => {
    const dir = repoWith({ "a.txt": "a\n" });
    const head = g(dir, "rev-parse", "HEAD").trim();
    const msg = "\n\n  first line  \n# a comment line\n\n\n\nsecond\t\n\nTRM-Step: 3\n\n";
    execFileSync("git", ["tag", "-a", "-F", "-", "by-git", head], {
      cwd: dir,
      input: msg,
      env: { ...process.env, GIT_COMMITTER_NAME: "code-trm", GIT_COMMITTER_EMAIL: "code-trm@localhost" },
    });
    const ours = await writeTagFast(path.join(dir, ".git"), head, "by-git", msg);
    const body = (oid: string) => g(dir, "cat-file", "tag", oid).replace(/^(tagger .*>) \d+ [+-]\d{4}$/m, "$1");
    expect(body(ours)).toBe(body(g(dir, "rev-parse", "by-git").trim()));
    expect(g(dir, "cat-file", "tag", ours)).toMatch(/^tagger code-trm <code-trm@localhost> \d+ [+-]\d{4}$/m);
    expect(await peelToCommitFast(path.join(dir, ".git"), ours)).toBe(head);
    expect(await peelToCommitFast(path.join(dir, ".git"), head)).toBe(head);
    await expect(peelToCommitFast(path.join(dir, ".git"), g(dir, "rev-parse", "HEAD^{tree}").trim())).rejects.toThrow(/does not lead to a commit/);
    expect(g(dir, "fsck", "--full", "--no-dangling", "--no-progress")).toBe("");
  });
});
