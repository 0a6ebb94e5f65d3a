#!/usr/bin/env node
// Failing first on real projects (issue 25, docs/failing-first.md): how long a step waits for its verdict
// when the tests that failed run first, against the whole suite run directly, in the same run, interleaved.
//
//   npm run build && node bench/verdict.mjs <project.json>...
//
// A project file: { "name", "dir": a clone with its dependencies installed, "fix": the fix commit,
// "src": [the files the fix changes outside the tests], "testCmd", "linkPaths"?: ["node_modules"],
// "comment": "//" or "#" }. The bench copies `dir` twice into a scratch folder (one copy for the sessions,
// one for the direct runs; node_modules linked, never copied), commits there the baseline: the fix commit
// with its source files as they were before it (the fix's tests in, the fix out, so they fail). Then four
// steps, each sent to two sessions (failing first, and selectTests: false) and run directly:
//   baseline (preflight), wrong fix 1 and wrong fix 2 (the buggy source with a line of its own appended:
//   a change that fixes nothing, as most steps of a refinement loop), the right fix (the fix commit's source).
// Per step it prints the wall time of the whole suite run directly, of each session's submit (time to
// verdict, as the client waits for it), their ratio, and whether both sessions gave the same verdict
// (tests passing, failing tests, score, halt). The order is interleaved (direct, failing first, whole
// suite) at every step, so that load drift hits all three alike. `uptime` is printed before and after.
import { execFileSync, execSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node bench/verdict.mjs <project.json>...");
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, "..");
if (!existsSync(path.join(root, "dist/cli/main.js"))) {
  console.error("dist/ is missing: run `npm run build` first.");
  process.exit(1);
}
const scratch = mkdtempSync(path.join(tmpdir(), "trm-verdict-"));
const git = (cwd, ...a) => execFileSync("git", a, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

const client = new Client({ name: "verdict-bench", version: "0" });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [path.join(root, "dist/cli/main.js")],
    env: { ...process.env, CODE_TRM_STATE_DIR: path.join(scratch, "state") },
    stderr: "inherit",
  }),
);
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 1_800_000, resetTimeoutOnProgress: true });
  if (r.isError) throw new Error(`${name}: ${r.content.map((c) => c.text).join("\n")}`);
  return r.structuredContent;
};
const timed = async (f) => {
  const t0 = performance.now();
  const v = await f();
  return { v, ms: performance.now() - t0 };
};

/** A copy of the project at the baseline: the fix commit with its source files from before it, committed. */
function prepare(p, label) {
  const dir = path.join(scratch, `${p.name}-${label}`);
  git(scratch, "clone", "-q", "--no-hardlinks", p.dir, dir);
  git(dir, "checkout", "-q", "--detach", p.fix);
  for (const f of p.src) writeFileSync(path.join(dir, f), git(p.dir, "show", `${p.fix}^:${f}`));
  git(dir, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-am", "baseline: the fix's tests without the fix");
  for (const l of p.linkPaths ?? []) symlinkSync(path.join(p.dir, l), path.join(dir, l));
  return dir;
}

/** The source files of each step: buggy, buggy with a line appended (twice), fixed. */
function states(p) {
  const bug = Object.fromEntries(p.src.map((f) => [f, git(p.dir, "show", `${p.fix}^:${f}`)]));
  const fixed = Object.fromEntries(p.src.map((f) => [f, git(p.dir, "show", `${p.fix}:${f}`)]));
  const wrong = (k) =>
    Object.fromEntries(Object.entries(bug).map(([f, t]) => [f, `${t}${t.endsWith("\n") ? "" : "\n"}${p.comment ?? "//"} attempt ${k}: does not fix it\n`]));
  return [
    { step: "wrong fix 1", files: wrong(1) },
    { step: "wrong fix 2", files: wrong(2) },
    { step: "right fix", files: fixed },
  ];
}

/** The whole suite, run directly (as the user would) in the copy for direct runs at the same files. */
function direct(dir, cmd, files) {
  for (const [f, t] of Object.entries(files)) writeFileSync(path.join(dir, f), t);
  const t0 = performance.now();
  try {
    execSync(cmd, { cwd: dir, stdio: "ignore", env: { ...process.env, CI: "true" }, timeout: 900_000 });
  } catch {
    // A failing suite exits non-zero: its time is what is measured.
  }
  return performance.now() - t0;
}

const verdict = (r) => ({
  pass: !!r.tests && r.tests.failed === 0,
  failing: (r.tests?.failures ?? []).map((f) => f.name).sort(),
  score: Number(r.score.toFixed(6)),
  halt: r.shouldHalt ?? null,
});
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const fmt = (ms) => `${(ms / 1000).toFixed(2)}s`;

console.log(`uptime: ${execSync("uptime").toString().trim()}`);
const rows = [];
for (const file of files) {
  const p = JSON.parse(readFileSync(file, "utf8"));
  const ffDir = prepare(p, "ff");
  const wholeDir = prepare(p, "whole");
  const directDir = prepare(p, "direct");
  const start = (repoPath, extra) =>
    call("trm_start_session", { repoPath, testCmd: p.testCmd, preflight: true, timeoutSec: 900, ...(p.linkPaths ? { linkPaths: p.linkPaths } : {}), ...extra });
  const base = direct(directDir, p.testCmd, {});
  const ff = await timed(() => start(ffDir, {}));
  const whole = await timed(() => start(wholeDir, { selectTests: false }));
  const note = ff.v.notes?.find((n) => n.startsWith("failing first")) ?? "";
  console.log(`\n${p.name} (${p.testCmd}), fix ${p.fix.slice(0, 10)}: ${note}`);
  const print = (step, d, a, b, va, vb, partial) => {
    const ok = same(va, vb);
    rows.push({ project: p.name, step, direct: d, ff: a, whole: b, ratio: a / d, partial, same: ok });
    console.log(
      `  ${step.padEnd(12)} direct ${fmt(d).padStart(8)}  failing first ${fmt(a).padStart(8)} (${(a / d).toFixed(2)}x${partial ? `, partial ran ${partial}` : ""})  whole suite ${fmt(b).padStart(8)} (${(b / d).toFixed(2)}x)  verdicts ${ok ? "identical" : `DIFFER: ${JSON.stringify(va)} vs ${JSON.stringify(vb)}`}`,
    );
  };
  // The baseline is a full run in both sessions (start and preflight): printed for the suite's own time.
  print("baseline", base, ff.ms, whole.ms, verdict({ ...ff.v.preflight }), verdict({ ...whole.v.preflight }), undefined);
  for (const s of states(p)) {
    const d = direct(directDir, p.testCmd, s.files);
    const candidate = { mode: "files", files: Object.entries(s.files).map(([f, content]) => ({ path: f, content })) };
    const a = await timed(() => call("trm_submit_candidate", { sessionId: ff.v.sessionId, candidate, rationale: s.step }));
    const b = await timed(() => call("trm_submit_candidate", { sessionId: whole.v.sessionId, candidate, rationale: s.step }));
    print(s.step, d, a.ms, b.ms, verdict(a.v), verdict(b.v), a.v.partial ? a.v.ran : undefined);
  }
  for (const id of [ff.v.sessionId, whole.v.sessionId]) await call("trm_end_session", { sessionId: id, discard: true });
}
console.log(`\nuptime: ${execSync("uptime").toString().trim()}`);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const slow = new Set(rows.filter((r) => r.step === "baseline" && r.direct >= 5000).map((r) => r.project));
const failing = rows.filter((r) => r.step.startsWith("wrong") && slow.has(r.project));
const perProject = [...slow].map((p) => median(failing.filter((r) => r.project === p).map((r) => r.ratio)));
console.log(
  `failing steps, median over projects whose suite takes >= 5 s (${[...slow].join(", ") || "none"}): ${median(perProject).toFixed(2)}x (target <= 0.35x)`,
);
console.log(
  `right fix: ${rows
    .filter((r) => r.step === "right fix")
    .map((r) => `${r.project} ${r.ratio.toFixed(2)}x`)
    .join(", ")} (target <= 1.05x)`,
);
console.log(`verdicts identical to selectTests: false at every step: ${rows.every((r) => r.same) ? "yes" : "NO"}`);
await client.close();
rmSync(scratch, { recursive: true, force: true });
