/**
 * A test file the candidate resends with its current content is no change (models often resend files
 * they did not edit): protectTests accepts it, and neither the step's feedback nor its history says the
 * step changed it, in every mode that can write it (files, modify, patch) and in best of N. Found on
 * hukkin/tomli: the right fix plus an unchanged tests/test_error.py was refused under protectTests.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, textOf } from "../helpers/client.js";
import { MEDIAN_RIGHT, MEDIAN_WRONG, statsWith } from "../helpers/fixtures.js";
import { checkoutState, makeRepo } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const TEST_FILE = "test/stats.test.js";
const SUM_LINE = "  assert.equal(sum([1, 2, 3]), 6);";

/** js-stats (median wrong at the baseline), a session on it, and its test file's current content. */
async function session(extra: Any = {}) {
  const repo = makeRepo("js-stats");
  const before = checkoutState(repo);
  const s = await srv.call<Any>("trm_start_session", { repoPath: repo, selectTests: false, testCmd: "node --test", ...extra });
  return { repo, before, id: s.sessionId as string, tests: readFileSync(path.join(repo, TEST_FILE), "utf8"), fix: statsWith(repo, MEDIAN_RIGHT) };
}

const files = (f: Record<string, string>) => ({ mode: "files", files: Object.entries(f).map(([p, content]) => ({ path: p, content })) });
const history = async (id: string) => (await srv.call<Any>("trm_get_state", { sessionId: id })).history as Any[];

describe("a test file resent unchanged is no change", () => {
  it("protectTests: files mode with the unchanged test file and the fix is accepted; a real edit of it is still refused", async () => {
    const { repo, before, id, tests, fix } = await session({ protectTests: ["test/**"] });
    const edited = files({ "src/stats.js": fix, [TEST_FILE]: tests.replace("2.5", "1") });
    const refused = await srv.raw("trm_submit_candidate", { sessionId: id, candidate: edited });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/protects \(protectTests\): test\/stats\.test\.js \(modified, matches test\/\*\*\)\. Nothing was applied/);
    const st = await srv.call<Any>("trm_get_state", { sessionId: id });
    expect(st.step).toBe(0);
    expect(readFileSync(path.join(st.worktreePath, "src/stats.js"), "utf8")).toBe(readFileSync(path.join(repo, "src/stats.js"), "utf8"));

    const resent = files({ "src/stats.js": fix, [TEST_FILE]: tests });
    const v = await srv.call<Any>("trm_validate_candidate", { sessionId: id, candidate: resent });
    expect(v.valid).toBe(true);
    expect(v.preview.filesAffected).toEqual(["src/stats.js"]);
    // Before: refused, "The candidate changes test files this session protects … (modified)".
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: id, candidate: resent });
    expect(r.score).toBe(1);
    expect(r.tests).toMatchObject({ passed: 4, failed: 0 });
    expect(r.feedback).not.toMatch(/changed test files/);
    expect(r.warnings.join("\n")).toMatch(/test\/stats\.test\.js: content identical to the current file \(no change\)/);
    expect((await history(id)).at(-1).testFiles).toBeUndefined();
    expect(readFileSync(path.join(st.worktreePath, TEST_FILE), "utf8")).toBe(tests);
    await srv.call("trm_end_session", { sessionId: id, discard: true });
    expect(checkoutState(repo)).toEqual(before);
  });

  it("without protectTests the changed test files name the new test file, not the unchanged one", async () => {
    const { repo, before, id, tests, fix } = await session();
    const extra = 'import { test } from "node:test";\n\ntest("extra", () => {});\n';
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId: id,
      candidate: files({ "src/stats.js": fix, [TEST_FILE]: tests, "test/extra.test.js": extra }),
    });
    expect(r.score).toBe(1);
    // Before: "this step changed test files: test/stats.test.js (modified), test/extra.test.js (added)".
    expect(r.feedback).toMatch(/this step changed test files: test\/extra\.test\.js \(added\)(?!,)/);
    expect(r.feedback).not.toMatch(/stats\.test\.js \(modified\)/);
    expect((await history(id)).at(-1).testFiles).toEqual(["test/extra.test.js (added)"]);
    await srv.call("trm_end_session", { sessionId: id, discard: true });
    expect(checkoutState(repo)).toEqual(before);
  });

  it("protectTests: a modify or a patch whose result is the test file's content is accepted", async () => {
    const { repo, before, id } = await session({ protectTests: ["test/**"] });
    const same = { file: TEST_FILE, edits: [{ type: "replace", oldText: SUM_LINE, newText: SUM_LINE }] };
    const fixEdit = { type: "replace", oldText: "  return s[Math.floor(s.length / 2)];\n", newText: MEDIAN_RIGHT.split("\n").slice(2, 4).join("\n") + "\n" };
    // Before: refused, "… test/stats.test.js (modified, matches test/**)".
    const m = await srv.call<Any>("trm_submit_candidate", {
      sessionId: id,
      candidate: { mode: "modify", changes: [{ file: "src/stats.js", edits: [fixEdit] }, same] },
    });
    expect(m.score).toBe(1);
    expect(m.feedback).not.toMatch(/changed test files/);
    const patch = [
      `--- a/${TEST_FILE}`,
      `+++ b/${TEST_FILE}`,
      "@@ -5,3 +5,3 @@",
      ' test("sum adds numbers", () => {',
      `-${SUM_LINE}`,
      `+${SUM_LINE}`,
      " });",
      "--- a/src/stats.js",
      "+++ b/src/stats.js",
      "@@ -1,3 +1,4 @@",
      "+// Sums, means and medians.",
      " export function sum(xs) {",
      "   return xs.reduce((a, b) => a + b, 0);",
      " }",
      "",
    ].join("\n");
    const p = await srv.call<Any>("trm_submit_candidate", { sessionId: id, candidate: { mode: "patch", patch } });
    expect(p.step).toBe(2);
    expect(p.score).toBe(1);
    expect(p.feedback).not.toMatch(/changed test files/);
    expect((await history(id)).every((h) => h.testFiles === undefined)).toBe(true);
    await srv.call("trm_end_session", { sessionId: id, discard: true });
    expect(checkoutState(repo)).toEqual(before);
  });

  it("protectTests, best of N: candidates that resend the unchanged test file are evaluated and the fix is chosen", async () => {
    const { repo, before, id, tests, fix } = await session({ protectTests: ["test/**"] });
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId: id,
      candidates: [
        { candidate: files({ "src/stats.js": statsWith(repo, MEDIAN_WRONG), [TEST_FILE]: tests }) },
        { candidate: files({ "src/stats.js": fix, [TEST_FILE]: tests }) },
      ],
    });
    // Before: "No candidate could be evaluated", both refused by protectTests.
    expect(r.score).toBe(1);
    expect(r.candidates.map((c: Any) => c.verdict)).toEqual(["kept", "chosen"]);
    expect(r.feedback).not.toMatch(/changed test files/);
    expect((await history(id)).at(-1).testFiles).toBeUndefined();
    await srv.call("trm_end_session", { sessionId: id, discard: true });
    expect(checkoutState(repo)).toEqual(before);
  });
});
