import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eslintCommand, eslintRefusal, eslintRunNotes, why } from "../../../src/review/project-tools.js";
import { reviewPr } from "../../../src/review/review.js";

/**
 * The project's own tools on the changed lines: the repository's tsc (real, from this project's
 * node_modules) and ESLint (a stand-in script printing ESLint's JSON format) run on the head in a
 * temporary worktree; only diagnostics on added lines are reported, with the tool's rule id.
 */

const ENV = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };
const git = (cwd: string, ...args: string[]): string => execFileSync("git", args, { cwd, env: ENV, encoding: "utf8" });
const root = mkdtempSync(path.join(tmpdir(), "trm-tools-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const OWN_NODE_MODULES = path.resolve(import.meta.dirname, "../../../node_modules");

function repoWith(files: Record<string, string>, head: Record<string, string>): string {
  const repo = mkdtempSync(path.join(root, "repo-"));
  git(repo, "init", "-q", "-b", "main");
  const write = (set: Record<string, string>) => {
    for (const [p, text] of Object.entries(set)) {
      mkdirSync(path.dirname(path.join(repo, p)), { recursive: true });
      writeFileSync(path.join(repo, p), text);
    }
  };
  write({ ".gitignore": "node_modules\n", ...files });
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "base");
  write(head);
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "change");
  return repo;
}

describe("project tools on changed lines", () => {
  it("runs the repository's tsc on the head and reports only errors on added lines", async () => {
    const tsconfig = JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "Bundler", types: [] },
      include: ["src"],
    });
    const repo = repoWith(
      { "tsconfig.json": tsconfig, "src/old.ts": "export const old: number = 'already wrong';\n" },
      { "src/add.ts": "export function add(a: number, b: number): number {\n  return a + b;\n}\nexport const bad: string = add(1, 2);\n" },
    );
    mkdirSync(path.join(repo, "node_modules/.bin"), { recursive: true });
    symlinkSync(path.join(OWN_NODE_MODULES, "typescript"), path.join(repo, "node_modules/typescript"));
    symlinkSync("../typescript/bin/tsc", path.join(repo, "node_modules/.bin/tsc"));
    const before = git(repo, "status", "--porcelain=v2", "--untracked-files=all") + git(repo, "worktree", "list");
    const r = await reviewPr({ repoPath: repo, base: "HEAD~1", head: "HEAD" }, { env: {} });
    const tsc = r.comments.filter((c) => c.rule.startsWith("tsc/"));
    // The error in old.ts exists too, but on a line this change did not add.
    expect(tsc.map((c) => [c.file, c.line, c.rule, c.severity, c.category])).toEqual([["src/add.ts", 4, "tsc/TS2322", "critical", "type-safety"]]);
    expect(r.summary.assessment).toBe("needs-changes");
    expect(r.notes).toContain(
      "Project tools: ran tsc; not run: ESLint (not installed in node_modules/.bin). Install the project's dependencies (`npm install`) to run them.",
    );
    expect(git(repo, "status", "--porcelain=v2", "--untracked-files=all") + git(repo, "worktree", "list")).toBe(before);
  });

  it("does not report on a changed file that is a symbolic link (the tools would read what it points at)", async () => {
    const outside = path.join(root, "outside-secret.ts");
    writeFileSync(outside, 'export const secret: number = "not a number";\n');
    const tsconfig = JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "Bundler", types: [] },
      include: ["src"],
    });
    const repo = repoWith({ "tsconfig.json": tsconfig, "src/a.ts": "export const a = 1;\n" }, { "src/b.ts": "export const b: string = 2;\n" });
    symlinkSync(outside, path.join(repo, "src/leak.ts"));
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "link");
    mkdirSync(path.join(repo, "node_modules/.bin"), { recursive: true });
    symlinkSync(path.join(OWN_NODE_MODULES, "typescript"), path.join(repo, "node_modules/typescript"));
    symlinkSync("../typescript/bin/tsc", path.join(repo, "node_modules/.bin/tsc"));
    const r = await reviewPr({ repoPath: repo, base: "HEAD~2", head: "HEAD" }, { env: {} });
    expect(r.comments.filter((c) => c.rule.startsWith("tsc/")).map((c) => [c.file, c.line])).toEqual([["src/b.ts", 1]]);
    expect(r.notes).toContain("1 changed file(s) are not plain files of the head (symbolic links or outside it): the project's tools do not report on them.");
  });

  it("runs the repository's ESLint with its configuration, in a worktree, and keeps the rule id", async () => {
    const repo = repoWith(
      { "eslint.config.js": "export default [];\n", "src/a.ts": "export const a = 1;\n" },
      { "src/a.ts": "export const a = 1;\nconst unused = 2;\n" },
    );
    // The stand-in reports where it ran and how in a "trace" message, and tries to write outside the worktree.
    const mark = path.join(root, "eslint-wrote-outside.txt");
    mkdirSync(path.join(repo, "node_modules/.bin"), { recursive: true });
    const script = `#!/bin/sh\necho pwned > ${JSON.stringify(mark)} 2>/dev/null\nprintf '%s' '[{"filePath":"'"$PWD"'/src/a.ts","messages":[{"ruleId":"no-unused-vars","severity":2,"message":"unused is assigned a value but never used.","line":2,"column":7},{"ruleId":"trace","severity":1,"message":"in '"$PWD"' args '"$*"'","line":2,"column":1},{"ruleId":"prefer-const","severity":1,"message":"old line","line":1,"column":1}]}]'\nexit 1\n`;
    writeFileSync(path.join(repo, "node_modules/.bin/eslint"), script);
    chmodSync(path.join(repo, "node_modules/.bin/eslint"), 0o755);
    const r = await reviewPr({ repoPath: repo, base: "HEAD~1", head: "HEAD" }, { env: {} });
    const eslint = r.comments.filter((c) => c.rule.startsWith("eslint/"));
    expect(eslint.filter((c) => c.rule !== "eslint/trace").map((c) => [c.file, c.line, c.rule, c.severity, c.message])).toEqual([
      ["src/a.ts", 2, "eslint/no-unused-vars", "warning", "ESLint: `unused is assigned a value but never used`"],
    ]);
    const trace = /in (\S+) args (.*)`$/.exec(eslint.find((c) => c.rule === "eslint/trace")?.message ?? "");
    expect(trace?.[1]).not.toBe(repo);
    expect(trace?.[1]).toMatch(/trm-review-[0-9a-f]+-tools$/);
    // The head's flat config is named: ESLint must not look upwards into the user's checkout.
    expect(trace?.[2]).toBe("-c eslint.config.js --format json -- src/a.ts");
    // The head's configuration is the PR author's code: confined where bubblewrap works, said otherwise.
    const confined = spawnSync("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "true"]).status === 0;
    if (confined || process.env.CI) {
      expect(existsSync(mark)).toBe(false);
      expect(r.notes.join("\n")).not.toMatch(/unconfined/);
    } else expect(r.notes.join("\n")).toMatch(/ran unconfined: the head's ESLint configuration is the pull request author's code/);
    expect(git(repo, "worktree", "list").trim().split("\n")).toHaveLength(1);
  });

  it("says so when ESLint cannot lint (exit 2), instead of reporting nothing as if the change were clean", async () => {
    // ESLint 9 on a head that only has an .eslintrc, as it answers on a real repository (unjs/destr 8b08aa8).
    const repo = repoWith(
      { ".eslintrc": '{ "extends": ["eslint-config-unjs"] }\n', "src/a.ts": "export const a = 1;\n" },
      { "src/a.ts": "export const a = 1;\nexport const b = 2;\n" },
    );
    mkdirSync(path.join(repo, "node_modules/.bin"), { recursive: true });
    const crash =
      '(node:1325) ESLintIgnoreWarning: The ".eslintignore" file is no longer supported.\n(Use `node --trace-warnings ...` to show where the warning was created)\n\nOops! Something went wrong! :(\n\nESLint: 9.39.4\n\nESLint couldn\'t find an eslint.config.(js|mjs|cjs) file.\n';
    writeFileSync(path.join(repo, "node_modules/.bin/eslint"), `#!/bin/sh\ncat >&2 <<'EOF'\n${crash}EOF\nexit 2\n`);
    chmodSync(path.join(repo, "node_modules/.bin/eslint"), 0o755);
    const r = await reviewPr({ repoPath: repo, base: "HEAD~1", head: "HEAD" }, { env: {} });
    expect(r.notes).toContain(
      "The project's ESLint failed to run (exit 2): ESLint couldn't find an eslint.config.(js|mjs|cjs) file. Its diagnostics are missing.",
    );
  });

  it("does not run ESLint when the change writes its configuration (that would run the branch's code)", async () => {
    const repo = repoWith(
      { "eslint.config.js": "export default [];\n", "src/a.ts": "export const a = 1;\n" },
      { "eslint.config.js": "export default [{ rules: {} }];\n", "src/a.ts": "export const a = 2;\n" },
    );
    const mark = path.join(root, "eslint-ran.txt");
    mkdirSync(path.join(repo, "node_modules/.bin"), { recursive: true });
    writeFileSync(path.join(repo, "node_modules/.bin/eslint"), `#!/bin/sh\ntouch ${JSON.stringify(mark)}\necho '[]'\n`);
    chmodSync(path.join(repo, "node_modules/.bin/eslint"), 0o755);
    const r = await reviewPr({ repoPath: repo, base: "HEAD~1", head: "HEAD" }, { env: {} });
    expect(r.notes?.find((n) => n.startsWith("ESLint was not run"))).toMatch(
      /^ESLint was not run: this change modifies code ESLint would run on this machine: eslint\.config\.js \(ESLint configuration or plugin\)\. Pass trustPr: true/,
    );
    expect(existsSync(mark)).toBe(false);
  });

  it("says so when the tools are not installed, and runs nothing", async () => {
    const repo = repoWith({ "src/a.ts": "export const a = 1;\n" }, { "src/a.ts": "export const a = 2;\n" });
    const r = await reviewPr({ repoPath: repo, base: "HEAD~1", head: "HEAD" }, { env: {} });
    expect(r.notes).toEqual([
      "Project tools: none ran; not run: ESLint (not installed in node_modules/.bin); tsc (not installed in node_modules/.bin). Install the project's dependencies (`npm install`) to run them.",
    ]);
  });

  it("names the project's own linter as not run instead of blaming a missing ESLint (an oxlint project typed with tsgo, as unjs/defu)", async () => {
    const pkg = JSON.stringify({
      packageManager: "pnpm@10.33.0",
      scripts: { lint: "oxlint src && oxfmt --check src", "test:types": "tsgo --noEmit" },
      devDependencies: { oxlint: "^1", "eslint-config-unjs": "^0.6", "@typescript/native-preview": "7" },
    });
    const repo = repoWith(
      { "package.json": pkg, ".oxlintrc.json": "{}", "pnpm-lock.yaml": "", "src/a.ts": "export const a = 1;\n" },
      { "src/a.ts": "export const a = 2;\n" },
    );
    const r = await reviewPr({ repoPath: repo, base: "HEAD~1", head: "HEAD" }, { env: {} });
    expect(r.notes).toEqual([
      "Project tools: none ran; not run: oxlint (the project's linter; the review runs ESLint and tsc only); tsc (not installed in node_modules/.bin; the project type-checks with tsgo, which the review does not run). Install the project's dependencies (`pnpm install`) to run them.",
    ]);
  });

  it("names the head's ESLint configuration: a flat one with -c, an .eslintrc in eslintrc mode", () => {
    expect(eslintCommand("/r/node_modules/.bin/eslint", "eslint.config.mjs", ["src/a b.ts"])).toBe(
      "'/r/node_modules/.bin/eslint' -c 'eslint.config.mjs' --format json -- 'src/a b.ts'",
    );
    expect(eslintCommand("/r/node_modules/.bin/eslint", ".eslintrc", ["src/a.ts"])).toBe(
      "ESLINT_USE_FLAT_CONFIG=false '/r/node_modules/.bin/eslint' --format json -- 'src/a.ts'",
    );
  });

  it("says why ESLint is refused or what it ran, from what the change touches", () => {
    const open = { found: [], incomplete: "the base commit 0123456789ab is not in /r (fetch the base branch)" };
    expect(eslintRefusal(open, false, true)).toBe(
      "ESLint was not run: the base commit 0123456789ab is not in /r (fetch the base branch), so whether this change modifies code ESLint would run is not known. Pass trustPr: true (code-trm review --trust-pr) to run it anyway, in the bubblewrap sandbox.",
    );
    expect(eslintRefusal(open, true, true)).toBeNull();
    expect(eslintRunNotes(open, false)).toEqual([
      "ESLint ran although the base commit 0123456789ab is not in /r (fetch the base branch), because trustPr was passed, unconfined: bubblewrap is not available.",
    ]);
    const four = { found: ["a.js", "b.js", "c.js", "d.js"].map((p, i) => ({ path: p, why: i < 2 ? "one" : "two" })) };
    expect(eslintRefusal(four, false, true)).toMatch(
      /^ESLint was not run: this change modifies code ESLint would run on this machine: a\.js, b\.js \(one\), c\.js \(two\), …\. /,
    );
    expect(eslintRefusal({ found: [] }, false, false)).toBeNull();
    expect(eslintRunNotes({ found: [] }, true)).toEqual([]);
  });

  it("quotes the line of a failure that says what went wrong", () => {
    expect(
      why("(node:1) Warning: x\n(Use `node --trace-warnings ...`)\n\nOops! Something went wrong! :(\n\nESLint: 9.39.4\n\nNo files matching the pattern.\n"),
    ).toBe("No files matching the pattern.");
    expect(why("\n\n")).toBe("no output.");
  });
});
