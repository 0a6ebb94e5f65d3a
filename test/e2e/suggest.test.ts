import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { checkoutState, makeRepo, ROOT } from "../helpers/repo.js";

/**
 * The issue's end-to-end proof: a TypeScript project whose build fails on a missing import and an
 * implicit any gets, from trm_suggest_fix, candidates that make the build pass when submitted.
 * (Needs trm_get_suggestions / trm_suggest_fix registered in src/mcp/server.ts and a fresh `npm run build`.)
 */

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

type Any = Record<string, any>;
const tsc = `node ${path.join(ROOT, "node_modules", "typescript", "bin", "tsc")} -p .`;

async function brokenSession() {
  const repo = makeRepo("ts-fixable");
  const before = checkoutState(repo);
  const { sessionId } = await srv.call<Any>("trm_start_session", { repoPath: repo, buildCmd: tsc });
  const first = await srv.call<Any>("trm_submit_candidate", {
    sessionId,
    candidate: filesCandidate("NOTES.md", "Fixing the report module.\n"),
    rationale: "notes",
  });
  expect(first.okBuild).toBe(false);
  expect(first.diagnostics.map((d: Any) => [d.file, d.line, d.code])).toEqual([
    ["src/report.ts", 4, "TS2304"],
    ["src/report.ts", 7, "TS7006"],
  ]);
  return { repo, before, sessionId };
}

describe("trm_suggest_fix end to end", () => {
  it("the combined TypeScript fix makes the build pass", async () => {
    const { repo, before, sessionId } = await brokenSession();

    const sug = await srv.call<Any>("trm_get_suggestions", { sessionId });
    expect(sug.suggestions[0]).toMatchObject({ priority: "critical", category: "build", file: "src/report.ts", line: 4 });

    const fix = await srv.call<Any>("trm_suggest_fix", { sessionId });
    expect(fix.suggestions.length).toBeGreaterThanOrEqual(1);
    const [all] = fix.suggestions;
    expect(all).toMatchObject({ priority: "critical", fixer: "typescript" });
    expect(all.rationale).toMatch(/2 → 0 errors/);

    const step = await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: all.candidateToFix, rationale: all.rationale });
    expect(step).toMatchObject({ okBuild: true, score: 1, diagnostics: [] });
    // The user's checkout was never touched.
    expect(checkoutState(repo)).toEqual(before);
  });

  it("the single fixes, submitted one after the other, make the build pass too", async () => {
    const { sessionId } = await brokenSession();
    const fix = await srv.call<Any>("trm_suggest_fix", { sessionId });
    const singles = fix.suggestions.filter((s: Any) => !/^\d+ tsc errors/.test(s.issue));
    expect(singles.map((s: Any) => s.issue)).toEqual([
      "src/report.ts:4 TS2304 Cannot find name 'add'.",
      "src/report.ts:7 TS7006 Parameter 'value' implicitly has an 'any' type.",
    ]);
    let last: Any = {};
    for (const s of singles) last = await srv.call<Any>("trm_submit_candidate", { sessionId, candidate: s.candidateToFix, rationale: s.issue });
    expect(last).toMatchObject({ okBuild: true, score: 1 });
  });
});
