import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import setup from "../helpers/tmp-guard.js";

describe("the temporary-folder guard of npm test", () => {
  it("fails the run when a test leaves something in the suite's TMPDIR, and passes when nothing is left", () => {
    const saved = { exitCode: process.exitCode, tmp: process.env.TMPDIR };
    const quiet = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      let teardown = setup();
      const root = process.env.TMPDIR!;
      expect(root).not.toBe(saved.tmp);
      process.exitCode = 0;
      teardown();
      expect(process.exitCode).toBe(0);
      expect(existsSync(root)).toBe(false);

      teardown = setup();
      const left = path.join(process.env.TMPDIR!, "trm-left-behind");
      mkdirSync(left);
      teardown();
      expect(process.exitCode).toBe(1);
      expect(quiet.mock.calls.flat().join("\n")).toMatch(/left 1 entries in the temporary folder: trm-left-behind/);
      expect(existsSync(left)).toBe(false);
      expect(process.env.TMPDIR).toBe(saved.tmp);
    } finally {
      quiet.mockRestore();
      process.exitCode = saved.exitCode;
      if (saved.tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved.tmp;
    }
  });
});
