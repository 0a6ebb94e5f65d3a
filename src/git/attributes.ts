/**
 * The attributes that decide whether git changes a file's bytes between worktree and repository (end of
 * line conversion, ident, filters such as git-lfs, working-tree encodings), asked of one long-lived
 * `git check-attr --stdin -z` per worktree: 0.4 ms a question, measured, against a process each time.
 * git reads a folder's .gitattributes once per process and keeps it, so the process must end whenever
 * what it read may have changed: every attribute file it may have read (the worktree's, on the paths
 * asked about, and core.attributesFile, info/attributes, the system's) is stamped at each question and
 * a change ends it; the caller also ends it when a .gitattributes is among a step's paths (closeAttributes).
 * Any failure, or no answer within TIMEOUT_MS, answers null: the caller then lets git write the files.
 */
import os from "node:os";
import path from "node:path";
import { fileStamp } from "../util/file-stamp.js";
import { closeGitProcesses, inTurn, LongGit, longGit } from "./long-lived.js";

const NAMES = ["text", "eol", "crlf", "ident", "filter", "working-tree-encoding"] as const;
/** Each as check-attr says it: "unspecified", "set", "unset" or the value. */
export type Attributes = Record<(typeof NAMES)[number], string>;
const TIMEOUT_MS = 5000;

class CheckAttr extends LongGit {
  private rest = "";
  private fields: string[] = [];
  private waiting: { want: number; done: (fields: string[] | null) => void } | null = null;
  /** The worktree's .gitattributes files as they were when this process was first asked about their folders. */
  readonly seen = new Map<string, string>();
  /**
   * Its answers by path. They hold as long as the process does: it is ended as soon as an attribute file
   * it may have read changes, and nothing else decides a path's attributes. A step rewriting the files
   * of the step before (the usual refinement loop) then asks nothing: a round trip to git is ~0.3 ms
   * warm and 0.7 ms after a pause (bench/step-cost.mjs, phase "tree").
   */
  readonly answers = new Map<string, Attributes>();

  constructor(
    cwd: string,
    readonly stamp: string,
  ) {
    super(cwd, ["check-attr", "--stdin", "-z", ...NAMES]);
  }

  protected received(d: Buffer): void {
    const parts = (this.rest + d.toString("utf8")).split("\0");
    this.rest = parts.pop()!;
    this.fields.push(...parts);
    if (this.waiting && this.fields.length >= this.waiting.want) this.finish(this.fields.splice(0));
  }

  protected ended(): void {
    this.finish(null);
  }

  private finish(fields: string[] | null): void {
    const w = this.waiting;
    this.waiting = null;
    this.hold(false);
    w?.done(fields);
  }

  ask(paths: string[]): Promise<string[] | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        // A git that does not answer may never end on its own (e.g. blocked opening a FIFO named .gitattributes).
        this.close("SIGKILL");
        this.finish(null);
      }, TIMEOUT_MS);
      this.waiting = {
        want: paths.length * NAMES.length * 3,
        done: (f) => {
          clearTimeout(timer);
          resolve(f);
        },
      };
      this.send(paths.map((p) => `${p}\0`).join(""));
    });
  }
}

/** A link is stamped as itself: git reads no .gitattributes through one. */
const stampOf = (file: string | null): string => (file ? fileStamp(file, false) : null) ?? "-";

/** What the attribute files outside the worktree are now (a change ends the process that read them). */
function outsideStamp(commonDir: string, attributesFile: string | null): string {
  const xdg = path.join(process.env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config"), "git", "attributes");
  return [attributesFile, xdg, path.join(commonDir, "info", "attributes"), "/etc/gitattributes"].map(stampOf).join("|");
}

/**
 * The .gitattributes git reads for `paths`: the worktree's root one and one per folder on each path
 * (git keeps those it read while later paths share their folders). Stamped at each question, so that
 * one changed, created or removed since (by a command, an untracked one included) ends the process.
 */
function folderFiles(worktree: string, paths: string[]): string[] {
  const files = new Set<string>([path.join(worktree, ".gitattributes")]);
  for (const p of paths) {
    const parts = p.split("/");
    for (let i = 1; i < parts.length; i++) files.add(path.join(worktree, ...parts.slice(0, i), ".gitattributes"));
  }
  return [...files];
}

/**
 * The attributes of `paths` (repository-relative, without NUL) in `worktree`, or null when git could not
 * say. `attributesFile`: core.attributesFile as configured, for the stamp.
 */
export function attributesOf(
  worktree: string,
  commonDir: string,
  paths: string[],
  attributesFile: string | null = null,
): Promise<Map<string, Attributes> | null> {
  if (paths.length === 0) return Promise.resolve(new Map());
  const next = inTurn("check-attr", worktree, async () => {
    const stamp = outsideStamp(commonDir, attributesFile);
    const folders = folderFiles(worktree, paths).map((f) => [f, stampOf(f)] as const);
    const fresh = (c: CheckAttr) => c.stamp === stamp && !folders.some(([f, st]) => c.seen.has(f) && c.seen.get(f) !== st);
    const r = longGit("check-attr", worktree, () => new CheckAttr(worktree, stamp), fresh);
    for (const [f, st] of folders) if (!r.seen.has(f)) r.seen.set(f, st);
    const ask = [...new Set(paths.filter((p) => !r.answers.has(p)))];
    if (ask.length > 0) {
      const fields = await r.ask(ask);
      if (!fields) return null;
      const got = new Map<string, Attributes>();
      for (let i = 0; i + 2 < fields.length; i += 3) {
        const [p, name, value] = [fields[i]!, fields[i + 1]!, fields[i + 2]!];
        if (!(NAMES as readonly string[]).includes(name)) return null;
        got.set(p, { ...(got.get(p) ?? ({} as Attributes)), [name]: value });
      }
      if (!ask.every((p) => got.has(p))) return null;
      if (r.answers.size > 4096) r.answers.clear();
      for (const [p, a] of got) r.answers.set(p, a);
    }
    return new Map(paths.map((p) => [p, r.answers.get(p)!]));
  });
  return next.catch(() => null);
}

/** Ends the worktree's process: the next question starts one that reads the attribute files afresh. */
export function closeAttributes(worktree: string): void {
  closeGitProcesses(worktree, "check-attr");
}

const on = (v: string) => v !== "unspecified" && v !== "unset";

/**
 * Whether git keeps a regular file's bytes as they are under `a`: when it stores them ("in": `git add`)
 * or writes them into the worktree ("out": checkout), or both (a checkout that `update-index` then stages). Filters, ident and working-tree encodings change
 * them; end-of-line conversion of a text file changes CRLF on the way in (so no CR may be present) and
 * LF on the way out only with eol=crlf (core.autocrlf and core.eol=crlf are refused for the whole
 * session before this is asked). Anything unusual answers false: git then decides.
 */
export function bytesKept(a: Attributes, content: Buffer, direction: "in" | "out" | "both"): boolean {
  if (on(a.filter) || on(a.ident) || on(a["working-tree-encoding"])) return false;
  if (!["unspecified", "unset", "set", "auto"].includes(a.text)) return false;
  if (!["unspecified", "unset", "lf", "crlf"].includes(a.eol) || a.eol === "crlf") return false;
  if (!["unspecified", "unset", "set", "input"].includes(a.crlf)) return false;
  // -text (binary), or no attribute that makes it text: git converts nothing.
  const text = a.text !== "unset" && (on(a.text) || a.eol === "lf" || a.crlf === "set" || a.crlf === "input");
  if (!text) return true;
  return direction === "out" || !content.includes(0x0d);
}
