/**
 * Command detection against a hostile repository (issue 24): detection reads the checkout's files and
 * looks programs up, and must stay fast, bounded and inside the checkout whatever those files hold.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { detectCommands } from "../../../src/session/detect-commands.js";
import { folderView } from "../../../src/session/detect-io.js";
import { missingToolNotes } from "../../../src/session/missing-tools.js";
import { tmpDir } from "../../helpers/repo.js";

function folder(files: Record<string, string>): string {
  const dir = tmpDir("trm-detect-");
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}
const pkg = (o: Record<string, unknown>) => JSON.stringify(o);
const PATH = "/usr/bin:/bin";

describe("detection of a hostile repository's commands", () => {
  it("a script that names an Object.prototype member (`npm run constructor`) is an unknown script, not a crash", () => {
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      const dir = folder({ "package.json": pkg({ scripts: { test: `npm run ${name} && vitest run` } }), "package-lock.json": "{}" });
      const d = detectCommands(folderView(dir, PATH));
      expect(d?.args.testCmd, name).toBe("npm test");
      expect(() => missingToolNotes({ testCmd: "npm test" }, folderView(dir, PATH), false), name).not.toThrow();
    }
  });

  it("scripts that run each other many times over are read in bounded time (no exponential inlining)", () => {
    const fan = (next: string) => Array(300).fill(`npm run ${next}`).join(" && ");
    const dir = folder({
      "package.json": pkg({ packageManager: "pnpm@9.0.0", scripts: { test: fan("a"), a: `pnpm x && ${fan("b")}`, b: fan("c"), c: "vitest run" } }),
    });
    const t = performance.now();
    const d = detectCommands(folderView(dir, PATH));
    const notes = missingToolNotes({ testCmd: "npm test" }, folderView(dir, PATH), false);
    expect(performance.now() - t).toBeLessThan(2000);
    expect(d).toBeDefined();
    expect(notes.join("\n")).toMatch(/needs pnpm/);
  });

  it("a script of thousands of missing programs gives one short note, quickly", () => {
    const dir = folder({ "package.json": pkg({ scripts: { test: Array.from({ length: 20000 }, (_, i) => `q${i}`).join(";") } }) });
    const t = performance.now();
    const notes = missingToolNotes({ testCmd: "npm test" }, folderView(dir, PATH), false);
    expect(performance.now() - t).toBeLessThan(3000);
    expect(notes).toHaveLength(1);
    expect(notes[0]!.length).toBeLessThan(600);
    expect(notes[0]).toMatch(/needs q0 .*also not found: q1, q2, q3, q4, q5 and \d+ more\)$/);
  });

  it("a long packageManager value is clipped where the start result quotes it", () => {
    const dir = folder({ "package.json": pkg({ packageManager: `pnpm@${"x".repeat(50000)}`, scripts: { test: "vitest run" } }) });
    const d = detectCommands(folderView(dir, PATH))!;
    expect(JSON.stringify(d).length).toBeLessThan(3000);
  });

  it("folders linked out of the checkout are not read: tests/, src/ and their files", () => {
    const outside = folder({ "test_secret.py": "import pytest\n", "conftest.py": "", "pkg/__init__.py": "" });
    const dir = folder({ "setup.py": "" });
    symlinkSync(outside, path.join(dir, "tests"));
    symlinkSync(outside, path.join(dir, "src"));
    const view = folderView(dir, PATH);
    expect(view.list("tests")).toEqual([]);
    expect(view.read("tests/test_secret.py")).toBe("");
    expect(view.has("tests/conftest.py")).toBe(false);
    expect(view.list("src")).toEqual([]);
    expect(detectCommands(view)).toBeUndefined();
  });
});
