import type { Diagnostic } from "../../evaluate/types.js";
import { autoflake } from "./autoflake.js";
import { clippy } from "./clippy.js";
import { gofmt, goimports } from "./go.js";
import { locateTool } from "./locate.js";
import { ruffCheck, ruffFormat } from "./ruff.js";
import { runToolFixer, type ToolRun, type ToolRunOptions } from "./run.js";
import type { FixInput, FixTarget, ToolFixer } from "./types.js";

/**
 * The fixers of other toolchains, in order of preference: a problem taken by an installed fixer is not
 * offered to the next one (ruff before autoflake for an unused import), and a problem no installed
 * fixer takes is named with the fixers that would fix it.
 */
export const TOOL_FIXERS: ToolFixer[] = [ruffCheck, autoflake, ruffFormat, goimports, gofmt, clippy];

export interface PlannedFix {
  fixer: ToolFixer;
  target: FixTarget;
  bin: string;
}

export interface FixPlan {
  run: PlannedFix[];
  /** Targets of fixers that are not installed, and not taken by one that is. */
  missing: { fixer: ToolFixer; target: FixTarget }[];
}

/** Which fixers run on what; `locate` says where a tool is (null: not installed). Pure given `locate`. */
export function planToolFixes(input: FixInput, locate: (tool: string) => string | null, fixers = TOOL_FIXERS): FixPlan {
  const claimed = new Set<Diagnostic>();
  const plan: FixPlan = { run: [], missing: [] };
  const bins = new Map<string, string | null>();
  for (const fixer of fixers) {
    const target = fixer.targets({ ...input, diagnostics: input.diagnostics.filter((d) => !claimed.has(d)) });
    if (!target) continue;
    if (!bins.has(fixer.tool)) bins.set(fixer.tool, locate(fixer.tool));
    const bin = bins.get(fixer.tool)!;
    if (bin === null) {
      plan.missing.push({ fixer, target });
      continue;
    }
    for (const d of target.problems) claimed.add(d);
    plan.run.push({ fixer, target, bin });
  }
  // A problem a later fixer took (autoflake, when ruff is missing) needs no hint about the earlier one.
  plan.missing = plan.missing.flatMap(({ fixer, target }) => {
    if (target.problems.length === 0) return [{ fixer, target }];
    const problems = target.problems.filter((d) => !claimed.has(d));
    return problems.length ? [{ fixer, target: { ...target, problems } }] : [];
  });
  return plan;
}

/**
 * "flake8 F401 unused import: ruff check --fix or autoflake would fix it; neither is installed." One
 * line per set of fixers, listing the problems (by source and code) that only they would fix.
 */
export function missingFixerHints(plan: FixPlan): string[] {
  const byProblem = new Map<string, Set<string>>();
  const add = (key: string, label: string) => {
    if (!byProblem.has(key)) byProblem.set(key, new Set());
    byProblem.get(key)!.add(label);
  };
  for (const { fixer, target } of plan.missing) {
    if (target.problems.length === 0) add(target.what, fixer.label);
    for (const d of target.problems) {
      const name = d.code ? fixer.names?.[d.code] : undefined;
      add(d.code ? `${d.source} ${d.code}${name ? ` ${name}` : ""}` : `${d.source}: ${target.what}`, fixer.label);
    }
  }
  const byFixers = new Map<string, { labels: string[]; problems: string[] }>();
  for (const [problem, labels] of byProblem) {
    const key = [...labels].join("\0");
    if (!byFixers.has(key)) byFixers.set(key, { labels: [...labels], problems: [] });
    byFixers.get(key)!.problems.push(problem);
  }
  return [...byFixers.values()].map(({ labels, problems }) => {
    const none = labels.length === 1 ? "it is not installed" : labels.length === 2 ? "neither is installed" : "none of them is installed";
    return `${problems.join(", ")}: ${labels.join(" or ")} would fix it; ${none} (not in the worktree's node_modules/.bin, .venv/bin or PATH).`;
  });
}

export interface ToolFixRun extends PlannedFix {
  run: ToolRun;
}

/** Plans, then runs each installed fixer in its own scratch copy, one after the other. */
export async function runToolFixes(
  input: FixInput,
  opts: ToolRunOptions & { progress?: (message: string) => void },
): Promise<{ runs: ToolFixRun[]; hints: string[] }> {
  const plan = planToolFixes(input, (tool) => locateTool(opts.worktree, tool));
  const runs: ToolFixRun[] = [];
  for (const p of plan.run) {
    if (opts.signal?.aborted) break;
    opts.progress?.(`running ${p.fixer.label} in a scratch copy`);
    const run = await runToolFixer(p.fixer, p.bin, p.target, { ...opts, onTick: (ms) => opts.progress?.(`${p.fixer.label} (${Math.round(ms / 1000)}s)`) });
    runs.push({ ...p, run });
  }
  return { runs, hints: missingFixerHints(plan) };
}
