import { chmodSync, cpSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { g, ROOT, tmpDir } from "./repo.js";

/**
 * A clone whose branch `pr` slips code into what the project's ESLint runs, for the trustPr tests
 * (test/unit/review/project-tools-trust.test.ts, test/e2e/review-pr-trust.test.ts). ESLint is the
 * stand-in of fixtures/repos/eslint-stub, which loads its configuration as ESLint does.
 */

/** Code a pull request slips in: it leaves a marker where the test can see it, then fails the lint. */
export const evil = (marker: string, esm: boolean): string =>
  `${esm ? 'import fs from "node:fs";' : 'const fs = require("node:fs");'}\ntry { fs.writeFileSync(${JSON.stringify(marker)}, "ran"); } catch {}\nthrow new Error("PR code ran");\n${esm ? "export default {};" : "module.exports = {};"}\n`;

/** What branch `pr` adds to src/app.js: one line the stand-in's prefer-const flags (line 3). */
export const APP_HEAD = "export const app = 1;\nexport function f() {\n  let x = 2;\n  return x;\n}\n";

/**
 * The user's clone, on main: an ESLint configuration importing ./tools/rules.js and the plugin
 * eslint-plugin-local (installed, ignored); the branch `pr` changes src/app.js to {@link APP_HEAD}
 * plus whatever `attack` writes (committed with `add -f`, ignored paths included). ESLint (the
 * stand-in) and the plugin are installed in node_modules. `marker` is where the attack's code writes.
 */
export function clone(attack: (dir: string, marker: string) => void): { dir: string; marker: string; base: string; head: string } {
  const root = tmpDir("trm-trust-");
  const dir = path.join(root, "repo");
  const marker = path.join(root, "pr-code-ran");
  mkdirSync(path.join(dir, "src"), { recursive: true });
  mkdirSync(path.join(dir, "tools"));
  writeFileSync(path.join(dir, ".gitignore"), "node_modules\n");
  writeFileSync(path.join(dir, "package.json"), '{ "name": "app", "private": true, "type": "module" }\n');
  writeFileSync(
    path.join(dir, "eslint.config.js"),
    'import rules from "./tools/rules.js";\nimport local from "eslint-plugin-local";\nexport default [{ files: ["**/*.js"], plugins: { local }, rules }];\n',
  );
  writeFileSync(path.join(dir, "tools", "rules.js"), 'export default { "prefer-const": "error" };\n');
  writeFileSync(path.join(dir, "src", "app.js"), "export const app = 1;\n");
  g(dir, "init", "-q", "-b", "main");
  g(dir, "add", "-A");
  g(dir, "commit", "-q", "-m", "base");
  const base = g(dir, "rev-parse", "HEAD").trim();
  g(dir, "checkout", "-q", "-b", "pr");
  writeFileSync(path.join(dir, "src", "app.js"), APP_HEAD);
  attack(dir, marker);
  g(dir, "add", "-A", "-f");
  g(dir, "commit", "-q", "-m", "pr");
  const head = g(dir, "rev-parse", "HEAD").trim();
  g(dir, "checkout", "-q", "main");
  const nm = path.join(dir, "node_modules");
  cpSync(path.join(ROOT, "fixtures", "repos", "eslint-stub"), path.join(nm, "eslint"), { recursive: true });
  mkdirSync(path.join(nm, ".bin"));
  writeFileSync(path.join(nm, ".bin", "eslint"), `#!/bin/sh\nexec node "$(dirname "$0")/../eslint/bin/eslint.js" "$@"\n`);
  chmodSync(path.join(nm, ".bin", "eslint"), 0o755);
  mkdirSync(path.join(nm, "eslint-plugin-local"));
  writeFileSync(path.join(nm, "eslint-plugin-local", "package.json"), '{ "name": "eslint-plugin-local", "main": "index.js", "type": "commonjs" }\n');
  writeFileSync(path.join(nm, "eslint-plugin-local", "index.js"), "module.exports = { rules: {} };\n");
  return { dir, marker, base, head };
}
