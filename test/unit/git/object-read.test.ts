import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createDeflate, deflateSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { readObjectRaw } from "../../../src/git/object-read.js";
import { decodeTree, readBlobBytes } from "../../../src/git/objects.js";
import { peelToCommitFast, treeOfCommitFast } from "../../../src/git/session-git.js";
import { g, ROOT, removeTmpDirs, tmpDir } from "../../helpers/repo.js";

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

describe("objects read by id: large, damaged and crafted objects", () => {
  it("reads a large packed blob whole, from over a thousand chunks of git's answer", async () => {
    const repo = tmpDir("trm-read-big-");
    g(repo, "init", "-q", "-b", "main");
    const big = Buffer.alloc(64 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big.writeUInt32LE((i * 2654435761) >>> 0, i);
    writeFileSync(path.join(repo, "big.bin"), big);
    g(repo, "add", "-A");
    g(repo, "commit", "-q", "-m", "big");
    g(repo, "gc", "-q");
    const oid = g(repo, "rev-parse", "HEAD:big.bin").trim();
    // Over a thousand chunks of git's answer, joined once (a copy of the whole per chunk took 25 s, measured).
    expect((await readBlobBytes(path.join(repo, ".git"), oid)).equals(big)).toBe(true);
  }, 60_000);

  it("does not read an object over 256 MiB into the server: a 300 MiB blob stored as a 300 KiB loose object is refused", async () => {
    const repo = tmpDir("trm-read-bomb-");
    g(repo, "init", "-q", "-b", "main");
    const size = 300 * 1024 * 1024;
    const zeros = Buffer.alloc(4 * 1024 * 1024);
    const hash = createHash("sha1").update(`blob ${size}\0`);
    const deflate = createDeflate();
    const out: Buffer[] = [];
    deflate.on("data", (d: Buffer) => out.push(d));
    const done = new Promise((r) => deflate.on("end", r));
    deflate.write(`blob ${size}\0`);
    for (let n = 0; n < size; n += zeros.length) {
      hash.update(zeros);
      deflate.write(zeros);
    }
    deflate.end();
    await done;
    const oid = hash.digest("hex");
    mkdirSync(path.join(repo, ".git", "objects", oid.slice(0, 2)), { recursive: true });
    writeFileSync(path.join(repo, ".git", "objects", oid.slice(0, 2), oid.slice(2)), Buffer.concat(out));
    expect(Buffer.concat(out).length).toBeLessThan(1024 * 1024);
    await expect(readObjectRaw(path.join(repo, ".git"), oid)).rejects.toThrow(/larger than/);
  }, 60_000);

  it("refuses a loose object whose header git refuses (a size with a leading zero)", async () => {
    const repo = tmpDir("trm-read-hdr-");
    g(repo, "init", "-q", "-b", "main");
    const body = Buffer.from("blob 05\0hello");
    const oid = createHash("sha1").update(body).digest("hex");
    mkdirSync(path.join(repo, ".git", "objects", oid.slice(0, 2)), { recursive: true });
    writeFileSync(path.join(repo, ".git", "objects", oid.slice(0, 2), oid.slice(2)), deflateSync(body));
    expect(() => g(repo, "cat-file", "-p", oid)).toThrow();
    await expect(readObjectRaw(path.join(repo, ".git"), oid)).rejects.toThrow(/no object/);
  });
});

describe("objects read by id: a cat-file that died", () => {
  it("answers the next read from a new git when the process was killed between questions", async () => {
    const repo = tmpDir("trm-read-kill-");
    g(repo, "init", "-q", "-b", "main");
    writeFileSync(path.join(repo, "a.txt"), "a\n");
    g(repo, "add", "-A");
    g(repo, "commit", "-q", "-m", "one");
    g(repo, "gc", "-q");
    const commonDir = path.join(repo, ".git");
    const head = g(repo, "rev-parse", "HEAD").trim();
    expect((await readObjectRaw(commonDir, head)).type).toBe("commit");
    // This process's own cat-file for this repository (a command of the session may kill it).
    const mine = readdirSync("/proc").filter((p) => {
      try {
        const stat = readFileSync(`/proc/${p}/stat`, "utf8");
        return (
          Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === process.pid &&
          readFileSync(`/proc/${p}/cmdline`, "utf8").includes("cat-file") &&
          readlinkSync(`/proc/${p}/cwd`) === commonDir
        );
      } catch {
        return false;
      }
    });
    expect(mine).toHaveLength(1);
    process.kill(Number(mine[0]), "SIGKILL");
    expect((await readObjectRaw(commonDir, head)).type).toBe("commit");
  });
});
