/**
 * trm_suggest_fix runs the repository's own code (ESLint loads the project's config) in the session's sandbox.
 * A fresh-eyes attack (h30) found two ways out through it: the fixer's copy of a file replaced by a link to the
 * user's SSH key, which the unconfined server read and offered as a fix; and files the fixer wrote in the
 * sandbox's private home (an `.npmrc` with a `script-shell`), which the next step's `npm test` ran. ESLint is
 * the stand-in of fixtures/repos/eslint-stub, which loads the configuration as ESLint does.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { filesCandidate } from "../helpers/fixtures.js";
import { CANARY, expectNoCanary, hostileServer, outsideWorld, tmp } from "../helpers/hostile.js";
import { checkoutState, g, ROOT } from "../helpers/repo.js";

const hasBwrap = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0;
// In CI the sandbox tests must run: .ci/run installs bubblewrap, and a missing one is a failure there.
const sandboxTests = hasBwrap || process.env.CI === "true" ? describe : describe.skip;

const CONFIG = "module.exports = [];\n";
const LINT = "node node_modules/eslint/bin/eslint.js src";

/** A repository with the ESLint stand-in installed (ignored, linked in), a lint problem it fixes, and `files`. */
function repoWithEslint(files: Record<string, string>): string {
  const repo = path.join(tmp("trm-suggest-sbx-"), "repo");
  mkdirSync(path.join(repo, "src"), { recursive: true });
  const all: Record<string, string> = {
    ".gitignore": "node_modules\n",
    "eslint.config.js": CONFIG,
    "src/a.js": "const x = 1;;\nmodule.exports = x;\n",
    ...files,
  };
  for (const [f, text] of Object.entries(all)) writeFileSync(path.join(repo, f), text);
  cpSync(path.join(ROOT, "fixtures", "repos", "eslint-stub"), path.join(repo, "node_modules", "eslint"), { recursive: true });
  g(repo, "init", "-q", "-b", "main");
  g(repo, "add", "-A");
  g(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "base");
  return repo;
}

sandboxTests("trm_suggest_fix in the sandbox (h30)", () => {
  it("never reads a fixer's result through a link: a config that links the fixed file to the SSH key gets no fix out", async () => {
    const w = outsideWorld();
    const repo = repoWithEslint({ "package.json": '{ "name": "v", "private": true }\n' });
    const before = checkoutState(repo);
    const h = await hostileServer({ home: w.home });
    const s = await h.call("trm_start_session", { repoPath: repo, lintCmd: LINT, linkPaths: ["node_modules"], sandbox: true });
    // Inside the sandbox $HOME is the session's own; the key's path outside is what the config names.
    const key = path.join(w.home, ".ssh", "id_ed25519");
    const config = `const fs = require("fs");\nif (process.argv.includes("--fix")) process.on("exit", () => { fs.rmSync("src/a.js"); fs.symlinkSync(${JSON.stringify(key)}, "src/a.js"); });\nmodule.exports = [];\n`;
    const step = await h.call("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("eslint.config.js", config) });
    expect(step.okLint).toBe(false);
    const fix = await h.call("trm_suggest_fix", { sessionId: s.sessionId });
    expect(JSON.stringify(fix)).not.toContain(CANARY);
    expect(fix.suggestions).toEqual([]);
    expectNoCanary(repo, h.seen);
    expect(readFileSync(key, "utf8")).toContain(CANARY);
    expect(checkoutState(repo)).toEqual(before);
    await h.srv.close();
  });

  it("what a fixer wrote in the sandbox's home is gone before the next step: an .npmrc's script-shell does not pass a wrong fix", async () => {
    const w = outsideWorld();
    const test = 'v=$(sh src/val.sh)\nif [ "$v" = 2 ]; then echo "ok 1 - val is 2"; else echo "not ok 1 - val is 2"; fi\necho 1..1\n';
    const repo = repoWithEslint({ "package.json": '{ "name": "v", "private": true, "scripts": { "test": "sh test.sh" } }\n', "test.sh": test });
    writeFileSync(path.join(repo, "src", "val.sh"), "echo 1\n");
    g(repo, "add", "-A");
    g(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "val");
    const h = await hostileServer({ home: w.home });
    const s = await h.call("trm_start_session", {
      repoPath: repo,
      testCmd: "npm test",
      lintCmd: LINT,
      linkPaths: ["node_modules"],
      sandbox: true,
      preflight: true,
    });
    expect(s.preflight.tests).toMatchObject({ passed: 0, failed: 1 });
    const config = `const fs = require("fs");\nif (process.argv.includes("--fix")) {\n  const h = process.env.HOME;\n  fs.mkdirSync(h + "/.cache", { recursive: true });\n  fs.writeFileSync(h + "/.cache/sh", '#!/bin/sh\\necho "ok 1 - val is 2"; echo 1..1\\n', { mode: 0o755 });\n  fs.writeFileSync(h + "/.npmrc", "script-shell=" + h + "/.cache/sh\\n");\n}\nmodule.exports = [];\n`;
    await h.call("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("eslint.config.js", config) });
    await h.call("trm_suggest_fix", { sessionId: s.sessionId });
    // Still wrong: 3, not 2.
    const wrong = await h.call("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("src/val.sh", "echo 3\n") });
    expect(wrong.tests).toMatchObject({ passed: 0, failed: 1 });
    expect(wrong.shouldHalt).toBe(false);
    await h.srv.close();
  });
});
