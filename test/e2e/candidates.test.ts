import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, textOf } from "../helpers/client.js";
import { checkoutState, g, makeRepo } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
let repo: string;
let id: string;
let wt: string;
let before: ReturnType<typeof checkoutState>;

beforeAll(async () => {
  srv = await startServer();
  repo = makeRepo("js-stats");
  before = checkoutState(repo);
  const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
  id = s.sessionId;
  wt = s.worktreePath;
});
afterAll(async () => {
  await srv.close();
  expect(checkoutState(repo)).toEqual(before);
});

const FIX_PATCH = `--- a/src/stats.js
+++ b/src/stats.js
@@ -11,3 +11,4 @@ export function mean(xs) {
   const s = [...xs].sort((a, b) => a - b);
-  return s[Math.floor(s.length / 2)];
+  const mid = Math.floor(s.length / 2);
+  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
 }
`;

describe("candidates over stdio", () => {
  it("validates without writing anything: preview, then the same patch submitted", async () => {
    const v = await srv.call<Any>("trm_validate_candidate", { sessionId: id, candidate: { mode: "patch", patch: FIX_PATCH } });
    expect(v.valid).toBe(true);
    expect(v.preview).toMatchObject({ filesAffected: ["src/stats.js"], linesAdded: 2, linesRemoved: 1 });
    expect(v.preview.files[0].excerpts[0].after.join("\n")).toContain("const mid");
    expect(g(wt, "status", "--porcelain")).toBe("");
    // The @@ header says line 11, the code is at 10-12: placed by search, reported as fuzz.
    const s = await srv.call<Any>("trm_submit_candidate", { sessionId: id, candidate: { mode: "patch", patch: FIX_PATCH }, rationale: "fix median" });
    expect(s).toMatchObject({ step: 1, score: 1 });
    expect(s.warnings.join("\n")).toMatch(/fuzz/);
  });

  it("reports a patch that matches nowhere with the closest lines, and changes nothing", async () => {
    const stale =
      "--- a/src/stats.js\n+++ b/src/stats.js\n@@ -1,3 +1,3 @@\n export function sum(values) {\n-  return values.reduce((a, b) => a + b);\n+  return values.reduce((a, b) => a + b, 0);\n }\n";
    const v = await srv.call<Any>("trm_validate_candidate", { sessionId: id, candidate: { mode: "patch", patch: stale } });
    expect(v.valid).toBe(false);
    expect(v.errors[0]).toMatchObject({ file: "src/stats.js", hunk: 1 });
    expect(v.errors[0].closest.line).toBe(1);
    expect(v.errors[0].closest.score).toBeGreaterThan(0.5);
    expect(v.errors[0].closest.score).toBeLessThan(1);
    const r = await srv.raw("trm_submit_candidate", { sessionId: id, candidate: { mode: "patch", patch: stale } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/closest \(line 1, similarity/);
    expect((await srv.call<Any>("trm_get_state", { sessionId: id })).step).toBe(1);
    expect(g(wt, "status", "--porcelain")).toBe("");
  });

  it("applies modify edits and per-file diffs", async () => {
    const m = await srv.call<Any>("trm_submit_candidate", {
      sessionId: id,
      candidate: {
        mode: "modify",
        changes: [
          {
            file: "src/stats.js",
            edits: [
              { type: "replace", oldText: "xs.length === 0 ? NaN", newText: "xs.length === 0 ? 0" },
              { type: "insertBefore", line: 1, content: "// stats helpers" },
            ],
          },
        ],
      },
    });
    expect(m.step).toBe(2);
    const text = readFileSync(path.join(wt, "src/stats.js"), "utf8");
    expect(text.startsWith("// stats helpers\nexport function sum")).toBe(true);
    expect(text).toContain("xs.length === 0 ? 0 :");
    const d = await srv.call<Any>("trm_submit_candidate", {
      sessionId: id,
      candidate: {
        mode: "diff",
        diffs: [{ path: "package.json", diff: '@@ -1,3 +1,3 @@\n {\n-  "name": "js-stats",\n+  "name": "js-stats-fixed",\n   "private": true,' }],
      },
    });
    expect(d.step).toBe(3);
    expect(readFileSync(path.join(wt, "package.json"), "utf8")).toContain('"js-stats-fixed"');
  });

  it("refuses invalid candidates in validation with every problem listed", async () => {
    const v = await srv.call<Any>("trm_validate_candidate", {
      sessionId: id,
      candidate: {
        mode: "modify",
        changes: [
          {
            file: "src/stats.js",
            edits: [
              { type: "replaceLine", line: 999, content: "x" },
              { type: "replace", oldText: "no such text", newText: "y" },
            ],
          },
        ],
      },
    });
    expect(v.valid).toBe(false);
    expect(v.errors.length).toBe(2);
    const shape = await srv.call<Any>("trm_validate_candidate", { sessionId: id, candidate: { mode: "bogus" } });
    expect(shape.valid).toBe(false);
    expect(shape.errors[0].message).toMatch(/mode/);
  });

  it("suggests a cheaper mode when a whole large file was sent to change a few lines", async () => {
    const big = Array.from({ length: 400 }, (_, i) => `export const v${i} = ${i};`).join("\n") + "\n";
    await srv.call("trm_submit_candidate", { sessionId: id, candidate: { mode: "create", files: [{ path: "src/big.js", content: big }] } });
    const changed = big.replace("export const v200 = 200;", "export const v200 = 2000;");
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: id, candidate: { mode: "files", files: [{ path: "src/big.js", content: changed }] } });
    expect(r.modeSuggestion).toMatch(/modify|patch/);
  });
});
