// A field trial of one real bug fix through the real server (MCP over stdio, as a client uses it): the
// baseline (the fix's test applied, the fix not) is scored by preflight, then each candidate in turn, and
// every step's test counts, failing tests, score and halt are printed, to compare with the runner's own
// JSON/JUnit report run by hand at the same states (issue 22).
// Run: npm run build && node bench/field-trial.mjs <checkout> '<testCmd>' <wrong.patch> [...] <right.patch> [--sandbox]
// <checkout>'s HEAD is the baseline; each patch is a diff against it (git diff), so the states do not
// depend on each other. The first is sent as mode "patch", the later ones as mode "files" (the patch's
// result, computed in a scratch index, for every file an earlier step touched too). The checkout and its
// index are never changed; the session is discarded at the end. CODE_TRM_STATE_DIR is passed on.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const args = process.argv.slice(2);
const sandbox = args.includes("--sandbox");
const [repo, testCmd, ...patches] = args.filter((a) => a !== "--sandbox");
if (!repo || !testCmd || patches.length === 0) {
  console.error("usage: node bench/field-trial.mjs <checkout> '<testCmd>' <patch>... [--sandbox]");
  process.exit(2);
}
const repoPath = path.resolve(repo);
const scratch = mkdtempSync(path.join(tmpdir(), "trm-trial-"));
const pathsOf = (patch) => [...patch.matchAll(/^\+\+\+ b\/(.+)$/gm)].map((m) => m[1]);

/** The files of one state: HEAD with the patch applied, in a scratch index (the checkout is not touched). */
function filesOf(patchFile, paths) {
  const env = { ...process.env, GIT_INDEX_FILE: path.join(scratch, "index") };
  const git = (...a) => execFileSync("git", a, { cwd: repoPath, encoding: "utf8", env });
  git("read-tree", "HEAD");
  git("apply", "--cached", path.resolve(patchFile));
  return [...paths].map((p) => ({ path: p, content: git("show", `:${p}`) }));
}

const client = new Client({ name: "field-trial", version: "0" });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [path.resolve(import.meta.dirname, "../dist/cli/main.js")],
    env: process.env,
    stderr: "inherit",
  }),
);
const call = async (name, a) => {
  const r = await client.callTool({ name, arguments: a }, undefined, { timeout: 1_800_000, resetTimeoutOnProgress: true });
  if (r.isError) throw new Error(`${name}: ${r.content.map((c) => c.text).join("\n")}`);
  return r.structuredContent;
};
const row = (step, e, halt) => {
  const t = e.tests;
  console.log(
    JSON.stringify({
      step,
      score: e.score,
      tests: t ? { passed: t.passed, failed: t.failed, skipped: t.skipped, total: t.total, format: t.format } : null,
      failures: (t?.failures ?? []).map((f) => f.name),
      shouldHalt: halt.shouldHalt,
      reasons: halt.reasons,
    }),
  );
};

let sessionId;
try {
  const start = await call("trm_start_session", { repoPath, testCmd, preflight: true, timeoutSec: 900, ...(sandbox ? { sandbox: true } : {}) });
  sessionId = start.sessionId;
  row("baseline", start.preflight, await call("trm_should_halt", { sessionId }));
  const touched = new Set();
  for (const [k, file] of patches.entries()) {
    const patch = readFileSync(file, "utf8");
    for (const p of pathsOf(patch)) touched.add(p);
    const candidate = k === 0 ? { mode: "patch", patch } : { mode: "files", files: filesOf(file, touched) };
    const r = await call("trm_submit_candidate", { sessionId, candidate, rationale: path.basename(file) });
    row(path.basename(file), r, r);
  }
} finally {
  if (sessionId) await call("trm_end_session", { sessionId, discard: true });
  await client.close();
  rmSync(scratch, { recursive: true, force: true });
}
