import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, tmpDir } from "../helpers/repo.js";

describe("code-trm demo", () => {
  it("says where its repository is while it runs, and removes it afterwards", () => {
    const tmp = tmpDir("trm-demo-tmp-");
    const home = tmpDir("trm-demo-home-");
    const r = spawnSync(process.execPath, [path.join(ROOT, "dist", "cli", "main.js"), "demo"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: home, TMPDIR: tmp, CODE_TRM_STATE_DIR: home, GIT_CONFIG_NOSYSTEM: "1" },
      timeout: 240_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const repo = /^demo repository \(a temporary copy, removed when the demo ends; look at it with git while it runs\): (\S+)$/m.exec(r.stdout)?.[1];
    expect(repo?.startsWith(`${tmp}/trm-demo-`)).toBe(true);
    expect(r.stdout).toMatch(/your checkout: unchanged/);
    expect(r.stdout).toContain(`demo repository removed: ${path.dirname(repo!)}`);
    expect(readdirSync(tmp)).toEqual([]);
  }, 300_000);
});
