import { gitBytes, gitOrNull } from "../git/cli.js";
import { splitLines } from "./diff.js";
import { linguistGenerated, publishedFolders } from "./generated.js";
import { fileKind } from "./lang.js";
import type { FileChange, ProjectInfo } from "./types.js";

/**
 * Whole files for the review. A diff shows hunks, and a hunk that starts inside a doc comment puts a
 * lexer out of step; with the whole new file every line is known and parsers see complete code.
 * Reading is bounded: at most {@link MAX_CONTENT_FILES} files of at most {@link MAX_CONTENT_BYTES}
 * each; the others keep their hunks (and a note says so).
 */

export const MAX_CONTENT_FILES = 150;
export const MAX_CONTENT_BYTES = 1024 * 1024;

/** Reads one file of the head, or null when absent or too large. */
export type ReadFile = (path: string) => Promise<string | null>;

/** Makes the whole new file known: every line of it becomes a context or added line. */
export function attachContent(file: FileChange, content: string): void {
  const lines = splitLines(content);
  // A file whose added lines lie beyond its length is not the file the diff was made against.
  if (file.added.some((ln) => ln > lines.length)) return;
  const known = new Map<number, string>();
  lines.forEach((l, i) => known.set(i + 1, l));
  file.known = known;
  file.content = content;
}

/** The files whose contents are worth reading: text with added lines, not generated. */
export function wantsContent(f: FileChange): boolean {
  const k = fileKind(f.path);
  return !f.binary && f.status !== "deleted" && f.added.length > 0 && !k.isGenerated && k.syntax !== "none" && f.content === undefined;
}

/** Attaches the contents of the change's files, read through `read`; returns notes on what was skipped. */
export async function attachContents(files: FileChange[], read: ReadFile): Promise<string[]> {
  const wanted = files.filter(wantsContent);
  const take = wanted.slice(0, MAX_CONTENT_FILES);
  const skipped = wanted.length - take.length;
  let i = 0;
  const worker = async (): Promise<void> => {
    while (i < take.length) {
      const f = take[i++]!;
      const text = await read(f.path).catch(() => null);
      if (text !== null) attachContent(f, text);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return skipped > 0 ? [`Whole files were read for the first ${MAX_CONTENT_FILES} files; ${skipped} more were reviewed from their hunks only.`] : [];
}

/** Reads files of commit `sha` from git objects (no checkout; nothing written). */
export function gitReader(top: string, sha: string): ReadFile {
  return async (p) => {
    const size = Number((await gitOrNull(top, ["cat-file", "-s", `${sha}:${p}`]))?.trim());
    if (!Number.isFinite(size) || size > MAX_CONTENT_BYTES) return null;
    const bytes = await gitBytes(top, ["cat-file", "blob", `${sha}:${p}`]);
    return bytes.includes(0) ? null : bytes.toString("utf8");
  };
}

const ESLINT_FILES = [
  ".eslintrc",
  ".eslintrc.json",
  ".eslintrc.js",
  ".eslintrc.cjs",
  ".eslintrc.yml",
  ".eslintrc.yaml",
  "eslint.config.js",
  "eslint.config.mjs",
  "eslint.config.ts",
];
const CONFIG_FILES = [".editorconfig", ".prettierrc", ".prettierrc.json", "package.json", "biome.json", "biome.jsonc", ".gitattributes", ...ESLINT_FILES];

/**
 * Our rules the project's own linter has switched off (eslint, xo or biome): a project that writes
 * "noExplicitAny: off" has decided, and a reviewer repeating the rule on every PR is noise. Only a
 * rule that is off everywhere counts (an override that turns it off for tests leaves it on).
 */
const LINT_NAMES: Record<string, string[]> = {
  "ts-explicit-any": ["no-explicit-any", "noExplicitAny"],
  "ts-non-null-assertion": ["no-non-null-assertion", "noNonNullAssertion"],
  "console-log": ["no-console", "noConsole", "noConsoleLog"],
};

export function rulesTurnedOff(configs: Record<string, string | null>): string[] {
  const text = [...ESLINT_FILES, "biome.json", "biome.jsonc", "package.json"].map((n) => configs[n] ?? "").join("\n");
  const off: string[] = [];
  for (const [rule, names] of Object.entries(LINT_NAMES)) {
    const settings: string[] = [];
    for (const name of names) {
      const re = new RegExp(`["']?(?:@typescript-eslint/)?${name}["']?\\s*:\\s*(?:\\[\\s*)?["']?(off|warn|error|[012])\\b`, "g");
      for (let m = re.exec(text); m; m = re.exec(text)) settings.push(m[1]!);
    }
    if (settings.length > 0 && settings.every((s) => s === "off" || s === "0")) off.push(rule);
  }
  return off;
}

/**
 * The line-length limit the project sets, in the order a formatter would apply it: eslint's max-len
 * (an explicit lint rule), prettier's printWidth, .editorconfig's max_line_length for JS/TS or all files.
 * Prettier's printWidth is a target, not a limit (it never breaks strings), so it only counts for code.
 */
export function lineLimitFrom(configs: Record<string, string | null>): number | undefined {
  for (const name of ESLINT_FILES) {
    const text = configs[name];
    if (!text) continue;
    const m = /["']?max-len["']?\s*:\s*\[\s*["']?(?:error|warn|1|2)["']?\s*,\s*(?:(\d+)|\{[^}]*\bcode["']?\s*:\s*(\d+))/.exec(text);
    if (m) return Number(m[1] ?? m[2]);
  }
  for (const name of [".prettierrc", ".prettierrc.json"]) {
    const m = /["']?printWidth["']?\s*:\s*(\d+)/.exec(configs[name] ?? "");
    if (m) return Number(m[1]);
  }
  const pkg = configs["package.json"];
  if (pkg) {
    try {
      const width = (JSON.parse(pkg) as { prettier?: { printWidth?: unknown } }).prettier?.printWidth;
      if (typeof width === "number" && width > 0) return width;
    } catch {
      // A broken package.json says nothing about line length.
    }
  }
  const ec = configs[".editorconfig"];
  if (ec) {
    let applies = false;
    for (const raw of ec.split(/\r?\n/)) {
      const line = raw.trim();
      const section = /^\[(.*)\]$/.exec(line);
      if (section) applies = section[1] === "*" || /\b(?:ts|js)\b/.test(section[1]!);
      const m = /^max_line_length\s*=\s*(\d+)/i.exec(line);
      if (applies && m) return Number(m[1]);
    }
  }
  return undefined;
}

/** Reads the project's configuration at the head and derives what the rules need. */
export async function projectInfo(read: ReadFile, title?: string): Promise<ProjectInfo> {
  const configs: Record<string, string | null> = {};
  await Promise.all(CONFIG_FILES.map(async (n) => (configs[n] = await read(n).catch(() => null))));
  const maxLineLength = lineLimitFrom(configs);
  let express5 = false;
  try {
    const pkg = JSON.parse(configs["package.json"] ?? "{}") as { dependencies?: Record<string, string> };
    express5 = /^\D*5\./.test(pkg.dependencies?.express ?? "");
  } catch {
    // unreadable package.json: Express 4 semantics assumed when express is imported
  }
  const off = rulesTurnedOff(configs);
  const generated = linguistGenerated(configs[".gitattributes"]);
  const published = publishedFolders(configs["package.json"]);
  return {
    ...(maxLineLength ? { maxLineLength } : {}),
    ...(title !== undefined ? { title } : {}),
    ...(express5 ? { express5 } : {}),
    ...(off.length ? { off } : {}),
    ...(generated.length ? { generated } : {}),
    ...(published.length ? { publishedFolders: published } : {}),
  };
}
