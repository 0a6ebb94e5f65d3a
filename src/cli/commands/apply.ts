import { lstat, readlink, realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { GitError, git, gitOrNull } from "../../git/cli.js";
import { type Point, resolvePoint } from "../../session/points.js";
import type { Session } from "../../session/session.js";
import { cliCommand } from "../../util/cli-name.js";
import { UserError } from "../../util/errors.js";
import { expectPositionals, flagBool, flagString } from "../args.js";
import { type Command, printJson } from "../command.js";
import { checkId, findSession, openCheckout, type Repo } from "../find.js";
import { plural } from "../format.js";
import { mergeFile } from "../merge3.js";
import { diffBytes, withTempFile } from "../patch.js";

/** One path the session changed, with its state at the baseline ("000000" mode = absent). */
export interface Change {
  path: string;
  status: string;
  baseMode: string;
  baseOid: string;
  targetMode: string;
  targetOid: string;
}

const ABSENT = "000000";

export function parseRawZ(out: string): Change[] {
  const parts = out.split("\0");
  const changes: Change[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = parts[i]!;
    if (!meta.startsWith(":")) break;
    const [baseMode, targetMode, baseOid, targetOid, status] = meta.slice(1).split(" ") as [string, string, string, string, string];
    changes.push({ path: parts[i + 1]!, status: status.slice(0, 1), baseMode, baseOid, targetMode, targetOid });
  }
  return changes;
}

function chunks<T>(xs: T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

/** Paths among `paths` with uncommitted changes of the user's: staged, unstaged or untracked. */
export async function uncommittedPaths(top: string, paths: string[]): Promise<Set<string>> {
  const dirty = new Set<string>();
  for (const part of chunks(paths, 500)) {
    // GIT_OPTIONAL_LOCKS=0 (set by git()) keeps status from refreshing, i.e. rewriting, the user's index.
    const out = await git(top, ["status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignored=no", "--no-renames", "--", ...part], {
      env: { GIT_LITERAL_PATHSPECS: "1" },
    });
    for (const rec of out.split("\0")) {
      const fields = rec.startsWith("1 ") ? 8 : rec.startsWith("u ") ? 10 : rec.startsWith("? ") ? 1 : rec.startsWith("2 ") ? 9 : -1;
      if (fields < 0) continue;
      dirty.add(rec.split(" ").slice(fields).join(" "));
    }
  }
  return dirty;
}

/** The working-tree state of paths as git would record them (blob id after clean filters, mode); null = absent. */
async function worktreeEntries(top: string, paths: string[]): Promise<Map<string, { mode: string; oid: string } | null>> {
  const out = new Map<string, { mode: string; oid: string } | null>();
  const files: { path: string; mode: string }[] = [];
  for (const p of paths) {
    const st = await lstat(path.join(top, p)).catch(() => null);
    if (!st) out.set(p, null);
    else if (st.isSymbolicLink()) {
      const oid = (await git(top, ["hash-object", "--no-filters", "--stdin"], { input: await readlink(path.join(top, p)) })).trim();
      out.set(p, { mode: "120000", oid });
    } else if (st.isFile()) files.push({ path: p, mode: st.mode & 0o111 ? "100755" : "100644" });
    else out.set(p, { mode: "040000", oid: "" });
  }
  for (const part of chunks(files, 500)) {
    const oids = (await git(top, ["hash-object", "--", ...part.map((f) => f.path)])).trim().split("\n");
    part.forEach((f, i) => out.set(f.path, { mode: f.mode, oid: oids[i] ?? "" }));
  }
  return out;
}

type Entry = { mode: string; oid: string } | null;

/** Whether a working-tree entry is the blob `oid` with `mode` (mode "000000" = must be absent). */
function sameEntry(w: Entry, mode: string, oid: string, fileMode: boolean): boolean {
  if (mode === ABSENT) return w === null;
  if (w === null) return false;
  // With core.fileMode=false git ignores the executable bit, and so does this comparison.
  const sameMode = w.mode === mode || (!fileMode && w.mode.startsWith("100") && mode.startsWith("100"));
  return w.oid === oid && sameMode;
}

async function fileModeMatters(top: string): Promise<boolean> {
  return ((await gitOrNull(top, ["config", "--type=bool", "--get", "core.fileMode"])) ?? "true").trim() !== "false";
}

/**
 * Files the patch touches whose uncommitted content differs from the session's baseline: applying
 * would overwrite (or merge into) work the user has not committed, which git could not give back.
 * A dirty file that still equals the baseline is safe: the baseline already contains that work.
 */
export async function conflictingPaths(top: string, changes: Change[]): Promise<string[]> {
  const dirty = await uncommittedPaths(
    top,
    changes.map((c) => c.path),
  );
  const touched = changes.filter((c) => dirty.has(c.path));
  if (touched.length === 0) return [];
  const wt = await worktreeEntries(
    top,
    touched.map((c) => c.path),
  );
  const fileMode = await fileModeMatters(top);
  return touched.filter((c) => !sameEntry(wt.get(c.path) ?? null, c.baseMode, c.baseOid, fileMode)).map((c) => c.path);
}

/** True when every file the session changed already has the session's content in the working tree. */
export async function alreadyApplied(top: string, changes: Change[]): Promise<boolean> {
  const wt = await worktreeEntries(
    top,
    changes.map((c) => c.path),
  );
  const fileMode = await fileModeMatters(top);
  return changes.every((c) => sameEntry(wt.get(c.path) ?? null, c.targetMode, c.targetOid, fileMode));
}

async function sameRepository(a: string, b: string): Promise<boolean> {
  const [ra, rb] = await Promise.all([realpath(a).catch(() => a), realpath(b).catch(() => b)]);
  return ra === rb;
}

interface ApplyPlan {
  target: Point;
  changes: Change[];
}

/**
 * Three-way merges the files both the user and the session changed (`touched`). Only content changes
 * of regular files merge; a file one side added, deleted or re-typed is a conflict as it stands.
 */
async function mergeTouched(
  commonDir: string,
  top: string,
  changes: Change[],
  touched: string[],
): Promise<{ merged: Map<string, Buffer>; conflicts: { path: string; where: string }[] }> {
  const merged = new Map<string, Buffer>();
  const conflicts: { path: string; where: string }[] = [];
  for (const p of touched) {
    const c = changes.find((x) => x.path === p)!;
    const st = await lstat(path.join(top, p)).catch(() => null);
    if (c.status !== "M" || c.baseMode !== c.targetMode || !c.baseMode.startsWith("100") || !st?.isFile()) {
      conflicts.push({
        path: p,
        where:
          c.status === "A"
            ? "the session adds this file, and yours differs"
            : c.status === "D"
              ? "the session deletes this file, which you changed"
              : "changed in a way that cannot be merged line by line (type or mode)",
      });
      continue;
    }
    const m = await mergeFile(commonDir, top, p, c.baseOid, c.targetOid);
    if (m.ok) merged.set(p, m.merged);
    else conflicts.push({ path: p, where: `conflict at ${m.conflicts.join("; ")}` });
  }
  return { merged, conflicts };
}

async function planApply(s: Session, best: boolean): Promise<ApplyPlan> {
  const point = await resolvePoint(s, best ? "best" : "current");
  const out = await git(s.config.commonDir, ["diff", "--raw", "-z", "--no-renames", "--no-abbrev", s.baseline.commit, point.commit, "--"]);
  return { target: point, changes: parseRawZ(out) };
}

export const applyCommand: Command = {
  name: "apply",
  summary: "bring a session's result into your checkout as uncommitted changes",
  usage: "code-trm apply <id> [--best] [--dry-run] [--repo <path>] [--json]",
  description: [
    "Applies the session's changes (baseline to current, or to the best step with --best) to the working",
    "tree of your checkout (the current directory's, or --repo) as uncommitted changes. Only files change:",
    "the index, HEAD, branches and stash are never touched. Review with `git diff`, keep with `git add`.",
    "",
    "A file the session changed that also has uncommitted changes of yours is merged line by line (baseline,",
    "yours, the session's): your edits stay. It refuses, changing nothing, on a real conflict (both changed",
    "the same lines; it names them) and when the changes do not apply cleanly (e.g. you committed other",
    "edits to those lines since the session started).",
  ].join("\n"),
  options: {
    best: { type: "boolean", help: "apply the best step instead of the current one" },
    "dry-run": { type: "boolean", help: "check and list what would change, change nothing" },
    repo: { type: "string", value: "<path>", help: "checkout to apply to (default: the current one)" },
    json: { type: "boolean", help: "machine-readable output (stable keys)" },
  },
  async run(args, io) {
    const [id] = expectPositionals(args, 1, 1, "apply", "<id>");
    const repoArg = flagString(args, "repo");
    const checkout: Repo = await openCheckout(repoArg, io.cwd);
    const s = await findSession(checkId(id, "apply"), repoArg, io.cwd);
    if (!(await sameRepository(checkout.commonDir, s.config.commonDir))) {
      throw new UserError(
        `Session ${s.id} belongs to another repository (${s.config.repoTop}), not to ${checkout.top}.`,
        "Run apply inside a checkout of the session's repository.",
      );
    }
    const dryRun = flagBool(args, "dry-run");
    const { target, changes } = await planApply(s, flagBool(args, "best"));
    const where = `${target.label}${target.step !== undefined && target.label !== `step ${target.step}` ? `, step ${target.step}` : ""}`;
    const report = (applied: boolean, merged = new Map<string, Buffer>()) => ({
      alreadyApplied: false,
      sessionId: s.id,
      target: target.label,
      step: target.step ?? null,
      commit: target.commit,
      checkout: checkout.top,
      dryRun,
      applied,
      files: changes.map((c) => ({ path: c.path, status: c.status, ...(merged.has(c.path) ? { merged: true } : {}) })),
    });
    if (changes.length === 0) {
      if (flagBool(args, "json")) printJson(io, report(false));
      else io.out(`nothing to apply: the session's ${target.label} has the same files as its baseline\n`);
      return 0;
    }
    const submodules = changes.filter((c) => c.baseMode === "160000" || c.targetMode === "160000");
    if (submodules.length) {
      throw new UserError(
        `The session changed submodules (${submodules.map((c) => c.path).join(", ")}); apply only brings in files.`,
        `Use git: git diff trm/${s.id}/baseline ${target.commit.slice(0, 12)}.`,
      );
    }
    const touched = await conflictingPaths(checkout.top, changes);
    // Already there (applied before, perhaps committed since): say so, whatever else the files show.
    if (await alreadyApplied(checkout.top, changes)) {
      if (flagBool(args, "json")) printJson(io, { ...report(false), alreadyApplied: true });
      else io.out(`nothing to apply: your working tree already has the session's ${target.label} (${target.commit.slice(0, 12)}) in every file it changed\n`);
      return 0;
    }
    // A file both you and the session changed is merged line by line; only a real conflict refuses.
    const { merged, conflicts } = await mergeTouched(s.config.commonDir, checkout.top, changes, touched);
    if (conflicts.length) {
      throw new UserError(
        `Refused: ${plural(conflicts.length, "file")} the session changed ${conflicts.length === 1 ? "has" : "have"} uncommitted changes of yours that conflict with the session's:\n${conflicts.map((c) => `  ${c.path}: ${c.where}`).join("\n")}\nNothing was changed.`,
        `Commit or set aside your changes to ${conflicts.length === 1 ? "that file" : "those files"} first, or apply into a clean worktree (git worktree add ../review && cd ../review && ${cliCommand()} apply ${s.id}).`,
      );
    }
    const rest = changes.filter((c) => !merged.has(c.path)).map((c) => c.path);
    const patch = rest.length ? await diffBytes(s.config.commonDir, s.baseline.commit, target.commit, { binary: true, paths: rest }) : null;
    if (patch) {
      await withTempFile(patch, async (file) => {
        // Never --index or --3way: those write the user's index. Plain `git apply` is all-or-nothing.
        try {
          await git(checkout.top, ["apply", "--check", "--whitespace=nowarn", "--", file]);
        } catch (err) {
          if (!(err instanceof GitError)) throw err;
          const why = err.stderr
            .trim()
            .split("\n")
            .map((l) => `  ${l.replace(/^error: /, "")}`)
            .join("\n");
          throw new UserError(
            `The session's changes do not apply cleanly to your checkout:\n${why}\nNothing was changed.`,
            `Your files differ from the session's baseline (e.g. commits since the session started). To merge with conflict markers (this writes your index): git diff trm/${s.id}/baseline ${target.commit.slice(0, 12)} | git apply --3way`,
          );
        }
        if (!dryRun) await git(checkout.top, ["apply", "--whitespace=nowarn", "--", file]);
      });
    }
    if (!dryRun) for (const [p, content] of merged) await writeFile(path.join(checkout.top, p), content);
    if (flagBool(args, "json")) {
      printJson(io, report(!dryRun, merged));
      return 0;
    }
    const p = io.paint;
    const color = (st: string) => (st === "A" ? p.green(st) : st === "D" ? p.red(st) : p.yellow(st));
    io.out(
      [
        `${dryRun ? "would apply" : "applied"} session ${s.id} (${where}, ${target.commit.slice(0, 12)}) to ${checkout.top}${dryRun ? " (dry run: nothing changed)" : " as uncommitted changes"}:`,
        ...changes.map((c) => ` ${color(c.status)} ${c.path}${merged.has(c.path) ? " (merged with your uncommitted changes)" : ""}`),
        dryRun
          ? "it applies cleanly; run without --dry-run to apply."
          : `${plural(changes.length, "file")} changed; index, HEAD, branches and stash untouched.`,
        ...(dryRun ? [] : [`review: git diff    undo: git diff trm/${s.id}/baseline ${target.commit.slice(0, 12)} | git apply -R`]),
      ].join("\n") + "\n",
    );
    return 0;
  },
};
