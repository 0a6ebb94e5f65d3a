import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { addWorktree } from "../../../src/git/worktrees.js";
import { g, tmpDir } from "../../helpers/repo.js";

describe("addWorktree", () => {
  // git 2.39 alone: 8 concurrent `git worktree add` in one repository, 5 rounds, failed 5 times of 40
  // with "failed to read .git/worktrees/<other>/commondir: Success" (a sibling entry half made).
  it("survives many worktrees being added to one repository at once", async () => {
    const dir = tmpDir("trm-wt-race-");
    const repo = path.join(dir, "r");
    g(dir, "init", "-q", repo);
    g(repo, "commit", "-q", "--allow-empty", "-m", "x");
    const head = g(repo, "rev-parse", "HEAD").trim();
    for (let round = 0; round < 5; round++) {
      const paths = Array.from({ length: 8 }, (_, i) => path.join(repo, ".git", "trm", "worktrees", `w${round}-${i}`));
      await Promise.all(paths.map((p, i) => addWorktree(repo, p, head, `s${i}`)));
      for (const p of paths) expect(existsSync(path.join(p, ".git"))).toBe(true);
    }
    expect(g(repo, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(41);
  });
});
