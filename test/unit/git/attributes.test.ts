import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Attributes, attributesOf, bytesKept, closeAttributes } from "../../../src/git/attributes.js";
import { writeCandidateTree } from "../../../src/session/candidate-tree.js";
import type { SessionConfig } from "../../../src/session/config.js";
import { WorktreePool } from "../../../src/session/worktree-pool.js";
import { processesIn } from "../../helpers/processes.js";
import { g, gitTreeOf, removeTmpDirs, repoFromFiles, tmpDir } from "../../helpers/repo.js";

const opened: string[] = [];
afterAll(() => {
  for (const wt of opened) closeAttributes(wt);
  removeTmpDirs();
});

const none: Attributes = {
  text: "unspecified",
  eol: "unspecified",
  crlf: "unspecified",
  ident: "unspecified",
  filter: "unspecified",
  "working-tree-encoding": "unspecified",
};
const LF = Buffer.from("a\nb\n");
const CRLF = Buffer.from("a\r\nb\r\n");

describe("bytesKept: whether git stores and checks out a file's bytes as they are", () => {
  it("keeps them without attributes, for -text and binary, and for text without a CR", () => {
    expect(bytesKept(none, CRLF, "both")).toBe(true);
    expect(bytesKept({ ...none, text: "unset" }, CRLF, "both")).toBe(true);
    expect(bytesKept({ ...none, crlf: "unset" }, CRLF, "both")).toBe(true);
    for (const a of [{ text: "auto", eol: "lf" }, { text: "set" }, { eol: "lf" }, { crlf: "input" }, { crlf: "set" }]) {
      expect(bytesKept({ ...none, ...a }, LF, "both"), JSON.stringify(a)).toBe(true);
      // git normalizes CRLF on the way in.
      expect(bytesKept({ ...none, ...a }, CRLF, "in"), JSON.stringify(a)).toBe(false);
      expect(bytesKept({ ...none, ...a }, CRLF, "out"), JSON.stringify(a)).toBe(true);
    }
  });
  it("leaves to git whatever converts, and whatever it does not know", () => {
    for (const a of [
      { eol: "crlf" },
      { filter: "lfs" },
      { ident: "set" },
      { "working-tree-encoding": "UTF-16" },
      { text: "weird" },
      { eol: "cr" },
      { crlf: "odd" },
    ]) {
      expect(bytesKept({ ...none, ...a }, LF, "both"), JSON.stringify(a)).toBe(false);
    }
  });
});

/** A linked worktree of a repository whose files are `files` (committed), plus its HEAD tree. */
function worktreeWith(files: Record<string, string>) {
  const repo = repoFromFiles(files, "trm-attr-");
  const wt = path.join(tmpDir("trm-attr-wt-"), "wt");
  g(repo, "worktree", "add", "-q", "--detach", wt, "HEAD");
  opened.push(wt);
  return { repo, wt, commonDir: path.join(repo, ".git"), base: g(repo, "rev-parse", "HEAD^{tree}").trim() };
}

describe("a step's tree under .gitattributes (candidate-tree.ts, git/attributes.ts)", () => {
  it("is written in-process where git keeps the bytes, by git where it changes them, and is git's tree either way", async () => {
    const { wt, commonDir, base } = worktreeWith({
      ".gitattributes": "* text=auto eol=lf\n*.crlf eol=crlf\n*.id ident\n*.lfs filter=lfs\n*.bin binary\n*.u merge=union\n",
      "keep.js": "old\n",
    });
    const cases: [string, string, boolean][] = [
      ["keep.js", "new\n", true],
      ["crlf.js", "a\r\nb\r\n", false],
      ["x.crlf", "a\n", false],
      ["x.id", "$Id: abc $\n", false],
      ["x.lfs", "big\n", false],
      ["x.bin", "a\r\n\0", true],
      ["x.u", "merged\n", true],
      ["sub/deep/new.ts", "export {};\n", true],
    ];
    let k = 0;
    for (const [file, content, inProcess] of cases) {
      const s = { id: `attr-${k++}`, config: { commonDir } };
      mkdirSync(path.dirname(path.join(wt, file)), { recursive: true });
      writeFileSync(path.join(wt, file), content);
      const r = await writeCandidateTree(s, wt, base, [file]);
      await r.written;
      expect(r.indexStale, file).toBe(inProcess);
      expect(r.tree, file).toBe(gitTreeOf(wt, [file]));
      g(wt, "reset", "-q", "--hard", "HEAD");
      g(wt, "clean", "-fdq");
    }
  });

  it("sees a .gitattributes created or changed in a subfolder it had read before", async () => {
    const { wt, commonDir, base } = worktreeWith({ "sub/deep/a.txt": "a\n", "sub/.gitattributes": "*.md text\n" });
    const s = { id: "attr-nested", config: { commonDir } };
    expect((await attributesOf(wt, commonDir, ["sub/deep/a.txt"]))!.get("sub/deep/a.txt")).toEqual(none);
    for (const [file, text] of [
      ["sub/deep/.gitattributes", "* text\n"],
      ["sub/.gitattributes", "*.txt text\n"],
    ] as const) {
      writeFileSync(path.join(wt, file), text);
      writeFileSync(path.join(wt, "sub/deep/a.txt"), "a\r\n");
      const r = await writeCandidateTree(s, wt, base, ["sub/deep/a.txt"]);
      await r.written;
      expect(r.indexStale, file).toBe(false);
      expect(r.tree, file).toBe(gitTreeOf(wt, ["sub/deep/a.txt"]));
      g(wt, "checkout", "-q", "--", "sub");
      rmSync(path.join(wt, "sub/deep/.gitattributes"), { force: true });
    }
  });

  it("sees a .gitattributes a command left in the worktree: the process that read the folder before is ended", async () => {
    const { wt, commonDir, base } = worktreeWith({ "a.txt": "a\n" });
    const s = { id: "attr-untracked", config: { commonDir } };
    // A first question: the process reads that no folder has attributes.
    expect(await attributesOf(wt, commonDir, ["a.txt"])).toEqual(new Map([["a.txt", none]]));
    // What a command might leave (untracked, yet read by git add): the folder's stamp changed.
    writeFileSync(path.join(wt, ".gitattributes"), "* text\n");
    writeFileSync(path.join(wt, "a.txt"), "a\r\n");
    const r = await writeCandidateTree(s, wt, base, ["a.txt"]);
    await r.written;
    expect(r.indexStale).toBe(false);
    expect(r.tree).toBe(gitTreeOf(wt, ["a.txt"]));
    expect(g(wt, "cat-file", "-p", `${r.tree}:a.txt`)).toBe("a\n");
  });

  it("reads the attributes afresh in a pool worktree that git brought to a tip with another .gitattributes", async () => {
    // A pool slot whose candidate ran no command (a cached evaluation, a duplicate in the batch, a
    // candidate that changes nothing) keeps its attribute process; the next take resets it with git.
    const { repo, commonDir } = worktreeWith({ "a.txt": "a\n" });
    const tip1 = g(repo, "rev-parse", "HEAD").trim();
    writeFileSync(path.join(repo, ".gitattributes"), "* text eol=lf\n");
    g(repo, "add", ".gitattributes");
    g(repo, "commit", "-q", "-m", "attributes");
    const tip2 = g(repo, "rev-parse", "HEAD").trim();
    const config = { id: "attrpool", repoTop: repo, commonDir, linkPaths: [], commands: {}, timeoutSec: 60 } as unknown as SessionConfig;
    const pool = new WorktreePool(config);
    const s = { id: "attrpool", config: { commonDir } };
    const { wt, rewritten } = await pool.take(1, tip1, {} as never);
    expect(rewritten).toBe(false);
    opened.push(wt);
    writeFileSync(path.join(wt, "a.txt"), "b\n");
    const first = await writeCandidateTree(s, wt, g(repo, "rev-parse", `${tip1}^{tree}`).trim(), ["a.txt"]);
    await first.written;
    expect(first.indexStale).toBe(true);
    // a.txt was written behind the index (indexStale), as commands would have: the slot says so.
    expect(await pool.take(1, tip2, {} as never)).toEqual({ wt, rewritten: true });
    writeFileSync(path.join(wt, "a.txt"), "a\r\n");
    const r = await writeCandidateTree(s, wt, g(repo, "rev-parse", `${tip2}^{tree}`).trim(), ["a.txt"]);
    await r.written;
    expect(r.tree).toBe(gitTreeOf(wt, ["a.txt"]));
  });
});

describe("answers kept by the attribute process", () => {
  /** Reads git check-attr has made so far (its stdin questions among them), from /proc. */
  const readsOf = (wt: string) => {
    const pid = processesIn(wt, "check-attr")[0];
    return pid ? Number(/syscr: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, "utf8"))![1]) : null;
  };

  it.runIf(process.platform === "linux")("answers a path asked before without asking git again, and asks again once an attribute file changed", async () => {
    const { wt, commonDir } = worktreeWith({ "sub/a.txt": "a\n", "b.txt": "b\n" });
    expect((await attributesOf(wt, commonDir, ["sub/a.txt"]))!.get("sub/a.txt")).toEqual(none);
    const before = readsOf(wt);
    expect(before).not.toBeNull();
    expect((await attributesOf(wt, commonDir, ["sub/a.txt", "sub/a.txt"]))!.get("sub/a.txt")).toEqual(none);
    expect(readsOf(wt)).toBe(before);
    // A new path is asked of git; the one known is not asked again with it.
    expect([...(await attributesOf(wt, commonDir, ["sub/a.txt", "b.txt"]))!.keys()]).toEqual(["sub/a.txt", "b.txt"]);
    expect(readsOf(wt)).toBeGreaterThan(before!);
    writeFileSync(path.join(wt, "sub", ".gitattributes"), "*.txt text eol=lf\n");
    expect((await attributesOf(wt, commonDir, ["sub/a.txt"]))!.get("sub/a.txt")).toEqual({ ...none, text: "set", eol: "lf" });
  });
});

describe("an attribute process that does not answer", () => {
  it("is ended, not left behind, once its question times out (a FIFO named .gitattributes blocks git's open)", async () => {
    const { wt, commonDir } = worktreeWith({ "sub/a.txt": "a\n" });
    execFileSync("mkfifo", [path.join(wt, "sub", ".gitattributes")]);
    const inWt = () => processesIn(wt);
    expect(await attributesOf(wt, commonDir, ["sub/a.txt"])).toBeNull();
    // Killed at once; reaped as soon as the kernel gets to it (polled, so a loaded machine does not fail this).
    for (let i = 0; i < 100 && inWt().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(inWt()).toEqual([]);
    rmSync(path.join(wt, "sub", ".gitattributes"));
  }, 20_000);
});
