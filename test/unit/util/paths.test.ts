import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyPlan } from "../../../src/candidate/write.js";
import { normalizeRelPath, resolveInside } from "../../../src/util/paths.js";
import { tmpDir } from "../../helpers/repo.js";

describe("normalizeRelPath", () => {
  it("normalises harmless variations", () => {
    expect(normalizeRelPath("./src//a.ts")).toBe("src/a.ts");
  });
  it.each([["../x"], ["a/../../x"], ["/etc/passwd"], ["C:/x"], [".git/config"], ["sub/.GIT/hooks/pre-commit"], [""], ["a\\b"], ["."]])("refuses %j", (p) => {
    expect(() => normalizeRelPath(p)).toThrow();
  });
});

describe("resolveInside", () => {
  const root = tmpDir("trm-paths-");
  const outside = tmpDir("trm-outside-");
  mkdirSync(path.join(root, "src"));
  writeFileSync(path.join(outside, "secret"), "x");
  symlinkSync(outside, path.join(root, "escape"));
  symlinkSync(path.join(root, "src"), path.join(root, "inner"));

  it("accepts paths inside, also new ones", async () => {
    await expect(resolveInside(root, "src/new/file.ts")).resolves.toMatchObject({ rel: "src/new/file.ts" });
  });
  it("follows symlinks that stay inside", async () => {
    await expect(resolveInside(root, "inner/a.ts")).resolves.toMatchObject({ rel: "inner/a.ts" });
  });
  it("refuses dangling symlinks whose target would be outside, absolute or relative", async () => {
    symlinkSync(path.join(outside, "not-yet.txt"), path.join(root, "dangling-abs"));
    symlinkSync("../../../../../../../../escaped-by-link.txt", path.join(root, "src", "dangling-rel"));
    await expect(resolveInside(root, "dangling-abs")).rejects.toThrow(/symlink/);
    await expect(resolveInside(root, "src/dangling-rel")).rejects.toThrow(/symlink/);
  });

  it("writes through a dangling link that stays inside, and rollback removes the target it created", async () => {
    symlinkSync("made-by-write.txt", path.join(root, "src", "to-be"));
    const applied = await applyPlan(root, [{ op: "write", path: "src/to-be", content: Buffer.from("x"), create: false }]);
    expect(readFileSync(path.join(root, "src", "made-by-write.txt"), "utf8")).toBe("x");
    await applied.rollback();
    expect(existsSync(path.join(root, "src", "made-by-write.txt"))).toBe(false);
    expect(lstatSync(path.join(root, "src", "to-be")).isSymbolicLink()).toBe(true);
  });

  it("never writes outside through a dangling link, even when planning was skipped", async () => {
    symlinkSync(path.join(outside, "pwned.txt"), path.join(root, "trap"));
    await expect(applyPlan(root, [{ op: "write", path: "trap", content: Buffer.from("pwned"), create: false }])).rejects.toThrow(/symlink/);
    expect(existsSync(path.join(outside, "pwned.txt"))).toBe(false);
  });

  it("refuses symlinks that leave the root, for existing and new files", async () => {
    await expect(resolveInside(root, "escape/secret")).rejects.toThrow(/symlink/);
    await expect(resolveInside(root, "escape/new.txt")).rejects.toThrow(/symlink/);
  });
});
