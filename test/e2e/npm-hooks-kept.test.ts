import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, textOf } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { repoFromFiles } from "../helpers/repo.js";

/**
 * Hooks of the test script that must run as npm runs them (found by a fresh-eyes attack on e7b1032, which
 * ran `npm test --ignore-scripts` whenever the test script had hooks):
 * - a posttest that runs more tests (`node --test test/more`) was left out, so a failing test there never
 *   ran and a candidate that changed nothing halted with success; only a post hook of checkers is left out;
 * - npm passes --ignore-scripts down to the npm the test script runs (npm_config_ignore_scripts), so
 *   `"test": "npm run test:unit"` lost `pretest:unit`, which writes a file the tests read; with such a hook
 *   the command stays `npm test`.
 * Each start says the hooks run as part of the tests. node --test needs no install.
 */
type Any = Record<string, any>;
const lib = (body: string) => `exports.clamp = (x, lo, hi) => ${body};\n`;
const unit = `const test = require("node:test");
const assert = require("node:assert");
const { clamp } = require("../../lib.js");
test("inside stays", () => assert.strictEqual(clamp(5, 0, 10), 5));
test("above falls to hi", () => assert.strictEqual(clamp(11, 0, 10), 10));
`;
const below = `const test = require("node:test");
const assert = require("node:assert");
const { clamp } = require("../../lib.js");
test("below rises to lo", () => assert.strictEqual(clamp(-1, 0, 10), 0));
`;

function repo(scripts: Record<string, string>, files: Record<string, string>): string {
  return repoFromFiles(
    {
      // A checker installed as a package (node_modules/eslint) is committed here when a script runs it.
      ".gitignore": Object.keys(files).some((f) => f.startsWith("node_modules/")) ? "gen.json\n" : "node_modules\ngen.json\n",
      "package.json": JSON.stringify({ name: "calc", private: true, scripts }),
      "package-lock.json": '{ "lockfileVersion": 3 }\n',
      "lib.js": lib("Math.min(hi, x)"),
      ...files,
    },
    "trm-hooks-kept-",
  );
}

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
}, 120_000);
afterAll(async () => {
  await srv?.close();
});

async function start(r: string): Promise<Any> {
  const raw = await srv.raw("trm_start_session", { repoPath: r, preflight: true, selectTests: false });
  expect(raw.isError, textOf(raw)).toBeFalsy();
  return raw.structuredContent as Any;
}

/** A step that leaves the bug in place (whitespace only) while a kept hook's tests fail: no success. */
async function expectNoSuccessUnchanged(s: Any): Promise<void> {
  const step = await srv.call<Any>("trm_submit_candidate", {
    sessionId: s.sessionId,
    candidate: filesCandidate("lib.js", lib("Math.min(hi, x)  ")),
    rationale: "nothing changed",
  });
  expect(step.score, `${JSON.stringify(s.detected)}\n${step.feedback}`).toBeLessThan(1);
  expect(step.shouldHalt).toBe(false);
}

describe.concurrent("hooks that detection keeps in the test command", () => {
  it("a posttest that runs more tests is not left out: a fix that breaks only those tests does not halt with success", async () => {
    const r = repo({ test: "node --test test/unit", posttest: "node --test test/more" }, { "test/unit/clamp.test.js": unit, "test/more/below.test.js": below });
    const s = await start(r);
    expect(s.detected.commands).toEqual({ testCmd: "npm test" });
    expect(s.notes.join("\n")).toContain(
      'testCmd "npm test" runs its hooks: npm runs scripts.posttest ("node --test test/more") after scripts.test; it runs more than checkers',
    );
    // At baseline the bug (no lo) fails test/more's test: `npm test` exits 1.
    await expectNoSuccessUnchanged(s);
  }, 180_000);

  it("the test script's own `npm run test:unit` keeps its pretest:unit hook (it writes a file the tests read): the right fix scores 1", async () => {
    const reads = `const test = require("node:test");
const assert = require("node:assert");
const { clamp } = require("../lib.js");
const { lo } = require("../gen.json");
test("below rises to lo", () => assert.strictEqual(clamp(-1, lo, 10), lo));
test("inside stays", () => assert.strictEqual(clamp(5, lo, 10), 5));
`;
    // The posttest only checks (read as eslint) and passes: alone it would be left out. `npm test --ignore-scripts`
    // sets npm_config_ignore_scripts for the script, so the inner `npm run test:unit` would skip pretest:unit.
    const r = repo(
      { test: "npm run test:unit", "pretest:unit": "node gen.js", "test:unit": "node --test test/", posttest: "node node_modules/eslint/bin/eslint.js" },
      {
        "gen.js": 'require("fs").writeFileSync("gen.json", JSON.stringify({ lo: 0 }));\n',
        "node_modules/eslint/bin/eslint.js": "process.exit(0);\n",
        "test/clamp.test.js": reads,
      },
    );
    const s = await start(r);
    expect(s.detected.commands).toEqual({ testCmd: "npm test" });
    expect(s.notes.join("\n")).toContain(
      'testCmd "npm test" runs its hooks: scripts.test runs a script through npm that has a hook of its own, scripts.pretest:unit; --ignore-scripts would leave that out too',
    );
    expect(s.preflight.tests, JSON.stringify(s.detected)).toMatchObject({ passed: 1, failed: 1 });
    const step = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesCandidate("lib.js", lib("Math.max(lo, Math.min(hi, x))")),
      rationale: "clamp to lo as well",
    });
    expect(step.score, step.feedback).toBe(1);
    expect(step.shouldHalt).toBe(true);
  }, 180_000);

  it("a workspace's posttest reached by `npm test --workspaces` is not left out (h24: the root's type-check posttest had it dropped)", async () => {
    // The workspace's posttest runs the test the bug fails; npm's --ignore-scripts would reach it through the inner npm.
    const r = repo(
      { test: "npm test --workspaces", posttest: "node node_modules/eslint/bin/eslint.js" },
      {
        "package.json": JSON.stringify({
          name: "calc",
          private: true,
          workspaces: ["packages/*"],
          scripts: { test: "npm test --workspaces", posttest: "node node_modules/eslint/bin/eslint.js" },
        }),
        "node_modules/eslint/bin/eslint.js": "process.exit(0);\n",
        "packages/core/package.json": JSON.stringify({ name: "core", scripts: { test: "node --test test/unit", posttest: "node --test test/more" } }),
        "packages/core/test/unit/clamp.test.js": unit.replaceAll("../../lib.js", "../../../../lib.js"),
        "packages/core/test/more/below.test.js": below.replaceAll("../../lib.js", "../../../../lib.js"),
      },
    );
    const s = await start(r);
    expect(s.detected.commands).toEqual({ testCmd: "npm test" });
    expect(s.notes.join("\n")).toContain("scripts.posttest of packages/core/package.json may be a hook of one of them");
    await expectNoSuccessUnchanged(s);
  }, 180_000);
});
