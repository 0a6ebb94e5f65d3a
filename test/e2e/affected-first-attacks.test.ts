import { symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { installRunners, RUNNERS } from "../helpers/real-runners.js";
import { checkoutState, repoFromFiles, tmpDir } from "../helpers/repo.js";

/**
 * Affected first where the runner's related tests are not a subset of what the test command runs, and
 * steps that game the related run; jest and vitest run for real through the real server.
 */

type Any = Record<string, any>;

let srv: TestServer;
beforeAll(async () => {
  installRunners();
  srv = await startServer({ env: { TMPDIR: tmpDir("trm-afa-tmp-") } });
}, 600_000);
afterAll(async () => {
  await srv?.close();
});

const submit = (sessionId: string, changes: Record<string, string>, rationale: string) =>
  srv.call<Any>("trm_submit_candidate", {
    sessionId,
    candidate: { mode: "files", files: Object.entries(changes).map(([p, content]) => ({ path: p, content })) },
    rationale,
  });

const CLAMP = "exports.clamp = (x, lo, hi) => Math.min(hi, Math.max(lo, x));\n";
const req = 'const { clamp } = require("../../lib/clamp.js");\n';

describe.concurrent("affected first attacks, run for real", () => {
  it("jest --testPathPatterns: a test the command leaves out (jest relates it anyway) never judges a step", async () => {
    const repo = repoFromFiles(
      {
        ".gitignore": "node_modules\n",
        "package.json": '{"name":"calc","private":true}\n',
        "lib/clamp.js": CLAMP,
        "test/unit/clamp.test.js": `${req}test("inside", () => { expect(clamp(5, 0, 10)).toBe(5); });\ntest("below", () => { expect(clamp(-1, 0, 10)).toBe(0); });\n`,
        // Left out of the suite by the command: it fails, and always has.
        "test/slow/clamp.test.js": `${req}test("slow", () => { expect(clamp(5, 0, 10)).toBe(6); });\n`,
      },
      "trm-afa-",
    );
    symlinkSync(path.join(RUNNERS, "node_modules"), path.join(repo, "node_modules"));
    const before = checkoutState(repo);
    const s = await srv.call<Any>("trm_start_session", {
      repoPath: repo,
      testCmd: "npx jest --json --testPathPatterns=test/unit",
      preflight: true,
      linkPaths: ["node_modules"],
    });
    expect(s.preflight.tests).toMatchObject({ passed: 2, failed: 0 });
    expect(s.notes.join("\n")).toMatch(/Affected first: not available \(with --testPathPatterns, the tests Jest relates to a file may be ones/);
    const r = await submit(s.sessionId, { "lib/clamp.js": `${CLAMP}// same clamp\n` }, "a comment");
    expect(r.partial, r.feedback).toBeUndefined();
    expect(r.tests).toMatchObject({ passed: 2, failed: 0, total: 2 });
    expect(r.score).toBe(1);
    expect(r.shouldHalt).toBe(true);
    expect(checkoutState(repo)).toEqual(before);
    await srv.call("trm_end_session", { sessionId: s.sessionId, discard: true });
  }, 240_000);
});
