import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { alwaysLintCode, changedLintCode, covers, importTargets, lintCodeOfChange, relativeSpecifiers } from "../../../src/review/lint-code.js";
import { g, tmpDir } from "../../helpers/repo.js";

/**
 * Which paths of a change are code the project's ESLint would run (src/review/lint-code.ts): the
 * pure parts, then real repositories with a base commit and a head that attacks in one way each.
 */

describe("alwaysLintCode", () => {
  it.each([
    ["node_modules/eslint-plugin-x/index.js", "a package under node_modules, which ESLint would load instead of the installed one"],
    ["packages/a/node_modules/x.js", "a package under node_modules, which ESLint would load instead of the installed one"],
    ["node_modules", "a package under node_modules, which ESLint would load instead of the installed one"],
    ["eslint.config.mjs", "ESLint configuration or plugin"],
    ["src/.eslintrc.json", "ESLint configuration or plugin"],
    ["eslint-rules/no-foo.js", "ESLint configuration or plugin"],
    ["eslint-local-rules.cjs", "ESLint configuration or plugin"],
    ["babel.config.js", "a tool configuration that ESLint plugins may load and run"],
    [".prettierrc", "a tool configuration that ESLint plugins may load and run"],
    [".babelrc.json", "a tool configuration that ESLint plugins may load and run"],
    ["tailwind.config.ts", "a tool configuration that ESLint plugins may load and run"],
    [".pnp.cjs", "a tool configuration that ESLint plugins may load and run"],
    [".eslintignore", null],
    ["src/app.js", null],
    [".nvmrc", null],
    ["tsconfig.json", null],
    ["package.json", null],
  ])("%s → %s", (p, why) => {
    expect(alwaysLintCode(p)).toBe(why);
  });
});

describe("relativeSpecifiers", () => {
  it("finds imports, requires, bare YAML paths, path.join(__dirname), new URL and glob calls, resolved from the file", () => {
    const text = [
      'import rules from "./tools/rules.js";',
      "const h = require('../shared/helpers.cjs');",
      "const later = await import(`./lazy`);",
      "parser: ./parsers/custom.js",
      'const dir = path.join(__dirname, "rules", "extra");',
      'const u = new URL("local/", import.meta.url);',
      'const more = globSync("./plugins/*.js");',
      'files: ["./src/**/*.ts"], ignores: ["dist/**"]',
      'project: "./tsconfig.json", pkg: require("./package.json")',
      'const up = require("../../outside.js");',
      "const one = await import(`./dyn/${name}.js`);",
    ].join("\n");
    expect(relativeSpecifiers(text, "config/eslint.config.js").sort()).toEqual([
      "config/dyn",
      "config/lazy",
      "config/local",
      "config/parsers/custom.js",
      "config/plugins",
      "config/rules/extra",
      "config/tools/rules.js",
      "shared/helpers.cjs",
    ]);
  });

  it("in imports mode takes only import / require specifiers (a vite alias to ./src is not a load)", () => {
    const text = 'import plugin from "./build/plugin.js";\nexport default { resolve: { alias: { "@": path.resolve(__dirname, "./src") } } };';
    expect(relativeSpecifiers(text, "vite.config.ts", "imports")).toEqual(["build/plugin.js"]);
  });

  it("imports maps: wildcards lead to their folder", () => {
    expect(importTargets(JSON.stringify({ imports: { "#lint": "./tools/lint.js", "#rules/*": "./rules/*.js", "#ext": "pkg" } }), "")).toEqual([
      "tools/lint.js",
      "rules",
    ]);
    expect(importTargets("not json", "")).toEqual([]);
  });

  it("covers: the path, a file it resolves to, and a folder's files", () => {
    expect(covers({ path: "tools/rules", tree: true, by: "x" }, "tools/rules.js")).toBe(true);
    expect(covers({ path: "tools/rules", tree: true, by: "x" }, "tools/rules/a/b.js")).toBe(true);
    expect(covers({ path: "tools/rules", tree: false, by: "x" }, "tools/rules/a/b.js")).toBe(false);
    expect(covers({ path: "tools/rules", tree: false, by: "x" }, "tools/rules/index.ts")).toBe(true);
    expect(covers({ path: "tools/rules", tree: true, by: "x" }, "tools/rulesx.js")).toBe(false);
    expect(covers({ path: "", tree: false, by: "x" }, "index.js")).toBe(true);
    expect(covers({ path: "", tree: false, by: "x" }, "src/index.js")).toBe(false);
  });
});

/** A repository whose base commit has `base` and whose head applies `head` (null deletes; {link} links). */
function change(base: Record<string, string>, head: Record<string, string | null | { link: string }>): { dir: string; base: string; head: string } {
  const dir = path.join(tmpDir("trm-lint-code-"), "repo");
  mkdirSync(dir);
  g(dir, "init", "-q", "-b", "main");
  const write = (files: Record<string, string | null | { link: string }>) => {
    for (const [p, v] of Object.entries(files)) {
      const abs = path.join(dir, p);
      rmSync(abs, { recursive: true, force: true });
      if (v === null) continue;
      mkdirSync(path.dirname(abs), { recursive: true });
      if (typeof v === "string") writeFileSync(abs, v);
      else symlinkSync(v.link, abs);
    }
  };
  write({ "src/app.js": "export const app = 1;\n", ...base });
  g(dir, "add", "-A");
  g(dir, "commit", "-q", "-m", "base");
  const b = g(dir, "rev-parse", "HEAD").trim();
  write(head);
  g(dir, "add", "-A");
  g(dir, "commit", "-q", "-m", "head", "--allow-empty");
  return { dir, base: b, head: g(dir, "rev-parse", "HEAD").trim() };
}

const found = async (base: Record<string, string>, head: Record<string, string | null | { link: string }>, linted = ["src/app.js"]) => {
  const c = change(base, head);
  const r = await changedLintCode(c.dir, c.base, c.head, linted);
  return r.found.map((f) => [f.path, f.why]);
};

const FLAT = 'import rules from "./tools/rules.js";\nexport default [{ plugins: { local: { rules } } }];\n';
const EVIL = 'require("fs").writeFileSync("/tmp/pwned", "");\n';

describe("changedLintCode: what a head changed that ESLint would run", () => {
  it("nothing, for a change to source files only", async () => {
    expect(await found({ "eslint.config.js": FLAT, "tools/rules.js": "export default {};\n" }, { "src/app.js": "export const app = 2;\n" })).toEqual([]);
  });

  it("a file the base's configuration imports, and one that file imports in turn", async () => {
    const base = {
      "eslint.config.js": FLAT,
      "tools/rules.js": 'import h from "../lib/helper.js";\nexport default h;\n',
      "lib/helper.js": "export default {};\n",
    };
    expect(await found(base, { "tools/rules.js": EVIL })).toEqual([["tools/rules.js", "loaded by eslint.config.js"]]);
    expect(await found(base, { "lib/helper.js": EVIL })).toEqual([["lib/helper.js", "loaded by eslint.config.js"]]);
  });

  it("a file the base lacks that a specifier of its configuration would find", async () => {
    const base = {
      "eslint.config.js": 'let local = [];\ntry { local = (await import("./local-overrides.js")).default; } catch {}\nexport default [...local];\n',
    };
    expect(await found(base, { "local-overrides.js": EVIL })).toEqual([["local-overrides.js", "loaded by eslint.config.js"]]);
  });

  it("a rules folder read at run time through path.join(__dirname, ...)", async () => {
    const base = {
      "eslint.config.cjs":
        'const fs = require("fs"); const path = require("path");\nconst dir = path.join(__dirname, "lint", "rules");\nmodule.exports = fs.readdirSync(dir).map((f) => require(path.join(dir, f)));\n',
      "lint/rules/a.js": "module.exports = {};\n",
    };
    expect(await found(base, { "lint/rules/b.js": EVIL })).toEqual([["lint/rules/b.js", "loaded by eslint.config.cjs"]]);
  });

  it("a committed node_modules package, or node_modules as a symbolic link", async () => {
    const base = { ".eslintrc.json": JSON.stringify({ plugins: ["local"] }) };
    expect(await found(base, { "node_modules/eslint-plugin-local/index.js": EVIL })).toEqual([
      ["node_modules/eslint-plugin-local/index.js", "a package under node_modules, which ESLint would load instead of the installed one"],
    ]);
    expect(await found(base, { "vendor/eslint-plugin-local/index.js": EVIL, node_modules: { link: "vendor" } })).toContainEqual([
      "node_modules",
      "a package under node_modules, which ESLint would load instead of the installed one",
    ]);
  });

  it("an imported folder replaced by a symbolic link (the file it held is gone from the diff's view)", async () => {
    const base = { "eslint.config.js": FLAT, "tools/rules.js": "export default {};\n" };
    expect(await found(base, { tools: { link: "src" } })).toEqual([["tools/rules.js", "loaded by eslint.config.js"]]);
  });

  it("a YAML eslintrc's bare parser path, and a package.json that gains an eslintConfig", async () => {
    expect(
      await found(
        { ".eslintrc.yml": "parser: ./parsers/custom.js\nrules: {}\n", "parsers/custom.js": "module.exports = {};\n" },
        { "parsers/custom.js": EVIL },
      ),
    ).toEqual([["parsers/custom.js", "loaded by .eslintrc.yml"]]);
    const pkg = (extra: object) => `${JSON.stringify({ name: "x", ...extra })}\n`;
    expect(await found({ "package.json": pkg({}) }, { "package.json": pkg({ eslintConfig: { parser: "./p.js" } }) })).toEqual([
      ["package.json", "package.json with an eslintConfig"],
    ]);
    expect(await found({ "package.json": pkg({}), "eslint.config.js": FLAT }, { "package.json": pkg({ dependencies: { a: "1" } }) })).toEqual([]);
  });

  it("tools' configurations that ESLint plugins load: changed, or a file they import changed; their other strings are not loads", async () => {
    const base = {
      "eslint.config.js": FLAT,
      "babel.config.js": 'module.exports = { plugins: [require("./babel/plugin.js")] };\n',
      "babel/plugin.js": "module.exports = {};\n",
      "vite.config.ts": 'export default { resolve: { alias: { "@": path.resolve(__dirname, "./src") } } };\n',
    };
    expect(await found(base, { "babel.config.js": EVIL })).toEqual([["babel.config.js", "a tool configuration that ESLint plugins may load and run"]]);
    expect(await found(base, { "babel/plugin.js": EVIL })).toEqual([["babel/plugin.js", "loaded by babel.config.js"]]);
    expect(await found(base, { "src/app.js": "export const app = 3;\n" })).toEqual([]);
  });

  it("package imports (#lint) lead through package.json to their file; tsconfig and glob patterns are not loads", async () => {
    const base = {
      "package.json": JSON.stringify({ name: "x", imports: { "#lint": "./tools/lint.js" } }),
      "eslint.config.js":
        'import lint from "#lint";\nexport default [{ files: ["./src/**/*.js"], languageOptions: { parserOptions: { project: "./tsconfig.json" } } }, lint];\n',
      "tools/lint.js": "export default {};\n",
      "tsconfig.json": "{}\n",
    };
    expect(await found(base, { "tools/lint.js": EVIL })).toEqual([["tools/lint.js", "loaded by eslint.config.js"]]);
    expect(await found(base, { "tsconfig.json": '{"compilerOptions":{}}\n', "src/app.js": "export const app = 4;\n" })).toEqual([]);
  });

  it("a base missing from the clone leaves the question open", async () => {
    const c = change({}, { "src/app.js": "export const app = 5;\n" });
    expect(await lintCodeOfChange(c.dir, "f".repeat(40), c.head, [])).toEqual({
      found: [],
      incomplete: `the base commit ffffffffffff is not in ${c.dir} (fetch the base branch)`,
    });
    expect(await lintCodeOfChange(c.dir, undefined, c.head, [])).toEqual({ found: [], incomplete: "the base commit of the change is not known" });
    expect(await lintCodeOfChange(c.dir, c.base, c.head, [])).toEqual({ found: [] });
  });
});
