import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { diffPaths } from "../../../src/git/objects.js";
import { syncIndexChecked } from "../../../src/session/candidate-tree.js";
import { planTreeMove } from "../../../src/session/tree-move.js";
import { commitAll, entriesBelow, g, ROOT, removeTmpDirs, tmpDir } from "../../helpers/repo.js";

afterAll(removeTmpDirs);

/** A repository and two linked worktrees of it at `start`: one moved in-process, one by git's checkout. */
function setUp(repo: string, start: string) {
  const wt = path.join(tmpDir("trm-move-wt-"), "wt");
  const ref = path.join(tmpDir("trm-move-ref-"), "ref");
  g(repo, "worktree", "add", "-q", "--detach", wt, start);
  g(repo, "worktree", "add", "-q", "--detach", ref, start);
  const tree = (c: string) => g(repo, "rev-parse", `${c}^{tree}`).trim();
  const s = {
    id: `t${Math.random()}`,
    worktree: wt,
    tip: start,
    tipTree: tree(start),
    worktreeAt: start as string | null,
    config: { commonDir: path.join(repo, ".git") },
  };
  /** Moves both worktrees to `to` and returns whether the in-process move was taken. */
  const move = async (to: string): Promise<boolean> => {
    const toTree = tree(to);
    const changed = await diffPaths(s.config.commonDir, s.tipTree, toTree);
    const plan = await planTreeMove(s, s.tipTree, toTree, changed);
    // The session's ref transaction moves HEAD first (history.ts moveTo).
    g(wt, "update-ref", "--no-deref", "HEAD", to);
    if (plan) {
      plan.apply();
      // Nothing to stage when the trees are equal (history.ts moveTo does the same).
      if (plan.sync.changes.length > 0) expect(await syncIndexChecked(wt, plan.sync, false)).toBe(true);
    } else g(wt, "reset", "--hard", "-q", to);
    g(ref, "checkout", "-q", "--detach", to);
    Object.assign(s, { tip: to, tipTree: toTree, worktreeAt: to });
    return plan !== null;
  };
  return { wt, ref, s, move };
}

describe("moving a worktree between recorded trees in-process (tree-move.ts)", () => {
  it("leaves exactly what git's checkout leaves, over 77 real trees of tj/n both ways (fixtures/real-trees)", async () => {
    const repo = path.join(tmpDir("trm-move-"), "n");
    g(path.dirname(repo), "clone", "-q", "--branch", "corpus", path.join(ROOT, "fixtures", "real-trees", "tj-n.bundle"), repo);
    const commits = g(repo, "rev-list", "--reverse", "corpus").trim().split("\n");
    expect(commits).toHaveLength(77);
    const { wt, ref, move } = setUp(repo, commits[0]!);
    const route = [...commits.slice(1), ...commits.slice(0, -1).reverse(), commits[76]!, commits[10]!, commits[50]!, commits[0]!];
    let inProcess = 0;
    for (const to of route) {
      if (await move(to)) inProcess++;
      expect(g(wt, "status", "--porcelain", "--untracked-files=all")).toBe("");
      expect(entriesBelow(wt)).toEqual(entriesBelow(ref));
      expect(g(wt, "rev-parse", "HEAD").trim()).toBe(to);
    }
    expect(inProcess).toBe(route.length);
    // The index is what git's checkout writes, entry for entry (modes and ids; not stat data).
    expect(g(wt, "ls-files", "-s")).toBe(g(ref, "ls-files", "-s"));
  }, 120_000);

  it("writes links, executables and nested new folders, and removes emptied folders, as git does", async () => {
    const repo = tmpDir("trm-move-links-");
    g(repo, "init", "-q", "-b", "main");
    mkdirSync(path.join(repo, "bin"));
    writeFileSync(path.join(repo, "bin/run"), "#!/bin/sh\necho a\n", { mode: 0o755 });
    writeFileSync(path.join(repo, "a.txt"), "a\n");
    symlinkSync("a.txt", path.join(repo, "link"));
    symlinkSync("../outside", path.join(repo, "up"));
    const one = commitAll(repo, "one");
    // Two: the link becomes a file, a file becomes a link, the executable goes, a nested file arrives.
    unlinkSync(path.join(repo, "link"));
    writeFileSync(path.join(repo, "link"), "now a file\n");
    unlinkSync(path.join(repo, "a.txt"));
    symlinkSync("link", path.join(repo, "a.txt"));
    unlinkSync(path.join(repo, "bin/run"));
    mkdirSync(path.join(repo, "deep/er"), { recursive: true });
    writeFileSync(path.join(repo, "deep/er/new.sh"), "#!/bin/sh\n", { mode: 0o755 });
    const two = commitAll(repo, "two");
    const { wt, ref, move } = setUp(repo, one);
    for (const to of [two, one, two]) {
      expect(await move(to)).toBe(true);
      expect(entriesBelow(wt)).toEqual(entriesBelow(ref));
      expect(g(wt, "status", "--porcelain", "--untracked-files=all")).toBe("");
    }
    expect(lstatSync(path.join(wt, "a.txt")).isSymbolicLink()).toBe(true);
    expect(() => lstatSync(path.join(wt, "bin"))).toThrow();
  });

  it("leaves the move to git when the worktree is not exactly the tip, or a link or a folder is in the way", async () => {
    const repo = tmpDir("trm-move-odd-");
    g(repo, "init", "-q", "-b", "main");
    mkdirSync(path.join(repo, "d"));
    writeFileSync(path.join(repo, "d/x.txt"), "x\n");
    writeFileSync(path.join(repo, "f.txt"), "f\n");
    const one = commitAll(repo, "one");
    g(repo, "rm", "-q", "-r", "d");
    writeFileSync(path.join(repo, "f.txt"), "g\n");
    g(repo, "commit", "-q", "-am", "two");
    const two = g(repo, "rev-parse", "HEAD").trim();
    const outside = tmpDir("trm-move-outside-");
    const { wt, ref, s, move } = setUp(repo, two);
    // A link where the folder to re-create goes: never written through.
    symlinkSync(outside, path.join(wt, "d"));
    expect(await move(one)).toBe(false);
    expect(readdirSync(outside)).toEqual([]);
    expect(entriesBelow(wt)).toEqual(entriesBelow(ref));
    // A hand edit of a file the move would write.
    writeFileSync(path.join(wt, "f.txt"), "edited by hand\n");
    expect(await move(two)).toBe(false);
    expect(entriesBelow(wt)).toEqual(entriesBelow(ref));
    // Not known to be at the tip (a command ran since the last check).
    s.worktreeAt = null;
    expect(await move(one)).toBe(false);
    expect(entriesBelow(wt)).toEqual(entriesBelow(ref));
  });
});

describe("attacks on the in-process move (tree-move.ts)", () => {
  it("never writes in-process where a .gitattributes arrived through a move git made (more than MAX_PATHS paths)", async () => {
    const repo = tmpDir("trm-move-attrs-");
    g(repo, "init", "-q", "-b", "main");
    writeFileSync(path.join(repo, "a.txt"), "a\n");
    const c0 = commitAll(repo, "c0");
    writeFileSync(path.join(repo, "a.txt"), "z\n");
    g(repo, "commit", "-q", "-am", "c0b");
    const c0b = g(repo, "rev-parse", "HEAD").trim();
    writeFileSync(path.join(repo, ".gitattributes"), "*.txt eol=crlf\n");
    mkdirSync(path.join(repo, "many"));
    for (let i = 0; i < 300; i++) writeFileSync(path.join(repo, `many/f${i}.txt`), `${i}\n`);
    writeFileSync(path.join(repo, "a.txt"), "b\n");
    const c1 = commitAll(repo, "c1");
    // A new file: nothing of the tip's to compare with, so the check of the tip's files cannot notice.
    writeFileSync(path.join(repo, "new.txt"), "c\n");
    const c2 = commitAll(repo, "c2");
    const { wt, ref, move } = setUp(repo, c0);
    // The session's eligibility is read while no .gitattributes is tracked.
    expect(await move(c0b)).toBe(true);
    // More than MAX_PATHS paths: git makes this move, .gitattributes among them.
    expect(await move(c1)).toBe(false);
    expect(entriesBelow(wt)).toEqual(entriesBelow(ref));
    await move(c2);
    expect(readFileSync(path.join(ref, "new.txt"), "utf8")).toBe("c\r\n");
    expect(entriesBelow(wt)).toEqual(entriesBelow(ref));
  });

  for (const [how, value] of [
    ["yes", "yes"],
    ["a key without a value", null],
  ] as const) {
    it(`leaves the move to git under core.autocrlf set true as ${how}`, async () => {
      const repo = tmpDir("trm-move-crlf-");
      g(repo, "init", "-q", "-b", "main");
      writeFileSync(path.join(repo, "a.txt"), "a\n");
      const c0 = commitAll(repo, "c0");
      writeFileSync(path.join(repo, "new.txt"), "line one\nline two\n");
      const c1 = commitAll(repo, "c1");
      if (value) g(repo, "config", "core.autocrlf", value);
      else writeFileSync(path.join(repo, ".git", "config"), readFileSync(path.join(repo, ".git", "config"), "utf8") + "[core]\n\tautocrlf\n");
      expect(g(repo, "config", "--bool", "core.autocrlf").trim()).toBe("true");
      const { wt, ref, move } = setUp(repo, c0);
      await move(c1);
      expect(readFileSync(path.join(ref, "new.txt"), "utf8")).toBe("line one\r\nline two\r\n");
      expect(entriesBelow(wt)).toEqual(entriesBelow(ref));
    });
  }
});
