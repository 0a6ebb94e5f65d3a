import { matchesGlob } from "../util/glob.js";
import type { FileChange, ProjectInfo } from "./types.js";

/**
 * Generated files the path alone does not show (lang.ts knows dist/, *.gen.ts, lock files): what the
 * project says (.gitattributes `linguist-generated`), declaration files in the folders package.json
 * publishes (`lib/index.d.cts` beside `"types": "./lib/index.d.cts"`), and a generator's header.
 * They are reviewed for secrets only: their code is a tool's output, not the author's. Pure.
 */

/** Paths .gitattributes marks `linguist-generated` (set or `=true`; `-linguist-generated` unmarks). */
export function linguistGenerated(gitattributes: string | null | undefined): string[] {
  const out: string[] = [];
  for (const raw of (gitattributes ?? "").split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const [pattern, ...attrs] = line.split(/\s+/);
    if (pattern && attrs.some((a) => a === "linguist-generated" || a === "linguist-generated=true")) out.push(pattern);
  }
  return out;
}

/** The top folders package.json publishes or points its entry points into (`files`, main, types, exports). */
export function publishedFolders(packageJson: string | null | undefined): string[] {
  let pkg: Record<string, unknown>;
  try {
    pkg = JSON.parse(packageJson ?? "{}") as Record<string, unknown>;
  } catch {
    return [];
  }
  const paths: string[] = [];
  const collect = (v: unknown): void => {
    if (typeof v === "string") paths.push(v);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === "object") Object.values(v).forEach(collect);
  };
  for (const k of ["files", "main", "module", "types", "typings", "exports"]) collect(pkg[k]);
  const folders = new Set<string>();
  for (const p of paths) {
    const segs = p.replace(/^\.\//, "").split("/");
    // A bare name in `files` is a folder (or a root file, which no declaration file lives under).
    if (segs.length > 1 && /^[\w.@-]+$/.test(segs[0]!) && segs[0] !== "..") folders.add(segs[0]!);
    else if (segs.length === 1 && /^[\w@-]+$/.test(segs[0]!)) folders.add(segs[0]!);
  }
  return [...folders];
}

const DECLARATION = /\.d\.[cm]?ts$/;
// "Do not edit" alone also heads hand-written files ("do not edit without updating X"): only in capitals, as generators print it.
const HEADER = /@generated\b|\bauto-?generated\b|\bgenerated (?:by|from|with|using)\b|\b(?:file|code) (?:is |was )?(?:automatically )?generated\b/i;
const DO_NOT_EDIT = /\bDO NOT EDIT\b/;

/** The first lines of the file, when the change shows them. */
function firstLines(file: FileChange): string {
  const out: string[] = [];
  for (let ln = 1; ln <= 5; ln++) {
    const l = file.known.get(ln);
    if (l === undefined) break;
    out.push(l);
  }
  return out.join("\n");
}

/** Whether a generator's header opens the file: a comment on one of its first lines saying so. */
export function hasGeneratedHeader(file: FileChange): boolean {
  return firstLines(file)
    .split("\n")
    .some((l) => /^\s*(?:\/\/|\/\*|\*|#|<!--|--)/.test(l) && (HEADER.test(l) || DO_NOT_EDIT.test(l)));
}

/**
 * The project's markings a change may be judged by: a `.gitattributes` the change itself edits marks
 * nothing generated, or one line (`* linguist-generated`) would turn a pull request's every rule off.
 */
export function markingsFor(project: ProjectInfo, files: FileChange[]): ProjectInfo {
  if (!project.generated || !files.some((f) => f.path === ".gitattributes" || f.oldPath === ".gitattributes")) return project;
  const { generated: _, ...rest } = project;
  return rest;
}

export function isGeneratedByProject(file: FileChange, project: ProjectInfo): boolean {
  if (project.generated?.some((g) => matchesGlob(file.path, g))) return true;
  if (DECLARATION.test(file.path) && project.publishedFolders?.includes(file.path.split("/")[0]!) && file.path.includes("/")) return true;
  return hasGeneratedHeader(file);
}
