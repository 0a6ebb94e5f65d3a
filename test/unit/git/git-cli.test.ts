import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { git, gitBytes, openRepo } from "../../../src/git/cli.js";
import { makeRepo } from "../../helpers/repo.js";

describe("git entry point", () => {
  it("works with the environment real users have (EDITOR, PAGER, ssh and askpass programs set)", async () => {
    const repo = makeRepo("js-stats");
    const saved = { ...process.env };
    Object.assign(process.env, {
      EDITOR: "vim",
      VISUAL: "code -w",
      PAGER: "less",
      GIT_PAGER: "delta",
      GIT_SSH_COMMAND: "ssh -i key",
      SSH_ASKPASS: "/usr/bin/ask",
      GIT_CONFIG_GLOBAL: "/dev/null",
    });
    try {
      const r = await openRepo(repo);
      expect(r.top).toBe(repo);
      expect((await git(repo, ["rev-parse", "HEAD"])).trim()).toMatch(/^[0-9a-f]{40}$/);
    } finally {
      process.env = saved;
    }
  });

  it("reads a blob byte for byte, final newline included", async () => {
    const repo = makeRepo("js-stats");
    expect(await gitBytes(repo, ["cat-file", "blob", "HEAD:src/stats.js"])).toEqual(readFileSync(`${repo}/src/stats.js`));
  });

  it("finds the repository from a subdirectory", async () => {
    const repo = makeRepo("js-stats");
    const r = await openRepo(`${repo}/src`);
    expect(r).toEqual({ top: repo, commonDir: `${repo}/.git`, gitDir: `${repo}/.git` });
  });

  it("ignores GIT_DIR / GIT_INDEX_FILE inherited from a hook", async () => {
    const repo = makeRepo("js-stats");
    const other = makeRepo("ts-shapes");
    process.env.GIT_DIR = `${other}/.git`;
    try {
      expect((await openRepo(repo)).top).toBe(repo);
    } finally {
      delete process.env.GIT_DIR;
    }
  });
});
