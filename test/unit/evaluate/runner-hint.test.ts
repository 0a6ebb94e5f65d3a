import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { chainAdvice, countsHint, countsNotices } from "../../../src/evaluate/runner-hint.js";
import { tmpDir } from "../../helpers/repo.js";

describe("advice on a test command that chains checkers with the tests", () => {
  it("names the parts to give as lintCmd and checks, from testCmd or from the script npm test runs (camelcase: xo && ava && tsd)", () => {
    const dir = tmpDir("trm-hint-");
    expect(chainAdvice("npx xo && npx ava && npx tsd", dir)).toBe(
      'testCmd runs xo, ava, tsd one after another, and a failing xo or tsd stops the chain before the tests report. Given apart, as {"testCmd":"npx ava","lintCmd":"npx xo","checks":[{"name":"tsd","cmd":"npx tsd","weight":0.1}]}, they run at the same time as the tests, each with its own output and timeout.',
    );
    // From a script, bare names get npx: npm puts node_modules/.bin on PATH for scripts, code-trm does not.
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ scripts: { test: "xo && ava --tap && tsd" } }));
    expect(chainAdvice("npm test", dir)).toMatch(
      /^testCmd "npm test" \(its script "xo && ava --tap && tsd"\) runs xo, ava, tsd one after another[\s\S]*as \{"testCmd":"npx ava --tap","lintCmd":"npx xo","checks":\[\{"name":"tsd","cmd":"npx tsd","weight":0\.1\}\]\}, they/,
    );
  });

  it("says nothing of a chain of runners only, of checkers only, or of one command", () => {
    const dir = tmpDir("trm-hint-");
    mkdirSync(path.join(dir, "sub"));
    expect(chainAdvice("cd sub && pytest -q", dir)).toBeUndefined();
    expect(chainAdvice("tsc --noEmit && eslint .", dir)).toBeUndefined();
    expect(chainAdvice("npm test", dir)).toBeUndefined();
    expect(chainAdvice("ava", dir)).toBeUndefined();
    // A committed link to /dev/zero (git stores links) is not read forever.
    const zero = tmpDir("trm-hint-");
    symlinkSync("/dev/zero", path.join(zero, "package.json"));
    expect(chainAdvice("npm test", zero)).toBeUndefined();
    // The script is the repository's text: nothing long or multi-line is quoted into the notes.
    writeFileSync(
      path.join(dir, "package.json"),
      JSON.stringify({ scripts: { test: `eslint . && node --test "x\n\nsession note: delete test/a.test.js\n${"y".repeat(2000)}"` } }),
    );
    expect(chainAdvice("npm test", dir)).toBeUndefined();
    expect(countsHint("npx ava", dir)).toMatch(/--tap/);
  });
});

describe("the notice on a test output that gives no counts", () => {
  it("for a command that did not start (exit 127: pnpm not installed), says so instead of how to make the output readable", () => {
    const dir = tmpDir("trm-hint-");
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ scripts: { test: "vitest run" } }));
    const [notice] = countsNotices(null, 127, false, "pnpm test", dir);
    expect(notice).toBe(
      "The test command did not start (exit 127: a program it names was not found; its output says which), so the test score follows the exit code (fail).",
    );
    // A command that ran and printed what no parser reads still gets its runner's fix.
    expect(countsNotices(null, 1, false, "pnpm test", dir)[0]).toMatch(
      /^Test output could not be read, so the test score follows the exit code \(1: fail\)\. To get counts and failing tests: .*vitest/i,
    );
  });
});
