import { constants, existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { planCandidate } from "../candidate/plan.js";
import type { Candidate } from "../candidate/schema.js";
import type { TreeReader } from "../candidate/types.js";
import { worktreeReader } from "../candidate/write.js";
import type { Evaluation } from "../evaluate/evaluate.js";
import type { Diagnostic } from "../evaluate/types.js";
import type { Sandbox } from "../exec/sandbox.js";
import { scratchDir } from "../git/refs.js";
import type { CallContext } from "../session/context.js";
import { commandPolicy } from "../session/policy.js";
import type { Session } from "../session/session.js";
import { errorMessage } from "../util/errors.js";
import { isInside, resolveInside } from "../util/paths.js";
import { firstLine, truncate } from "../util/text.js";
import { ESLINT_TIMEOUT_MS, type EslintFixResult, eslintFixes } from "./eslint-fix.js";
import { runToolFixes, type ToolFixRun } from "./fixers/registry.js";
import type { RanCommand } from "./fixers/types.js";
import { ruleFix } from "./rules.js";
import { rewritesToCandidate, rewritesToFilesCandidate } from "./to-candidate.js";
import { isTscTarget, isWorktreeFile, type TsFix, type TsFixResult } from "./ts-fixes.js";
import { typescriptFixesOffThread } from "./ts-off-thread.js";
import { type FileRewrite, type Fixer, type FixSuggestion, type Priority, priorityRank } from "./types.js";

/**
 * `trm_suggest_fix`: candidates that fix the last evaluation's errors, made by the repository's real
 * fixers where it has them (the TypeScript language service, eslint --fix) and by hand-written rules
 * for what they leave. Nothing is offered that was not proven to apply to the session's current state
 * and to produce exactly the text the fixer intended.
 */

export interface FixesOptions {
  /** Budget of the TypeScript language service, which runs on the server's thread. */
  typescriptBudgetMs?: number;
  eslintTimeoutMs?: number;
  /** Timeout of each other fixer (ruff, autoflake, gofmt, goimports, cargo clippy); default: the fixer's own. */
  toolTimeoutMs?: number;
  limit?: number;
}

export interface FixesResult {
  step: number;
  suggestions: FixSuggestion[];
  /** Fixes produced but not offered: they did not apply, did not reproduce the fixer's text, or did not remove the error. */
  dropped: number;
  notes: string[];
  timings: { typescriptMs?: number; eslintMs?: number; totalMs: number };
}

/** Suggestions returned at most; the combined TypeScript fix comes first, so the list can stay short. */
export const MAX_FIX_SUGGESTIONS = 8;

function issueOf(ds: Diagnostic[]): string {
  const d = ds[0]!;
  const at = d.file ? `${d.file}${d.line ? `:${d.line}` : ""} ` : "";
  return `${at}${d.code ? `${d.code} ` : ""}${firstLine(d.message)}${ds.length > 1 ? ` (+${ds.length - 1} more)` : ""}`;
}

const stripBom = (s: string) => (s.charCodeAt(0) === 0xfeff ? s.slice(1) : s);

/** Whether `candidate` plans, against `tree`, to exactly the rewrites (and nothing else). */
async function plansTo(candidate: Candidate, rewrites: FileRewrite[], tree: TreeReader): Promise<boolean> {
  try {
    const plan = await planCandidate(candidate, tree);
    if (plan.ops.length !== rewrites.length) return false;
    return rewrites.every((r) => plan.ops.some((op) => op.op === "write" && op.path === r.path && stripBom(op.content.toString("utf8")) === stripBom(r.after)));
  } catch {
    return false;
  }
}

/**
 * The candidate for a set of rewrites: replace edits when they reproduce the fixer's text exactly,
 * else whole files; null when neither applies (the file changed under the fixer, a path is refused).
 */
export async function validatedCandidate(rewrites: FileRewrite[], tree: TreeReader): Promise<Candidate | null> {
  const changed = rewrites.filter((r) => r.before !== r.after);
  if (changed.length === 0) return null;
  const modify = rewritesToCandidate(changed);
  if (modify.mode === "modify" && (await plansTo(modify, changed, tree))) return modify;
  // Whole files would overwrite whatever is there: only when every file is still what the fixer read.
  for (const r of changed) {
    const now = await tree.read(r.path).catch(() => null);
    if (now === null || stripBom(now.toString("utf8")) !== stripBom(r.before)) return null;
  }
  const files = rewritesToFilesCandidate(changed);
  return (await plansTo(files, changed, tree)) ? files : null;
}

interface Draft {
  priority: Priority;
  issue: string;
  rewrites: FileRewrite[];
  rationale: string;
  fixer: Fixer;
}

function tsDrafts(ts: TsFixResult, buildFailed: boolean): Draft[] {
  const priority: Priority = buildFailed ? "critical" : "high";
  const who = ts.typescript ? `TypeScript ${ts.typescript.version}${ts.typescript.origin === "repository" ? " (the repository's)" : ""}` : "TypeScript";
  const drafts: Draft[] = [];
  if (ts.combined) {
    const c = ts.combined;
    drafts.push({
      priority,
      issue: `${c.fixes.reduce((n, f) => n + f.diagnostics.length, 0)} tsc errors: ${c.fixes.map((f) => issueOf(f.diagnostics)).join("; ")}`,
      rewrites: c.rewrites,
      rationale: `All ${c.fixes.length} ${who} code fixes below in one step (${c.fixes.map((f) => f.description).join("; ")}); checked with the language service: ${c.errorsBefore} → ${c.errorsAfter} errors in the files involved.`,
      fixer: "typescript",
    });
  }
  const one = (f: TsFix): Draft => ({
    priority,
    issue: issueOf(f.diagnostics),
    rewrites: f.rewrites,
    rationale: [
      `${who} code fix "${f.description}"; checked with the language service: ${f.errorsBefore} → ${f.errorsAfter} errors in the files involved.`,
      ...(f.placeholder ? ["It adds a placeholder (a stub that throws or an empty member): implement it before relying on it."] : []),
      ...(f.alternatives.length ? [`Other fixes offered: ${f.alternatives.join("; ")}.`] : []),
    ].join(" "),
    fixer: "typescript",
  });
  drafts.push(...ts.fixes.map(one));
  return drafts;
}

function eslintDraft(r: EslintFixResult, lintFailed: boolean, issues: Diagnostic[]): Draft | null {
  if (r.rewrites.length === 0) return null;
  const files = new Set(r.rewrites.map((w) => w.path));
  const fixedList = r.fixed.map((f) => `${f.rule} ×${f.count}`).join(", ");
  const mine = issues.filter((d) => d.file && files.has(d.file));
  return {
    priority: lintFailed ? "medium" : "low",
    issue: mine.length ? issueOf(mine) : `ESLint problems in ${[...files].join(", ")}`,
    rewrites: r.rewrites,
    rationale: `eslint --fix (ESLint ${r.eslintVersion ?? "?"}) run in a scratch copy of the session: ${fixedList ? `fixes ${fixedList}` : "rewrites the reported files"}${r.remaining ? `; ${r.remaining} problem(s) it cannot fix remain` : ""}.`,
    fixer: "eslint",
  };
}

function toolDraft({ fixer, target, run }: ToolFixRun, ev: Evaluation): Draft | null {
  if (run.rewrites.length === 0) return null;
  const files = run.rewrites.map((w) => w.path);
  // An import the compiler rejects stops the build; everything else these fixers do is lint.
  const priority: Priority = ev.okBuild === false && fixer.name === "goimports" ? "critical" : ev.okLint === false || ev.okBuild === false ? "medium" : "low";
  const caveat = fixer.name === "autoflake" ? " It removes every unused import, also one kept for its side effects: check them." : "";
  return {
    priority,
    issue: target.problems.length ? issueOf(target.problems) : `${target.what}: ${files.join(", ")}`,
    rewrites: run.rewrites,
    rationale: `${fixer.label} (${run.version ?? "version unknown"}) run in a scratch copy of the session (${(run.ms / 1000).toFixed(1)} s): fixes ${target.what} in ${files.join(", ")}.${caveat}`,
    fixer: fixer.name,
  };
}

async function ruleDrafts(worktree: string, unfixed: Diagnostic[], buildFailed: boolean): Promise<Draft[]> {
  const real = path.resolve(worktree);
  const exists = (rel: string) => {
    const abs = path.resolve(worktree, rel);
    if (!isInside(real, abs)) return false;
    return existsSync(abs) && statSync(abs).isFile();
  };
  const drafts: Draft[] = [];
  for (const d of unfixed) {
    if (!d.file || !isWorktreeFile(d.file)) continue;
    // The file the kernel reaches, only if it is inside: a diagnostic may name a link to anywhere.
    const text = await resolveInside(worktree, d.file)
      .then(({ real }) => readFile(real, { encoding: "utf8", flag: constants.O_RDONLY | constants.O_NOFOLLOW }))
      .catch(() => null);
    if (text === null) continue;
    const fix = ruleFix(d, text, exists);
    if (!fix) continue;
    drafts.push({
      priority: buildFailed ? "critical" : "high",
      issue: issueOf([d]),
      rewrites: [{ path: d.file, before: text, after: fix.after }],
      rationale: `Hand-written rule (no code fix from the language service): ${fix.description}.`,
      fixer: "rule",
    });
  }
  return drafts;
}

/** Candidates that fix the last evaluation's errors, each proven to apply to the session's current state. */
export async function suggestFixes(session: Session, ctx: CallContext = {}, opts: FixesOptions = {}): Promise<FixesResult> {
  return session.mutex.run(async () => {
    const started = Date.now();
    // The fixers read the worktree: it must be exactly the session tip.
    await session.sync();
    const notes: string[] = [];
    const timings: FixesResult["timings"] = { totalMs: 0 };
    const last = session.entries[session.entries.length - 1];
    const step = session.currentStep;
    if (!last) {
      notes.push("No evaluation yet: submit a candidate (or start the session with preflight) first.");
      return { step, suggestions: [], dropped: 0, notes, timings: { totalMs: Date.now() - started } };
    }
    const ev: Evaluation = last.evaluation;
    const diagnostics = ev.diagnostics;
    const drafts: Draft[] = [];
    let dropped = 0;

    const tsTargets = diagnostics.filter(isTscTarget);
    let unfixed: Diagnostic[] = [];
    if (tsTargets.length > 0) {
      ctx.progress?.(`TypeScript language service: looking for fixes of ${tsTargets.length} error(s)`);
      try {
        const ts = await typescriptFixesOffThread(
          {
            worktree: session.worktree,
            diagnostics,
            buildCmd: session.config.commands.build,
            budgetMs: opts.typescriptBudgetMs,
            ...(session.config.sandbox ? { ownTypeScript: true } : {}),
          },
          ctx.signal,
        );
        timings.typescriptMs = ts.ms;
        notes.push(...ts.notes);
        dropped += ts.rejected;
        drafts.push(...tsDrafts(ts, ev.okBuild === false));
        unfixed = ts.unfixed;
      } catch (err) {
        notes.push(`TypeScript language service failed: ${errorMessage(err)}`);
        unfixed = tsTargets;
      }
    }
    drafts.push(...(await ruleDrafts(session.worktree, unfixed, ev.okBuild === false)));

    if (diagnostics.some((d) => d.source === "eslint")) {
      ctx.progress?.("running eslint --fix in a scratch copy");
      const r = await eslintFixes({
        worktree: session.worktree,
        ...sandboxOf(session),
        scratchParent: scratchDir(session.config.commonDir),
        diagnostics,
        timeoutMs: opts.eslintTimeoutMs ?? ESLINT_TIMEOUT_MS,
        signal: ctx.signal,
        onTick: (ms) => ctx.progress?.(`eslint --fix (${Math.round(ms / 1000)}s)`),
      });
      timings.eslintMs = r.ms;
      notes.push(...r.notes);
      const d = eslintDraft(
        r,
        ev.okLint === false,
        diagnostics.filter((x) => x.source === "eslint"),
      );
      if (d) drafts.push(d);
    }

    const commands: RanCommand[] = Object.values(ev.commands).flatMap((c) =>
      c && !c.skipped ? [{ cmd: c.cmd, failed: c.exitCode !== 0, output: c.output }] : [],
    );
    const tools = await runToolFixes(
      { diagnostics, commands },
      {
        worktree: session.worktree,
        ...sandboxOf(session),
        scratchParent: scratchDir(session.config.commonDir),
        timeoutMs: opts.toolTimeoutMs,
        signal: ctx.signal,
        progress: ctx.progress,
      },
    );
    for (const r of tools.runs) {
      notes.push(...r.run.notes);
      const d = toolDraft(r, ev);
      if (d) drafts.push(d);
    }
    notes.push(...tools.hints);

    // Every draft must apply to the worktree as it is now and reproduce the fixer's text exactly.
    const tree = worktreeReader(session.worktree);
    const suggestions: FixSuggestion[] = [];
    const seen = new Set<string>();
    for (const d of drafts) {
      const candidate = await validatedCandidate(d.rewrites, tree);
      if (!candidate) {
        dropped++;
        continue;
      }
      const key = JSON.stringify(candidate);
      if (seen.has(key)) continue;
      seen.add(key);
      suggestions.push({
        priority: d.priority,
        issue: d.issue,
        candidateToFix: candidate,
        rationale: d.rationale,
        fixer: d.fixer,
        files: d.rewrites.map((r) => r.path),
      });
    }
    // Stable: within a priority, the producers' order (combined fix first, then by error order).
    const ranked = suggestions
      .map((s, i) => ({ s, i }))
      .sort((a, b) => priorityRank(a.s.priority) - priorityRank(b.s.priority) || a.i - b.i)
      .map((x) => x.s);
    const limit = opts.limit ?? MAX_FIX_SUGGESTIONS;
    if (ranked.length > limit) notes.push(`${ranked.length} fixes found; the first ${limit} are listed.`);
    if (ranked.length === 0 && diagnostics.length === 0) notes.push(noDiagnosticsNote(ev));
    else if (ranked.length === 0) notes.push("No fixer produced a fix for the reported problems.");
    timings.totalMs = Date.now() - started;
    return { step, suggestions: ranked.slice(0, limit), dropped, notes, timings };
  });
}

/**
 * Why there is nothing to fix automatically, and where to look instead: failing tests that carry a
 * location (the assertion's file:line, or the first stack frame in the worktree) point at the code.
 */
export function noDiagnosticsNote(ev: Evaluation): string {
  const placed = (ev.tests?.failures ?? []).filter((f) => f.file);
  if (placed.length === 0)
    return "The last evaluation reported no diagnostics with a location, so there is nothing for a fixer to work on; see trm_get_suggestions.";
  const shown = placed
    .slice(0, 6)
    .map((f) => `${f.name} at ${f.file}${f.line ? `:${f.line}` : ""}${f.message ? ` (${truncate(firstLine(f.message), 80)})` : ""}`);
  return `No compiler or lint diagnostic for a fixer to work on, but ${placed.length} failing test${placed.length === 1 ? "" : "s"} point${placed.length === 1 ? "s" : ""} at code: ${shown.join("; ")}${placed.length > 6 ? "; …" : ""}. Read those places (trm_read_lines) and fix the code under test; trm_get_suggestions groups the failures by cause.`;
}

/**
 * A sandboxed session's fixers run in its sandbox too: they are the repository's own code. Its private home is
 * theirs to write, as a step's commands', so the worktree is no longer known clean: the next step's sync prunes
 * what they left there before its commands run (h30: an `.npmrc` with a `script-shell` the fixer wrote made the
 * next step's `npm test` print a pass).
 */
function sandboxOf(session: Session): { sandbox?: Sandbox } {
  const { sandbox } = commandPolicy(session.config, session.worktree);
  if (sandbox) session.worktreeAt = null;
  return sandbox ? { sandbox } : {};
}
