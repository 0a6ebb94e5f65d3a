/** Worktrees whose commands replay real captured outputs (fixtures/outputs), for evaluator tests. */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { EvaluateOptions } from "../../../src/evaluate/evaluate.js";
import { CORPUS_DIR } from "./parsers/corpus.js";

const dirs: string[] = [];

/** Removes the worktrees made so far (call in afterEach). */
export function cleanWorktrees(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A worktree with `bin/<name>` scripts that print a captured output and exit with its recorded code. */
export function worktree(runners: Record<string, { file?: string; exit: number; text?: string }>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "trm-eval-"));
  dirs.push(dir);
  mkdirSync(path.join(dir, "bin"));
  mkdirSync(path.join(dir, "tests"));
  for (const [name, r] of Object.entries(runners)) {
    const out = path.join(dir, "bin", `${name}.out`);
    // The captures name the project /WORKTREE: put this worktree in its place, as the run would print it.
    if (r.file) writeFileSync(out, readFileSync(path.join(CORPUS_DIR, r.file), "utf8").split("/WORKTREE").join(realpathSync(dir)));
    else writeFileSync(out, r.text ?? "");
    const script = path.join(dir, "bin", name);
    writeFileSync(script, `#!/bin/sh\ncat "$(dirname "$0")/${name}.out"\nexit ${r.exit}\n`);
    chmodSync(script, 0o755);
  }
  return dir;
}

export const base = (cwd: string, commands: EvaluateOptions["commands"], extra: Partial<EvaluateOptions> = {}): EvaluateOptions => ({
  cwd,
  commands,
  timeoutSec: 60,
  weights: { build: 0.3, test: 0.5, lint: 0.1, perf: 0.1 },
  cascade: true,
  perfDirection: "lower",
  ...extra,
});
