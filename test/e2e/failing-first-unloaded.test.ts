/**
 * A test file that failed to load (Jest's "Test suite failed to run", real Jest 30 from fixtures/runners) is
 * named by its file and is no test: failing first does not select it. Selected, it ran alone again (on
 * microsoft/tsyringe a type error in the code under test broke 9 other files while the partial verdict said
 * "still failing" of that one), or matched no test once it loaded.
 */
import { symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { filesOf } from "../helpers/fixtures.js";
import { installRunners, RUNNERS } from "../helpers/real-runners.js";
import { checkoutState, repoFromFiles, tmpDir } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
beforeAll(async () => {
  installRunners();
  // A temporary folder of this file's own: Jest's cache (jest_0) goes there and is removed.
  srv = await startServer({ env: { TMPDIR: tmpDir("trm-unloaded-tmp-") } });
});
afterAll(async () => {
  await srv.close();
});

const LIB_TEST = `const lib = require("./lib");
if (typeof lib.add !== "function") throw new Error("lib.add is missing");
test("adds", () => expect(lib.add(1, 2)).toBe(3));
test("adds zero", () => expect(lib.add(0, 5)).toBe(5));
`;
const OTHER_TEST = `const { mul } = require("./lib");
test("multiplies", () => expect(mul(2, 3)).toBe(6));
`;

describe("failing first and a test file that failed to load", () => {
  it("runs the whole suite after it, once, without selecting the file as a test", async () => {
    const repo = repoFromFiles(
      {
        ".gitignore": "node_modules\n",
        "jest.config.js": "module.exports = {};\n",
        "lib.js": "exports.mul = (a, b) => a * b;\n",
        "lib.test.js": LIB_TEST,
        "other.test.js": OTHER_TEST,
      },
      "trm-unloaded-",
    );
    symlinkSync(path.join(RUNNERS, "node_modules"), path.join(repo, "node_modules"));
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "npx jest --ci", linkPaths: ["node_modules"], preflight: true });
    expect(s.preflight.tests).toMatchObject({ passed: 1, failed: 1 });
    expect(s.preflight.tests.failures.map((f: Any) => f.name)).toEqual(["lib.test.js"]);
    // add loads but is wrong for one test, and mul is broken too: the whole suite shows both.
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesOf({ "lib.js": "exports.mul = (a, b) => a + b;\nexports.add = (a, b) => a + b + (a === 0 ? 1 : 0);\n" }),
    });
    expect(r.partial).toBeUndefined();
    expect(r.feedback).not.toMatch(/Failing first/);
    expect(r.tests.failed).toBe(2);
    expect(checkoutState(repo)).toEqual(before);
  }, 120_000);
});
