import path from "node:path";
import type * as TS from "typescript";
import type { Diagnostic } from "../evaluate/types.js";
import { errorMessage } from "../util/errors.js";
import { isInside, normalizeRelPath } from "../util/paths.js";
import { firstLine } from "../util/text.js";
import { applyTextChanges, combineFixes, type FileChanges, type TextChange } from "./text-changes.js";
import { loadTypeScript, nearestTsconfig, projectFromCommand, type TsModule } from "./ts-load.js";
import { isCancellation, TsProject } from "./ts-project.js";
import type { FileRewrite } from "./types.js";

/**
 * Fixes for tsc errors from the TypeScript language service's own code fixes (the quick fixes an
 * editor offers: add the missing import, infer a parameter type from usage, correct a misspelled
 * name, ...). Each chosen fix is checked in memory before it is offered: with the fix overlaid, the
 * error must be gone and the files it touches must have fewer errors than before.
 */

export interface TsFix {
  /** The diagnostics it fixes (several when they share one fix, e.g. a missing name used twice). */
  diagnostics: Diagnostic[];
  fixName: string;
  description: string;
  rewrites: FileRewrite[];
  /** Errors in the touched files before and with the fix, as the language service counts them. */
  errorsBefore: number;
  errorsAfter: number;
  /** Other fixes the service offered for the same error. */
  alternatives: string[];
  placeholder: boolean;
  changes: FileChanges;
}

export interface CombinedTsFix {
  rewrites: FileRewrite[];
  fixes: TsFix[];
  errorsBefore: number;
  errorsAfter: number;
}

export interface TsFixResult {
  fixes: TsFix[];
  combined?: CombinedTsFix;
  /** tsc diagnostics the service produced no usable fix for (candidates for the hand-written rules). */
  unfixed: Diagnostic[];
  /** Errors for which the service offered fixes but the in-memory check rejected every one (plus a rejected combination). */
  rejected: number;
  notes: string[];
  typescript?: { version: string; origin: "repository" | "code-trm" };
  ms: number;
}

export interface TsFixOptions {
  worktree: string;
  diagnostics: Diagnostic[];
  /** The session's build command: its `-p` names the tsconfig the errors came from. */
  buildCmd?: string;
  /** Wall-clock budget for the language service (ts-off-thread.ts runs it in a worker). */
  budgetMs?: number;
  /** Projects with more files than this load only the files with errors (and what they import). */
  maxRootFiles?: number;
  /**
   * code-trm's own typescript, never the worktree's: in a sandboxed session the commands (and the
   * candidates) write the worktree's node_modules, and the language service runs in the server.
   */
  ownTypeScript?: boolean;
}

/** At most this many errors are looked at: the first errors are the ones worth fixing first. */
export const MAX_TS_TARGETS = 25;
/** Fixes checked per error, in the service's order (each check re-types the touched files). */
const MAX_TRIES_PER_ERROR = 4;

/** Fixes that hide the error instead of fixing it. */
const DENIED = new Set(["disableJsDiagnostics", "addConvertToUnknownForNonOverlappingTypes"]);
/** Fixes that make the code compile with a stub a person still has to write. */
const PLACEHOLDERS = new Set([
  "fixMissingFunctionDeclaration",
  "fixMissingMember",
  "fixMissingProperties",
  "fixMissingAttributes",
  "fixClassDoesntImplementInheritedAbstractMember",
  "fixClassIncorrectlyImplementsInterface",
]);
/** Preferred fixes first; the service's own order decides among the rest. */
const PREFERRED = ["spelling", "import", "inferFromUsage", "fixAddMissingTypeAnnotation", "addMissingAwait", "addMissingConst", "fixImportNonExportedMember"];

function fixRank(a: TS.CodeFixAction): number {
  const i = PREFERRED.indexOf(a.fixName);
  if (i < 0) return PLACEHOLDERS.has(a.fixName) ? 1000 : 100;
  // Among imports, the project's own modules first: the service lists a same-named export of a
  // dependency or a Node builtin (fs's `truncate`) before them. Only the order of the checks changes.
  if (a.fixName === "import" && !/from "\.{1,2}\//.test(a.description)) return i + 0.5;
  return i;
}

/** A tsc error with an exact location in a file of the worktree (not a dependency, not outside it). */
export function isTscTarget(d: Diagnostic): boolean {
  return d.source === "tsc" && d.severity === "error" && !!d.file && isWorktreeFile(d.file) && !!d.line && !!d.column && /^TS\d+$/.test(d.code ?? "");
}

/** A relative path that stays inside the worktree and is not a dependency. */
export function isWorktreeFile(file: string): boolean {
  try {
    return normalizeRelPath(file) === file && !/(^|\/)node_modules\//.test(file);
  } catch {
    return false;
  }
}

/** Strictly below `root`: the root itself is not a file a fix may touch. */
function inside(root: string, p: string): boolean {
  return path.relative(root, p) !== "" && isInside(root, p);
}

/** Editor-like formatting for inserted code, guessed from the file: its line ending and indentation. */
function formatSettings(ts: TsModule, text: string): TS.FormatCodeSettings {
  const nl = text.includes("\r\n") ? "\r\n" : "\n";
  const tabs = /^\t+\S/m.test(text) && !/^ {2,}\S/m.test(text);
  const indent = tabs ? 4 : /^ {2}\S/m.test(text) ? 2 : 4;
  return { ...ts.getDefaultFormatCodeSettings(nl), convertTabsToSpaces: !tabs, indentSize: indent, tabSize: indent, semicolons: ts.SemicolonPreference.Ignore };
}

const PREFERENCES: TS.UserPreferences = { quotePreference: "auto", importModuleSpecifierEnding: "auto", includePackageJsonAutoImports: "auto" };

const yieldToEventLoop = () => new Promise<void>((r) => setImmediate(r));

/** Loads and parses one tsconfig; a solution config hands over to the referenced project holding the file. */
function parseConfig(ts: TsModule, configPath: string): { parsed?: TS.ParsedCommandLine; error?: string } {
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) return { error: ts.flattenDiagnosticMessageText(read.error.messageText, " ") };
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configPath), undefined, configPath);
  return { parsed };
}

function configHolding(ts: TsModule, configPath: string, parsed: TS.ParsedCommandLine, fileAbs: string): { configPath: string; parsed: TS.ParsedCommandLine } {
  if (parsed.fileNames.some((f) => path.resolve(f) === fileAbs)) return { configPath, parsed };
  for (const ref of parsed.projectReferences ?? []) {
    const refPath = ts.resolveProjectReferencePath(ref);
    const p = parseConfig(ts, refPath).parsed;
    if (p?.fileNames.some((f) => path.resolve(f) === fileAbs)) return { configPath: refPath, parsed: p };
  }
  return { configPath, parsed };
}

function toFileChanges(worktree: string, action: TS.CodeFixAction): FileChanges | null {
  if (action.commands?.length) return null; // needs an action we cannot take (e.g. installing @types)
  const out: FileChanges = new Map();
  for (const fc of action.changes) {
    const abs = path.resolve(fc.fileName);
    if (fc.isNewFile || !inside(worktree, abs) || /(^|[/\\])node_modules([/\\]|$)/.test(path.relative(worktree, abs))) return null;
    const cs: TextChange[] = fc.textChanges.map((t) => ({ start: t.span.start, length: t.span.length, newText: t.newText }));
    out.set(abs, [...(out.get(abs) ?? []), ...cs]);
  }
  return out.size > 0 ? out : null;
}

function rewritesOf(project: TsProject, worktree: string, changes: FileChanges): FileRewrite[] | null {
  const out: FileRewrite[] = [];
  for (const [abs, cs] of changes) {
    const before = project.read(abs);
    if (before === undefined) return null;
    try {
      out.push({ path: path.relative(worktree, abs).split(path.sep).join("/"), before, after: applyTextChanges(before, cs) });
    } catch {
      return null;
    }
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

const messageOf = (ts: TsModule, d: TS.Diagnostic) => ts.flattenDiagnosticMessageText(d.messageText, "\n");

/** Runs the language service over the worktree (read only) and returns checked fixes for tsc errors. */
export async function typescriptFixes(opts: TsFixOptions): Promise<TsFixResult> {
  const started = Date.now();
  const deadline = started + (opts.budgetMs ?? 20_000);
  const notes: string[] = [];
  const targets = opts.diagnostics.filter(isTscTarget);
  const result: TsFixResult = { fixes: [], unfixed: [], rejected: 0, notes, ms: 0 };
  if (targets.length === 0) return result;
  if (targets.length > MAX_TS_TARGETS) notes.push(`${targets.length} tsc errors; fixes were looked for in the first ${MAX_TS_TARGETS}.`);
  const chosen = targets.slice(0, MAX_TS_TARGETS);
  result.unfixed.push(...targets.slice(MAX_TS_TARGETS));

  let ts: TsModule;
  try {
    const loaded = loadTypeScript(opts.worktree, !opts.ownTypeScript);
    ts = loaded.ts;
    result.typescript = { version: loaded.version, origin: loaded.origin };
  } catch (err) {
    notes.push(`TypeScript language service unavailable: ${errorMessage(err)}`);
    result.unfixed.push(...chosen);
    result.ms = Date.now() - started;
    return result;
  }

  // One language service per tsconfig; usually there is one.
  const byConfig = new Map<string, { parsed: TS.ParsedCommandLine; targets: Diagnostic[] }>();
  const fromCmd = projectFromCommand(opts.worktree, opts.buildCmd);
  const parsedCache = new Map<string, ReturnType<typeof parseConfig>>();
  for (const d of chosen) {
    const abs = path.join(opts.worktree, d.file!);
    const cfg = fromCmd ?? nearestTsconfig(opts.worktree, abs);
    if (!cfg) {
      notes.push(`no tsconfig.json found for ${d.file}; the language service was not run for it.`);
      result.unfixed.push(d);
      continue;
    }
    if (!parsedCache.has(cfg)) parsedCache.set(cfg, parseConfig(ts, cfg));
    const p = parsedCache.get(cfg)!;
    if (!p.parsed) {
      notes.push(`${path.relative(opts.worktree, cfg)} could not be read: ${p.error}`);
      result.unfixed.push(d);
      continue;
    }
    const holder = configHolding(ts, cfg, p.parsed, abs);
    const slot = byConfig.get(holder.configPath) ?? { parsed: holder.parsed, targets: [] };
    slot.targets.push(d);
    byConfig.set(holder.configPath, slot);
  }

  for (const [configPath, { parsed, targets: group }] of byConfig) {
    const focus = [...new Set(group.map((d) => path.join(opts.worktree, d.file!)))];
    const project = new TsProject(ts, configPath, parsed, opts.worktree, focus, deadline, opts.maxRootFiles);
    if (project.limited)
      notes.push(
        `${path.relative(opts.worktree, configPath)} has ${parsed.fileNames.length} files: the language service loaded only the files with errors and what they import, so an import fix may be missing.`,
      );
    try {
      await fixGroup(ts, project, opts.worktree, group, result);
    } catch (err) {
      if (!isCancellation(ts, err)) throw err;
      notes.push(`the TypeScript language service stopped after ${opts.budgetMs ?? 20_000} ms; fixes found until then are offered.`);
      const done = new Set(result.fixes.flatMap((f) => f.diagnostics));
      result.unfixed.push(...group.filter((d) => !done.has(d) && !result.unfixed.includes(d)));
    } finally {
      project.dispose();
    }
  }
  result.ms = Date.now() - started;
  return result;
}

/** Errors in `files` as the service sees them now (with whatever overlay is active). */
function errorCount(project: TsProject, files: Iterable<string>): number {
  let n = 0;
  for (const f of files) n += project.errors(f).length;
  return n;
}

async function fixGroup(ts: TsModule, project: TsProject, worktree: string, group: Diagnostic[], result: TsFixResult): Promise<void> {
  const beforeCache = new Map<string, TS.Diagnostic[]>();
  const errorsBefore = (abs: string) => {
    let e = beforeCache.get(abs);
    if (!e) beforeCache.set(abs, (e = project.errors(abs)));
    return e;
  };
  const found: TsFix[] = [];
  for (const d of group) {
    await yieldToEventLoop();
    const abs = path.join(worktree, d.file!);
    const sf = project.sourceFile(abs);
    if (!sf) {
      result.unfixed.push(d);
      continue;
    }
    const code = Number(d.code!.slice(2));
    let pos: number;
    try {
      pos = sf.getPositionOfLineAndCharacter(d.line! - 1, d.column! - 1);
    } catch {
      result.unfixed.push(d);
      continue;
    }
    const errs = errorsBefore(abs);
    const match =
      errs.find((e) => e.code === code && e.start === pos) ??
      errs.find((e) => e.code === code && e.start !== undefined && sf.getLineAndCharacterOfPosition(e.start).line === d.line! - 1);
    if (!match || match.start === undefined) {
      result.notes.push(`TypeScript ${ts.version} does not report ${d.code} at ${d.file}:${d.line}; no fix for it.`);
      result.unfixed.push(d);
      continue;
    }
    // A diagnostic whose error an earlier fix already removes (a name missing twice) joins that fix.
    const sameError = found.find((f) => f.diagnostics.some((x) => x.code === d.code && x.file === d.file && firstLine(x.message) === firstLine(d.message)));
    if (sameError) {
      sameError.diagnostics.push(d);
      continue;
    }
    const text = project.read(abs) ?? "";
    const actions = project.ls
      .getCodeFixesAtPosition(abs, match.start, match.start + (match.length ?? 0), [code], formatSettings(ts, text), PREFERENCES)
      .filter((a) => !DENIED.has(a.fixName))
      .map((a, i) => ({ a, i, changes: toFileChanges(worktree, a) }))
      .filter((x): x is { a: TS.CodeFixAction; i: number; changes: FileChanges } => x.changes !== null)
      .sort((x, y) => fixRank(x.a) - fixRank(y.a) || x.i - y.i);
    if (actions.length === 0) {
      result.unfixed.push(d);
      continue;
    }
    // Several fixes may remove the error (an import of a same-named export from another module, say):
    // the one that leaves the fewest errors wins; the service's order breaks ties.
    let accepted: TsFix | undefined;
    let checked = 0;
    for (const { a, changes } of actions.slice(0, MAX_TRIES_PER_ERROR)) {
      const rewrites = rewritesOf(project, worktree, changes);
      if (!rewrites) continue;
      const touched = new Set([abs, ...changes.keys()]);
      const before = [...touched].reduce((n, f) => n + errorsBefore(f).length, 0);
      const overlay = new Map(rewrites.map((r) => [path.join(worktree, r.path), r.after]));
      const check = project.withOverlay(overlay, () => ({
        after: errorCount(project, touched),
        stillThere: project.errors(abs).some((e) => e.code === code && messageOf(ts, e) === messageOf(ts, match)),
      }));
      await yieldToEventLoop();
      checked++;
      if (check.stillThere || check.after >= before) continue;
      if (accepted && accepted.errorsAfter <= check.after) continue;
      accepted = {
        diagnostics: [d],
        fixName: a.fixName,
        description: a.description,
        rewrites,
        errorsBefore: before,
        errorsAfter: check.after,
        alternatives: actions
          .filter((x) => x.a !== a)
          .map((x) => x.a.description)
          .slice(0, 3),
        placeholder: PLACEHOLDERS.has(a.fixName),
        changes,
      };
      if (check.after === 0) break;
    }
    // Into the result at once: if the budget runs out later, what was found is still offered.
    if (accepted) {
      found.push(accepted);
      result.fixes.push(accepted);
    } else {
      if (checked > 0) result.rejected++;
      result.unfixed.push(d);
    }
  }

  // All fixes at once, when more than one: one step instead of several. Placeholders stay out of it:
  // they make the build pass with a stub, which the model should choose knowingly.
  const real = found.filter((f) => !f.placeholder);
  if (real.length < 2 || result.combined) return;
  const { changes, taken } = combineFixes(real.map((f) => f.changes));
  if (taken.length < 2) return;
  const rewrites = rewritesOf(project, worktree, changes);
  if (!rewrites) return;
  const touched = new Set([...changes.keys(), ...taken.flatMap((i) => real[i]!.diagnostics.map((d) => path.join(worktree, d.file!)))]);
  const before = [...touched].reduce((n, f) => n + errorsBefore(f).length, 0);
  const after = project.withOverlay(new Map(rewrites.map((r) => [path.join(worktree, r.path), r.after])), () => errorCount(project, touched));
  if (after >= before) {
    result.rejected++;
    return;
  }
  result.combined = { rewrites, fixes: taken.map((i) => real[i]!), errorsBefore: before, errorsAfter: after };
}
