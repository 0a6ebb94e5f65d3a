import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseDiagnostics } from "../../../src/evaluate/parsers/index.js";
import type { Diagnostic } from "../../../src/evaluate/types.js";
import type { StartInput } from "../../../src/session/config.js";
import type { Session } from "../../../src/session/session.js";
import { startSession } from "../../../src/session/start.js";
import { g, makeRepo, ROOT, tmpDir } from "../../helpers/repo.js";

export const TSC_BIN = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
/** The build command of the TypeScript fixtures: code-trm's own compiler, run in the worktree. */
export const TSC = `node ${TSC_BIN} -p .`;

export const NODENEXT_TSCONFIG = JSON.stringify(
  { compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, types: [] }, include: ["src/**/*.ts"] },
  null,
  2,
);

/** Writes files (path → content) under `dir`. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), content);
  }
}

/** A directory with the given files, or a copy of fixtures/repos/<name> when given a name. */
export function project(files: Record<string, string> | string): string {
  const dir = tmpDir("trm-suggest-");
  if (typeof files === "string") cpSync(path.join(ROOT, "fixtures", "repos", files), dir, { recursive: true });
  else writeFiles(dir, files);
  return dir;
}

/** A git repository holding `files`, with one commit (like makeRepo, for ad-hoc projects). */
export function repoOf(files: Record<string, string>): string {
  const dir = path.join(tmpDir(), "repo");
  writeFiles(dir, files);
  g(dir, "init", "-q", "-b", "main");
  g(dir, "add", "-A");
  g(dir, "commit", "-q", "-m", "initial");
  return dir;
}

/** Runs code-trm's tsc in `dir` and parses its diagnostics as the evaluator does. */
export function tscDiagnostics(dir: string, args = ["-p", "."]): Diagnostic[] {
  const r = spawnSync(process.execPath, [TSC_BIN, ...args], { cwd: dir, encoding: "utf8" });
  return parseDiagnostics(`${r.stdout}${r.stderr}`, { cwd: dir });
}

/** Content and mtime of every file under `dir` (node_modules and .git left out), to prove nothing was written. */
export function snapshot(dir: string, rel = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(path.join(dir, rel))) {
    if (name === "node_modules" || name === ".git") continue;
    const r = rel ? `${rel}/${name}` : name;
    const st = statSync(path.join(dir, r));
    if (st.isDirectory()) Object.assign(out, snapshot(dir, r));
    else out[r] = `${st.mtimeMs}:${readFileSync(path.join(dir, r), "utf8")}`;
  }
  return out;
}

/** A session started in-process (no server) over a fresh repository. */
export async function sessionOver(
  fixture: string | Record<string, string>,
  input: Partial<StartInput> | ((repo: string) => Partial<StartInput>) = {},
): Promise<{ session: Session; repo: string }> {
  process.env.CODE_TRM_STATE_DIR ??= tmpDir("trm-state-");
  const repo = typeof fixture === "string" ? makeRepo(fixture) : repoOf(fixture);
  const extra = typeof input === "function" ? input(repo) : input;
  const { session } = await startSession({ repoPath: repo, ...extra }, {});
  return { session, repo };
}

export function filesCandidate(p: string, content: string) {
  return { mode: "files" as const, files: [{ path: p, content }] };
}
