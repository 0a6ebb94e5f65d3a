import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { measureTestStrength, strengthFindings } from "../../../../src/evaluate/test-strength.js";
import { tmpDir } from "../../../helpers/repo.js";

/** A checkout of a head whose tests are hostile: the files as committed, written into a temporary folder. */
function checkoutOf(files: Record<string, string>): string {
  const dir = tmpDir("trm-hostile-head-");
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe("a hostile head's tests and what the findings say", () => {
  it("a mutant's diff is made of the file as committed, not of what the head's tests wrote into the checkout", async () => {
    // The tests rewrite the changed file with something they read in the sandbox (a token in .git/config,
    // say), then pass whatever runs: the mutant of that line would survive and its diff be posted.
    const cwd = checkoutOf({
      "package.json": '{"type":"module"}\n',
      "src/a.js": "export function f(x) {\n  return x + 1;\n}\n",
      "test/a.test.js": 'import { test } from "node:test";\nimport { f } from "../src/a.js";\ntest("runs", () => { f(1); });\n',
      "leak.mjs":
        'import { writeFileSync } from "node:fs";\nwriteFileSync("src/a.js", "export function f(x) {\\n  return x + \\"ghp_SECRETTOKEN\\";\\n}\\n");\n',
    });
    const s = await measureTestStrength({
      checkout: async () => cwd,
      parallel: 1,
      testCmd: "node leak.mjs; node --test",
      changed: new Map([["src/a.js", [{ start: 2, end: 2 }]]]),
      timeoutSec: 60,
      budgetMs: 60_000,
    });
    const text = JSON.stringify(strengthFindings(s));
    expect(s.mutation?.results.length).toBeGreaterThan(0);
    expect(text).not.toContain("SECRETTOKEN");
  }, 120_000);

  it("a changed file that is a link out of the checkout is neither read nor measured", async () => {
    const outside = checkoutOf({ "secret.js": 'export const token = "ghp_OUTSIDE";\n' });
    const cwd = checkoutOf({ "package.json": '{"type":"module"}\n', "test/a.test.js": 'import { test } from "node:test";\ntest("runs", () => {});\n' });
    mkdirSync(path.join(cwd, "src"));
    symlinkSync(path.join(outside, "secret.js"), path.join(cwd, "src/a.js"));
    const s = await measureTestStrength({
      checkout: async () => cwd,
      parallel: 1,
      testCmd: "node --test",
      changed: new Map([["src/a.js", [{ start: 1, end: 1 }]]]),
      timeoutSec: 60,
      budgetMs: 60_000,
    });
    expect(s.coverage).toBeNull();
    expect(s.notes.join("\n")).toMatch(/1 changed file\(s\) are not plain files/);
    expect(JSON.stringify(s)).not.toContain("OUTSIDE");
  }, 120_000);
});
