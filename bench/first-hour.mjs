// The first hour on a real project (issue 24), through the real server over stdio: for each repository
// of a trial file, a bug is committed into the checkout (a scratch clone), then a session is started with
// `repoPath` alone (its commands detected), a wrong fix is submitted, undone, the right fix submitted,
// and `code-trm apply` brings it into the checkout. Printed per repository: the detected commands, each
// step's score, tests and whether the verdict is right, and the o200k tokens of every reply's text.
// Run: npm run build && node bench/first-hour.mjs <trial.json> [--json]
// trial.json: [{ "name", "path" (a clone; its HEAD is reset to where it was at the end), "file",
//   "original" (text in file), "bug" (what the bug makes of it), "wrong" (a wrong fix of the bug) }]
// The right fix is `original` again. CODE_TRM_STATE_DIR is passed on (a temporary one by default).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

const args = process.argv.slice(2);
const asJson = args.includes("--json");
const trialFile = args.find((a) => !a.startsWith("--"));
if (!trialFile) {
  console.error("usage: node bench/first-hour.mjs <trial.json> [--json]");
  process.exit(2);
}
const trial = JSON.parse(readFileSync(trialFile, "utf8"));
const MAIN = path.resolve(import.meta.dirname, "../dist/cli/main.js");
const state = process.env.CODE_TRM_STATE_DIR ?? mkdtempSync(path.join(tmpdir(), "trm-first-hour-"));
const git = (cwd, ...a) => execFileSync("git", a, { cwd, encoding: "utf8" }).trim();

const client = new Client({ name: "first-hour", version: "0" });
await client.connect(
  new StdioClientTransport({ command: process.execPath, args: [MAIN], env: { ...process.env, CODE_TRM_STATE_DIR: state }, stderr: "inherit" }),
);

/** A tool call: its structured result, the text the model reads, and that text's tokens. */
async function call(name, a) {
  const r = await client.callTool({ name, arguments: a }, undefined, { timeout: 1_800_000, resetTimeoutOnProgress: true });
  const text = r.content.map((c) => c.text ?? "").join("\n");
  if (r.isError) throw new Error(`${name}: ${text}`);
  return { s: r.structuredContent, text, tokens: countTokens(text) };
}

const testsOf = (t) => (t ? `${t.passed ?? "?"}/${t.failed ?? "?"}/${t.total ?? "?"}` : "unread");
const results = [];
for (const repo of trial) {
  const top = path.resolve(repo.path);
  const head = git(top, "rev-parse", "HEAD");
  const file = path.join(top, repo.file);
  const original = readFileSync(file, "utf8");
  if (!original.includes(repo.original)) throw new Error(`${repo.name}: ${repo.file} does not contain the original text`);
  const row = { name: repo.name, steps: [], tokens: {} };
  let sessionId;
  try {
    // The bug, committed in the checkout as a user's last commit would be.
    writeFileSync(file, original.replace(repo.original, repo.bug));
    git(top, "-c", "user.name=trial", "-c", "user.email=trial@example.com", "commit", "-qam", "inject bug");
    const t0 = Date.now();
    const start = await call("trm_start_session", { repoPath: top });
    sessionId = start.s.sessionId;
    row.detected = start.s.detected?.commands ?? null;
    row.why = start.s.detected?.why ?? null;
    row.notes = start.s.notes ?? [];
    row.tokens.start = start.tokens;
    row.startText = start.text;
    const edit = (from, to) => ({ mode: "modify", changes: [{ file: repo.file, edits: [{ type: "replace", oldText: from, newText: to }] }] });

    const wrong = await call("trm_submit_candidate", { sessionId, candidate: edit(repo.bug, repo.wrong), rationale: "wrong fix" });
    row.tokens.wrong = wrong.tokens;
    row.steps.push({
      step: "wrong fix",
      score: wrong.s.score,
      tests: testsOf(wrong.s.tests),
      failures: (wrong.s.tests?.failures ?? []).map((f) => f.name).slice(0, 3),
      halt: wrong.s.shouldHalt,
      right: wrong.s.score < 1 && !wrong.s.shouldHalt,
      ms: wrong.s.commandsMs,
    });
    row.wrongFeedback = wrong.text;

    const undo = await call("trm_undo", { sessionId });
    row.tokens.undo = undo.tokens;
    row.steps.push({
      step: "undo",
      score: undo.s.score ?? null,
      right: undo.s.step === 0 && readFileSync(path.join(start.s.worktreePath, repo.file), "utf8").includes(repo.bug),
    });

    const right = await call("trm_submit_candidate", { sessionId, candidate: edit(repo.bug, repo.original), rationale: "right fix" });
    row.tokens.right = right.tokens;
    row.steps.push({
      step: "right fix",
      score: right.s.score,
      tests: testsOf(right.s.tests),
      halt: right.s.shouldHalt,
      right: right.s.score === 1 && right.s.shouldHalt && right.s.reasons[0]?.startsWith("success"),
      ms: right.s.commandsMs,
    });
    row.rightFeedback = right.text;

    const end = await call("trm_end_session", { sessionId });
    row.tokens.end = end.tokens;
    sessionId = undefined;
    // As the user would: the first line of howToApply, run from another folder.
    const apply = end.s.howToApply[0].split("   #")[0].trim();
    const out = execFileSync("sh", ["-c", apply], { cwd: tmpdir(), encoding: "utf8", env: { ...process.env, CODE_TRM_STATE_DIR: state } });
    row.tokens.apply = countTokens(out);
    row.steps.push({
      step: "apply",
      right: readFileSync(file, "utf8") === original && git(top, "status", "--porcelain", "--untracked-files=no") === `M ${repo.file}`,
    });
    row.seconds = Math.round((Date.now() - t0) / 1000);
  } catch (err) {
    row.error = String(err.message ?? err).slice(0, 2000);
  } finally {
    if (sessionId) await call("trm_end_session", { sessionId, discard: true }).catch(() => undefined);
    git(top, "reset", "-q", "--hard", head);
  }
  results.push(row);
  if (!asJson) print(row);
}
await client.close();
if (!process.env.CODE_TRM_STATE_DIR) rmSync(state, { recursive: true, force: true });
if (asJson) console.log(JSON.stringify(results, null, 1));

function print(r) {
  console.log(`\n## ${r.name}${r.seconds ? ` (${r.seconds}s)` : ""}`);
  if (r.error) console.log(`ERROR: ${r.error}`);
  console.log(`detected: ${JSON.stringify(r.detected)}`);
  for (const [k, v] of Object.entries(r.why ?? {})) console.log(`  ${k}: ${v}`);
  for (const n of r.notes ?? []) console.log(`  note: ${n}`);
  for (const s of r.steps)
    console.log(
      `  ${s.step.padEnd(9)} score ${s.score === undefined ? "-    " : s.score === null ? "null " : s.score.toFixed(3)} tests ${s.tests ?? "-"} ${s.failures?.length ? `failing ${s.failures.join(", ")} ` : ""}${s.halt !== undefined ? `halt ${s.halt} ` : ""}right: ${s.right}`,
    );
  console.log(`  tokens: ${JSON.stringify(r.tokens)}`);
}
