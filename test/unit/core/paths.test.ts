import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { normalizeRelPath, resolveInside } from "../../../src/util/paths.js";

describe("normalizeRelPath", () => {
  it("normalises harmless variations", () => {
    expect(normalizeRelPath("./src//a.ts")).toBe("src/a.ts");
  });
  it.each([["../x"], ["a/../../x"], ["/etc/passwd"], ["C:/x"], [".git/config"], ["sub/.GIT/hooks/pre-commit"], [""], ["a\\b"], ["."]])("refuses %j", (p) => {
    expect(() => normalizeRelPath(p)).toThrow();
  });
});

describe("resolveInside", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "trm-paths-"));
  const outside = mkdtempSync(path.join(os.tmpdir(), "trm-outside-"));
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
  it("refuses symlinks that leave the root, for existing and new files", async () => {
    await expect(resolveInside(root, "escape/secret")).rejects.toThrow(/symlink/);
    await expect(resolveInside(root, "escape/new.txt")).rejects.toThrow(/symlink/);
  });
});
