import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAMP_BODIES as BODIES, CLAMP, clampLib as lib } from "../helpers/clamp-suite.js";
import { startServer, type TestServer } from "../helpers/client.js";
import { commandsRan, filesOf } from "../helpers/fixtures.js";
import { checkoutState, repoFromFiles, tmpDir } from "../helpers/repo.js";

/**
 * Failing first with `node --test` (docs/failing-first.md), run for real through the real server: where node
 * discovers the test files itself, the failing tests' files (where each was declared: TAP's `location`) are
 * given as file arguments, so that no other test file starts a process (each file prints `LOADED <file>`
 * when it loads). A test declared in a helper under `test/` (a file node runs, but not where its tests run
 * from) makes the selection miss it: the whole suite runs and judges the step. A helper node does not
 * discover is not given: the names alone select, as before.
 */

type Any = Record<string, any>;

const HEAD = 'import { describe, test } from "node:test";\nimport assert from "node:assert/strict";\nimport { add, clamp } from "../lib.js";';
const loaded = (file: string) => `console.log(${JSON.stringify(`LOADED ${file}`)});`;
/** A test file of `n` passing tests that says when it loads. */
const passing = (file: string, n: number) =>
  `${HEAD}\n${loaded(file)}\n${Array.from({ length: n }, (_, i) => `test("${file}: ${i}", () => assert.equal(add(${i}, 1), ${i + 1}));`).join("\n")}\n`;
/** `add` and the five clamp tests, two of which fail at the baseline. */
const clampTests = (file: string) =>
  `${HEAD}\n${loaded(file)}\ntest("add: two and three", () => assert.equal(add(2, 3), 5));\ndescribe("clamp", () => {\n${CLAMP.map(([n, a, b]) => `  test(${JSON.stringify(n)}, () => assert.equal(${a}, ${b}));`).join("\n")}\n});\n`;
/** A helper declaring the two clamp tests that fail, for the test file that imports it. */
const helper = (libPath: string) =>
  `import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { clamp } from ${JSON.stringify(libPath)};\nexport const declareBounds = (p) => {\n  test(p + " above falls to hi", () => assert.equal(clamp(11, 0, 10), 10));\n  test(p + " far above falls to hi", () => assert.equal(clamp(100, 0, 10), 10));\n};\n`;
const usesHelper = (file: string, from: string) =>
  `${HEAD}\nimport { declareBounds } from ${JSON.stringify(from)};\n${loaded(file)}\ntest("inside stays", () => assert.equal(clamp(5, 0, 10), 5));\ndeclareBounds("bounds:");\n`;

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ env: { TMPDIR: tmpDir("trm-ffn-tmp-") } });
}, 120_000);
afterAll(async () => {
  await srv?.close();
});

const submit = (sessionId: string, files: Record<string, string>, rationale: string) =>
  srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesOf(files), rationale });
const ran = commandsRan;
const start = async (files: Record<string, string>) => {
  const repo = repoFromFiles({ "package.json": '{ "name": "calc", "private": true, "type": "module" }\n', "lib.js": lib(BODIES.bug), ...files }, "trm-ffn-");
  const before = checkoutState(repo);
  const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", preflight: true, timeoutSec: 300 });
  return { repo, before, id: s.sessionId as string, s };
};
const log = async (id: string, at: string, command: string) =>
  ((await srv.call<Any>("trm_read_log", { sessionId: id, at, command, limit: 200_000 })).content as string) ?? "";

describe.concurrent("failing first with node --test: the failing tests' files", () => {
  it("runs only the failing tests' file (a name with a space and a quote, one shell word); the right fix runs the whole suite", async () => {
    const clampFile = "test/clamp it's.test.js";
    const { repo, before, id, s } = await start({
      [clampFile]: clampTests(clampFile),
      "test/more.test.js": passing("test/more.test.js", 3),
      "test/other.test.js": passing("test/other.test.js", 2),
    });
    expect(s.preflight.tests).toMatchObject({ passed: 9, failed: 2 });

    const same = await submit(id, { "lib.js": lib(BODIES.same) }, "a change that fixes nothing");
    const state = await srv.call<Any>("trm_get_state", { sessionId: id });
    const selected = await log(id, "1", "test");
    expect(same.partial, `${same.feedback}\n${selected}`).toBe(true);
    expect(same.ran).toBe("2 of 11");
    expect(same.tests).toMatchObject({ passed: 9, failed: 2, total: 11 });
    expect(state.last.commands.map((x: Any) => x.cmd)).toEqual([
      "node --test '--test-name-pattern' '^(?:clamp above falls to hi|above falls to hi|clamp far above \\(100\\) falls to hi|far above \\(100\\) falls to hi)$' 'test/clamp it'\\''s.test.js'",
    ]);
    // Only that file started: the others never loaded.
    expect(selected).toContain(`LOADED ${clampFile}`);
    expect(selected).not.toMatch(/LOADED test\/(more|other)\.test\.js/);

    const right = await submit(id, { "lib.js": lib(BODIES.right) }, "clamp to both bounds");
    expect(right.partial).toBeUndefined();
    expect(ran(right)).toEqual(expect.arrayContaining(["failingFirst", "test"]));
    expect(right.feedback).toMatch(/Failing first: the 2 tests that failed at step 0 pass now, so the whole suite ran/);
    expect(await log(id, "2", "test")).toMatch(/LOADED test\/other\.test\.js/);
    expect(right.tests).toMatchObject({ passed: 11, failed: 0 });
    expect(right.score).toBe(1);
    expect(checkoutState(repo)).toEqual(before);
    await srv.call("trm_end_session", { sessionId: id, discard: true });
  }, 300_000);

  it("a test declared in a helper under test/: the selection misses it and the whole suite judges the step", async () => {
    const { repo, before, id, s } = await start({
      "test/helpers/bounds.js": helper("../../lib.js"),
      "test/bounds.test.js": usesHelper("test/bounds.test.js", "./helpers/bounds.js"),
      "test/more.test.js": passing("test/more.test.js", 3),
    });
    // Node 20 also counts the helper, run as a test file of no test, as one passing test.
    expect(s.preflight.tests).toMatchObject({ failed: 2 });
    expect(s.preflight.tests.passed).toBeGreaterThanOrEqual(4);

    const same = await submit(id, { "lib.js": lib(BODIES.same) }, "a change that fixes nothing");
    const state = await srv.call<Any>("trm_get_state", { sessionId: id });
    expect(same.partial, same.feedback).toBeUndefined();
    expect(state.last.commands.map((x: Any) => x.cmd)).toEqual([expect.stringMatching(/ 'test\/helpers\/bounds\.js'$/), "node --test"]);
    expect(same.feedback).toMatch(/Failing first: (the selection matched no test|.*did not run among the selected tests)/);
    // The whole suite's verdict: the same two failures, nothing guessed.
    expect(same.tests).toMatchObject({ passed: s.preflight.tests.passed, failed: 2 });
    expect(await log(id, "1", "test")).toMatch(/LOADED test\/more\.test\.js/);
    expect(checkoutState(repo)).toEqual(before);
    await srv.call("trm_end_session", { sessionId: id, discard: true });
  }, 300_000);

  it("a test declared in a helper node does not discover: no file is given, the names alone select", async () => {
    const { repo, before, id, s } = await start({
      "support/bounds.js": helper("../lib.js"),
      "test/bounds.test.js": usesHelper("test/bounds.test.js", "../support/bounds.js"),
      "test/more.test.js": passing("test/more.test.js", 3),
    });
    expect(s.preflight.tests).toMatchObject({ passed: 4, failed: 2 });

    const same = await submit(id, { "lib.js": lib(BODIES.same) }, "a change that fixes nothing");
    const state = await srv.call<Any>("trm_get_state", { sessionId: id });
    expect(same.partial, same.feedback).toBe(true);
    expect(same.ran).toBe("2 of 6");
    expect(state.last.commands.map((x: Any) => x.cmd)).toEqual([
      "node --test '--test-name-pattern' '^(?:bounds: above falls to hi|bounds: far above falls to hi)$'",
    ]);
    expect(checkoutState(repo)).toEqual(before);
    await srv.call("trm_end_session", { sessionId: id, discard: true });
  }, 300_000);
});
