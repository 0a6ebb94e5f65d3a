import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../../../src/evaluate/types.js";
import { scratchDir } from "../../../src/git/refs.js";
import { eslintFixes, resolveEslint } from "../../../src/suggest/eslint-fix.js";
import { suggestFixes } from "../../../src/suggest/fixes.js";
import { ROOT, tmpDir } from "../../helpers/repo.js";
import { project, sessionOver, snapshot } from "./helpers.js";

/**
 * eslint --fix runs twice over the same fixture repository: with the stand-in in fixtures/repos/eslint-stub
 * (ESLint's CLI contract, no network needed, so it always runs, CI included) and with the real ESLint
 * when one is installed outside the repository (it is not a dependency of code-trm).
 */
const REAL_ESLINT = process.env.CODE_TRM_TEST_ESLINT_DIR ?? "/tmp/eslint-cache/node_modules";
const haveReal = existsSync(path.join(REAL_ESLINT, "eslint", "package.json"));

function installStub(repo: string): void {
  cpSync(path.join(ROOT, "fixtures", "repos", "eslint-stub"), path.join(repo, "node_modules", "eslint"), { recursive: true });
}
function installReal(repo: string): void {
  symlinkSync(REAL_ESLINT, path.join(repo, "node_modules"));
}
const lintCmd = (repo: string) => `node ${path.join(repo, "node_modules", "eslint", "bin", "eslint.js")} src`;
const scratchLeft = (commonDir: string) => {
  const tmp = scratchDir(commonDir);
  return existsSync(tmp) ? readdirSync(tmp).filter((n) => n.startsWith("eslint-")) : [];
};

async function fixesThroughSession(install: (repo: string) => void) {
  const { session } = await sessionOver("eslint-fixable", (repo) => {
    install(repo);
    return { lintCmd: lintCmd(repo), preflight: true };
  });
  const pre = session.entries[0]!.evaluation;
  expect(pre.okLint).toBe(false);
  expect(pre.diagnostics.map((d) => [d.file, d.line, d.code])).toEqual([
    ["src/range.js", 2, "prefer-const"],
    ["src/stats.js", 2, "no-extra-semi"],
    ["src/stats.js", 8, "prefer-const"],
  ]);
  const before = snapshot(session.worktree);
  const r = await suggestFixes(session);
  // The worktree was not written, and the scratch copy is gone.
  expect(snapshot(session.worktree)).toEqual(before);
  expect(scratchLeft(session.config.commonDir)).toEqual([]);
  expect(r.suggestions).toHaveLength(1);
  const s = r.suggestions[0]!;
  expect(s).toMatchObject({ priority: "medium", fixer: "eslint", files: ["src/range.js", "src/stats.js"] });
  expect(s.rationale).toMatch(/prefer-const ×2, no-extra-semi ×1/);
  expect(s.candidateToFix.mode).toBe("modify");
  const step = await session.submit({ candidate: s.candidateToFix, rationale: "eslint --fix" }, {});
  expect(step.ev.okLint).toBe(true);
  return { r, session };
}

describe("eslint --fix in a scratch copy", () => {
  it("with the ESLint stand-in: fixes every fixable problem, proven by the next lint", async () => {
    const { r } = await fixesThroughSession(installStub);
    expect(r.timings.eslintMs).toBeGreaterThan(0);
  });

  it.skipIf(!haveReal)(
    haveReal
      ? `with the real ESLint (${REAL_ESLINT}): same result`
      : `with the real ESLint: SKIPPED, no eslint at ${REAL_ESLINT} (set CODE_TRM_TEST_ESLINT_DIR, or: npm i eslint@10 --prefix /tmp/eslint-cache)`,
    async () => {
      const { r } = await fixesThroughSession(installReal);
      expect(r.suggestions[0]!.rationale).toMatch(/ESLint 10\./);
    },
  );

  const diags: Diagnostic[] = [
    { file: "src/stats.js", line: 2, column: 17, code: "no-extra-semi", message: "Unnecessary semicolon.", severity: "error", source: "eslint" },
  ];

  it("says plainly when the repository has no eslint", async () => {
    const dir = project("eslint-fixable");
    expect(resolveEslint(dir)).toBeNull();
    const r = await eslintFixes({ worktree: dir, scratchParent: tmpDir(), diagnostics: diags });
    expect(r.rewrites).toEqual([]);
    expect(r.notes.join()).toMatch(/eslint is not resolvable from the worktree/);
  });

  it("stops an eslint that hangs at the timeout and removes the scratch copy", async () => {
    const dir = project("eslint-fixable");
    mkdirSync(path.join(dir, "node_modules", "eslint", "bin"), { recursive: true });
    writeFileSync(path.join(dir, "node_modules", "eslint", "package.json"), '{ "name": "eslint", "version": "9.9.9", "bin": { "eslint": "bin/eslint.js" } }');
    writeFileSync(path.join(dir, "node_modules", "eslint", "bin", "eslint.js"), "setTimeout(() => {}, 1e9);\n");
    const scratchParent = tmpDir();
    const t0 = Date.now();
    // Not a git repository: the tracked files are listed by git, so make it one.
    const { g } = await import("../../helpers/repo.js");
    g(dir, "init", "-q");
    g(dir, "add", "-A", "--", "src", "eslint.config.js", "package.json");
    const r = await eslintFixes({ worktree: dir, scratchParent, diagnostics: diags, timeoutMs: 500 });
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.notes.join()).toMatch(/did not finish within 1 s/);
    expect(readdirSync(scratchParent)).toEqual([]);
  });

  it("reports an eslint that cannot run (exit 2) with its message", async () => {
    const dir = project("eslint-fixable");
    mkdirSync(path.join(dir, "node_modules", "eslint", "bin"), { recursive: true });
    writeFileSync(path.join(dir, "node_modules", "eslint", "package.json"), '{ "name": "eslint", "version": "9.9.9", "bin": { "eslint": "bin/eslint.js" } }');
    writeFileSync(
      path.join(dir, "node_modules", "eslint", "bin", "eslint.js"),
      'process.stderr.write("Oops! Something went wrong: no config\\n"); process.exit(2);\n',
    );
    const { g } = await import("../../helpers/repo.js");
    g(dir, "init", "-q");
    g(dir, "add", "-A", "--", "src");
    const r = await eslintFixes({ worktree: dir, scratchParent: tmpDir(), diagnostics: diags });
    expect(r.notes.join()).toMatch(/eslint --fix failed \(exit 2\): Oops! Something went wrong/);
  });
});
