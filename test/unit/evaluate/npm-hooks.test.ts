/** npm's hooks of the test script (npm-hooks.ts): which are left out with --ignore-scripts, and when the command stays as given. */
import { describe, expect, it } from "vitest";
import { hookPlan, hooksKept } from "../../../src/evaluate/npm-hooks.js";

describe("hookPlan", () => {
  it("leaves out a posttest that only checks, keeps one that runs tests", () => {
    expect(hookPlan("npm test", { test: "node --test", posttest: "eslint ." })?.command).toBe("npm test --ignore-scripts");
    expect(hookPlan("npm test", { test: "node --test", posttest: "node --test test/more" })).toMatchObject({ command: "npm test", kept: { post: true } });
  });

  it("keeps the hooks where the test script runs scripts through a script runner and another script has a hook", () => {
    // run-s test:* runs test:unit, whose pretest:unit npm's --ignore-scripts would reach (npm_config_ignore_scripts).
    const scripts = { test: "run-s test:*", "pretest:unit": "node gen.js", "test:unit": "node --test", posttest: "eslint ." };
    const plan = hookPlan("npm test", scripts);
    expect(plan).toMatchObject({ command: "npm test", kept: { inner: "pretest:unit", runner: true } });
    expect(hooksKept("test", plan!)).toMatch(
      /^scripts\.test runs scripts through a script runner .*scripts\.pretest:unit may be a hook of one of them; --ignore-scripts would leave that out too/,
    );
    // Through concurrently's npm: prefix, or a script the test script runs through npm.
    expect(hookPlan("npm test", { ...scripts, test: 'concurrently "npm:test:unit"' })?.command).toBe("npm test");
    expect(hookPlan("npm test", { ...scripts, test: "npm run all", all: "npm-run-all test:unit" })?.command).toBe("npm test");
    // A runner, but no other script has a hook: nothing it runs loses one.
    expect(hookPlan("npm test", { test: "run-s test:*", "test:unit": "node --test", posttest: "eslint ." })?.command).toBe("npm test --ignore-scripts");
    // A script only named like a hook is none (h24: `preview` beside no `view`).
    for (const named of ["preview", "prettier", "postcss"])
      expect(hookPlan("npm test", { test: "bash scripts/test.sh", posttest: "tsc --noEmit", [named]: "vite preview" })?.command, named).toBe(
        "npm test --ignore-scripts",
      );
    expect(hookPlan("npm test", { test: "bash scripts/test.sh", posttest: "tsc --noEmit", view: "x", preview: "y" })?.command).toBe("npm test");
    // A word that only looks like one is not a runner.
    expect(hookPlan("npm test", { ...scripts, test: "node --test test/run-s.test.js" })?.command).toBe("npm test --ignore-scripts");
  });

  it("keeps a hook that may run more than checkers, and hooks reached through npm in a form it does not read", () => {
    const base = { test: "node --test test/" };
    // A second command after the checker, a subshell, a pipe, a project's own script named like a checker.
    for (const posttest of [
      "eslint . ; node --test integration/",
      "eslint . || node --test it/",
      "(eslint .)",
      "eslint . | tee lint.log",
      "node scripts/eslint.js",
    ])
      expect(hookPlan("npm test", { ...base, posttest }), posttest).toMatchObject({ command: "npm test", kept: { post: true } });
    // A checker installed as a package, run by node, still only checks.
    expect(hookPlan("npm test", { ...base, posttest: "node node_modules/eslint/bin/eslint.js ." })?.command).toBe("npm test --ignore-scripts");
    // npm run with arguments, an environment prefix or a flag after the name: postunit may be reached, and npm's flag would skip it.
    const hooks = { posttest: "eslint .", unit: "node --test", postunit: "node --test integration/" };
    for (const test of ["npm run unit -- test/", "NODE_ENV=test npm run unit", "npm run unit --silent", "(npm run unit)"])
      expect(hookPlan("npm test", { ...hooks, test }), test).toMatchObject({ command: "npm test", kept: { inner: "postunit" } });
    expect(hookPlan("npm test", { ...hooks, test: "npm run unit" })).toMatchObject({ command: "npm test", kept: { inner: "postunit" } });
  });

  it("keeps the hooks where the test script runs a program of the project's own, and a post hook that does (the second attack)", () => {
    const hooks = { posttest: "eslint --version", unit: "node --test test/", postunit: "node --test it/" };
    // scripts/test.sh runs `npm run unit`: postunit is reached, and npm's flag would skip it.
    for (const test of ["bash scripts/test.sh", "./scripts/test.sh", "node scripts/run-tests.js", "node_modules/.bin/run-s unit"])
      expect(hookPlan("npm test", { ...hooks, test }), test).toMatchObject({ command: "npm test", kept: { inner: "postunit" } });
    // A project's own executable named like a checker runs what it likes.
    for (const posttest of ["./scripts/eslint", "scripts/xo ."])
      expect(hookPlan("npm test", { test: "node --test test/", posttest }), posttest).toMatchObject({ command: "npm test", kept: { post: true } });
    // The package's own binary is still a checker.
    for (const posttest of ["./node_modules/.bin/eslint .", "node_modules/.bin/xo"])
      expect(hookPlan("npm test", { test: "node --test test/", posttest })?.command, posttest).toBe("npm test --ignore-scripts");
  });

  it("keeps the hooks where the test script reaches another package's scripts, whose hooks npm's flag would skip (h24)", () => {
    const root = { posttest: "tsc --noEmit" };
    const core = () => ({ hook: "posttest", file: "packages/core/package.json" });
    // npm test --workspaces, a cd into the package, a make target: the workspace's posttest runs more tests.
    for (const test of ["npm test --workspaces", "cd packages/core && npm test", "make test", "just test"]) {
      const plan = hookPlan("npm test", { ...root, test }, core);
      expect(plan, test).toMatchObject({ command: "npm test", kept: { inner: "posttest", where: "packages/core/package.json", runner: true } });
      expect(hooksKept("test", plan!)).toMatch(/scripts\.posttest of packages\/core\/package\.json may be a hook of one of them/);
      // No hook anywhere else: nothing it reaches loses one.
      expect(hookPlan("npm test", { ...root, test }, () => undefined)?.command, test).toBe("npm test --ignore-scripts");
    }
    // A script that reaches no other package does not look for one.
    let looked = false;
    const plan = hookPlan("npm test", { ...root, test: "node --test test/" }, () => {
      looked = true;
      return core();
    });
    expect([plan?.command, looked]).toEqual(["npm test --ignore-scripts", false]);
  });

  it("looks into the hooks of a script a hook runs through npm (the third attack)", () => {
    // posttest runs `npm run style`, whose poststyle runs more tests: left out, they never ran.
    const scripts = { test: "node --test test/", posttest: "npm run style", style: "tsc --noEmit", poststyle: "node --test test/extra/" };
    expect(hookPlan("npm test", scripts)).toMatchObject({ command: "npm test", kept: { post: true } });
    // pretest runs `npm run lint`, whose prelint builds what the tests import: the pretest is needed, nothing is left out.
    expect(hookPlan("npm test", { test: "node --test", pretest: "npm run lint", lint: "eslint .", prelint: "node build.js" })).toBeUndefined();
    // A lint whose own hook only checks too is still left out.
    expect(hookPlan("npm test", { test: "node --test", posttest: "npm run lint", lint: "eslint .", postlint: "prettier --check ." })?.command).toBe(
      "npm test --ignore-scripts",
    );
  });
});
