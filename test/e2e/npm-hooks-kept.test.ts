import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, textOf } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { repoFromFiles } from "../helpers/repo.js";

/**
 * Hooks of the test script that must run as npm runs them (found by a fresh-eyes attack on e7b1032, which
 * ran `npm test --ignore-scripts` whenever the test script had hooks):
 * - a posttest that runs more tests (`node --test test/more`) was left out, so a failing test there never
 *   ran and a candidate that changed nothing halted with success; only a post hook of checkers is left out.
 * The start says the hooks run as part of the tests. node --test needs no install.
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
      ".gitignore": "node_modules\ngen.json\n",
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

describe.concurrent("hooks that detection keeps in the test command", () => {
  it("a posttest that runs more tests is not left out: a fix that breaks only those tests does not halt with success", async () => {
    const r = repo({ test: "node --test test/unit", posttest: "node --test test/more" }, { "test/unit/clamp.test.js": unit, "test/more/below.test.js": below });
    const s = await start(r);
    expect(s.detected.commands).toEqual({ testCmd: "npm test" });
    expect(s.notes.join("\n")).toContain(
      'testCmd "npm test" runs its hooks: npm runs scripts.posttest ("node --test test/more") after scripts.test; it runs more than checkers',
    );
    // At baseline the bug (no lo) fails test/more's test: `npm test` exits 1.
    const step = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesCandidate("lib.js", lib("Math.min(hi, x)  ")),
      rationale: "nothing changed",
    });
    expect(step.score, `${JSON.stringify(s.detected)}\n${step.feedback}`).toBeLessThan(1);
    expect(step.shouldHalt).toBe(false);
  }, 180_000);
});
