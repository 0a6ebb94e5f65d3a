#!/usr/bin/env node
// Failing first on real projects (issue 25, docs/failing-first.md): how long a step waits for its verdict
// when the tests that failed run first, against the whole suite run directly, in the same run, interleaved.
//
//   npm run build && node bench/verdict.mjs [--reps N] <project.json>...
//
// --reps N (default 1) runs each project's whole session N times (fresh copies and sessions each time,
// projects in turn) and prints, per step, the median of each cell with its range; the target lines use
// the medians. TRM_BENCH_DIST=label=folder,label=folder compares builds (e.g. a copy of dist/ made before
// a change): each build gets its own server and its own two sessions per project, run interleaved with
// the others at every step (default: this checkout's dist/ alone).
//
// A project file: { "name", "dir": a clone with its dependencies installed, "fix": the fix commit,
// "src": [the files the fix changes outside the tests], "testCmd", "linkPaths"?: ["node_modules"],
// "comment": "//" or "#", "start"?: more trm_start_session arguments for every session, e.g. { "sandbox": true } }.
// The bench clones `dir` into a scratch folder (a copy per session and one for
// the direct runs; linkPaths linked, never copied), commits there the baseline: the fix commit
// with its source files as they were before it (the fix's tests in, the fix out, so they fail). Then four
// steps, each sent to two sessions (failing first, and selectTests: false) and run directly:
//   baseline (preflight), wrong fix 1 and wrong fix 2 (the buggy source with a line of its own appended:
//   a change that fixes nothing, as most steps of a refinement loop), the right fix (the fix commit's source).
// Per step it prints the wall time of the whole suite run directly, of each session's submit (time to
// verdict, as the client waits for it), their ratio, and whether every session gave the verdict of the
// first build's selectTests: false session (tests passing, failing tests, score, halt). The order is interleaved (direct, failing first, whole
// suite) at every step, so that load drift hits all three alike. `uptime` is printed before and after.
import { execFileSync, execSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const args = process.argv.slice(2);
const repsAt = args.indexOf("--reps");
const REPS = repsAt >= 0 ? Number(args.splice(repsAt, 2)[1]) : 1;
const files = args;
if (files.length === 0 || !(REPS >= 1)) {
  console.error("usage: node bench/verdict.mjs [--reps N] <project.json>...");
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, "..");
const BUILDS = (process.env.TRM_BENCH_DIST ?? `this=${path.join(root, "dist")}`).split(",").map((x) => x.split("="));
for (const [, dist] of BUILDS) {
  if (!existsSync(path.join(dist, "cli/main.js"))) {
    console.error(`${dist}/cli/main.js is missing: run \`npm run build\` first.`);
    process.exit(1);
  }
}
const scratch = mkdtempSync(path.join(tmpdir(), "trm-verdict-"));
const git = (cwd, ...a) => execFileSync("git", a, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

const servers = [];
for (const [label, dist] of BUILDS) {
  const client = new Client({ name: "verdict-bench", version: "0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(dist, "cli/main.js")],
      env: { ...process.env, CODE_TRM_STATE_DIR: path.join(scratch, `state-${label}`) },
      stderr: "inherit",
    }),
  );
  const call = async (name, a) => {
    const r = await client.callTool({ name, arguments: a }, undefined, { timeout: 1_800_000, resetTimeoutOnProgress: true });
    if (r.isError) throw new Error(`${name}: ${r.content.map((c) => c.text).join("\n")}`);
    return r.structuredContent;
  };
  servers.push({ label, client, call });
}
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
// One row per project, step, rep: the direct run's time and, per build, each session's time and verdict.
const rows = [];
const notes = new Map();
let copies = 0;
for (let rep = 1; rep <= REPS; rep++) {
  for (const file of files) {
    const p = JSON.parse(readFileSync(file, "utf8"));
    const directDir = prepare(p, `direct-${++copies}`);
    const start = (call, repoPath, extra) =>
      call("trm_start_session", {
        repoPath,
        testCmd: p.testCmd,
        preflight: true,
        timeoutSec: 900,
        ...(p.linkPaths ? { linkPaths: p.linkPaths } : {}),
        ...p.start,
        ...extra,
      });
    // Per build, a session with failing first and one with selectTests: false, each in its own copy.
    const sessions = servers.flatMap((srv) => [
      { srv, mode: "ff", dir: prepare(p, `${srv.label}-ff-${copies}`), extra: {} },
      { srv, mode: "whole", dir: prepare(p, `${srv.label}-whole-${copies}`), extra: { selectTests: false } },
    ]);
    const row = (step, d) => {
      const r = { project: p.name, step, rep, direct: d, cells: {} };
      rows.push(r);
      return r;
    };
    // The baseline is a full run in every session (start and preflight): the suite's own time.
    const base = row("baseline", direct(directDir, p.testCmd, {}));
    for (const s of sessions) {
      const t = await timed(() => start(s.srv.call, s.dir, s.extra));
      s.id = t.v.sessionId;
      base.cells[`${s.srv.label} ${s.mode}`] = { ms: t.ms, verdict: verdict({ ...t.v.preflight }) };
      if (s.mode === "ff" && !notes.has(p.name))
        notes.set(p.name, `${p.testCmd}, fix ${p.fix.slice(0, 10)}: ${t.v.notes?.find((n) => n.startsWith("failing first")) ?? ""}`);
    }
    for (const st of states(p)) {
      const r = row(st.step, direct(directDir, p.testCmd, st.files));
      const candidate = { mode: "files", files: Object.entries(st.files).map(([f, content]) => ({ path: f, content })) };
      for (const s of sessions) {
        const t = await timed(() => s.srv.call("trm_submit_candidate", { sessionId: s.id, candidate, rationale: st.step }));
        r.cells[`${s.srv.label} ${s.mode}`] = { ms: t.ms, verdict: verdict(t.v), ...(t.v.partial ? { ran: t.v.ran } : {}) };
      }
    }
    for (const s of sessions) await s.srv.call("trm_end_session", { sessionId: s.id, discard: true });
    console.log(
      `rep ${rep}/${REPS} ${p.name}: ${rows
        .filter((r) => r.project === p.name && r.rep === rep)
        .map(
          (r) =>
            `${r.step} ${fmt(r.direct)}/${Object.values(r.cells)
              .map((c) => fmt(c.ms))
              .join("/")}`,
        )
        .join(" | ")}`,
    );
  }
}
console.log(`\nuptime: ${execSync("uptime").toString().trim()}`);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const projects = [...new Set(rows.map((r) => r.project))];
const steps = ["baseline", "wrong fix 1", "wrong fix 2", "right fix"];
const cellKeys = servers.flatMap((srv) => [`${srv.label} ff`, `${srv.label} whole`]);
const spread = (xs) => (xs.length > 1 ? ` [${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))}]` : "");
// Per project and step: medians over the reps; every session's verdict is compared with the first
// build's selectTests: false session at the same rep (failing first must not change a final verdict).
const table = [];
for (const project of projects) {
  console.log(`\n${project} (${notes.get(project)})${REPS > 1 ? `, medians of ${REPS} reps [range]` : ""}`);
  for (const step of steps) {
    const rs = rows.filter((r) => r.project === project && r.step === step);
    const d = median(rs.map((r) => r.direct));
    const t = { project, step, direct: d, cells: {}, same: true };
    const parts = [`direct ${fmt(d).padStart(7)}${spread(rs.map((r) => r.direct))}`];
    for (const k of cellKeys) {
      const ms = rs.map((r) => r.cells[k].ms);
      const m = median(ms);
      const ran = rs.map((r) => r.cells[k].ran).find((x) => x);
      t.cells[k] = m / d;
      parts.push(`${k} ${fmt(m).padStart(7)} (${(m / d).toFixed(2)}x${ran ? `, partial ran ${ran}` : ""})${spread(ms)}`);
      for (const r of rs)
        if (!same(r.cells[k].verdict, r.cells[cellKeys[1]].verdict))
          t.same = `${k} rep ${r.rep}: ${JSON.stringify(r.cells[k].verdict)} vs ${JSON.stringify(r.cells[cellKeys[1]].verdict)}`;
    }
    table.push(t);
    console.log(`  ${step.padEnd(12)} ${parts.join("  ")}  verdicts ${t.same === true ? "identical" : `DIFFER: ${t.same}`}`);
  }
}

const slow = projects.filter((p) => table.find((t) => t.project === p && t.step === "baseline").direct >= 5000);
for (const srv of servers) {
  const ff = `${srv.label} ff`;
  const perProject = slow.map((p) => median(table.filter((t) => t.project === p && t.step.startsWith("wrong")).map((t) => t.cells[ff])));
  const tag = servers.length > 1 ? `${srv.label}: ` : "";
  console.log(
    `\n${tag}failing steps, median over projects whose suite takes >= 5 s (${slow.join(", ") || "none"}): ${perProject.length ? `${median(perProject).toFixed(2)}x` : "-"} (target <= 0.35x)`,
  );
  console.log(
    `${tag}right fix: ${table
      .filter((t) => t.step === "right fix")
      .map((t) => `${t.project} ${t.cells[ff].toFixed(2)}x`)
      .join(", ")} (target <= 1.05x)`,
  );
  const whole = `${srv.label} whole`;
  console.log(
    `${tag}selectTests: false, every step against the suite run directly: median ${median(table.map((t) => t.cells[whole])).toFixed(2)}x (${table.map((t) => t.cells[whole].toFixed(2)).join(" ")})`,
  );
}
console.log(`verdicts identical to selectTests: false at every step: ${table.every((t) => t.same === true) ? "yes" : "NO"}`);
for (const srv of servers) await srv.client.close();
rmSync(scratch, { recursive: true, force: true });
