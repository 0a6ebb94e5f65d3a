/**
 * What kind of file a path is. Rules are language-aware: a console call is only a finding in JS/TS,
 * a `: any` only in TypeScript, while hard-coded secrets matter in every text file.
 */
import { isTestByName } from "../evaluate/test-paths.js";

export type Syntax = "js" | "c" | "python" | "hash" | "sql" | "markup" | "none";

export interface FileKind {
  /** Language family used to lex the file. */
  syntax: Syntax;
  /** JavaScript or TypeScript (any flavour). */
  isJsLike: boolean;
  /** TypeScript (type annotations exist). */
  isTs: boolean;
  /** Source code (as opposed to docs, data and configuration). */
  isCode: boolean;
  isTest: boolean;
  /** Generated, vendored, minified or lock files: reviewed for secrets only. */
  isGenerated: boolean;
  /** Documentation (markdown, text): examples there are not code. */
  isDoc: boolean;
  /** Command-line, script, example or benchmark code, where printing to the console is the job. */
  isScript: boolean;
  /** `.env`-style files: KEY=value lines. */
  isEnv: boolean;
}

const EXT_SYNTAX: Record<string, Syntax> = {
  js: "js",
  jsx: "js",
  mjs: "js",
  cjs: "js",
  ts: "js",
  tsx: "js",
  mts: "js",
  cts: "js",
  java: "c",
  c: "c",
  h: "c",
  cc: "c",
  cpp: "c",
  cxx: "c",
  hpp: "c",
  cs: "c",
  go: "c",
  rs: "c",
  kt: "c",
  kts: "c",
  swift: "c",
  scala: "c",
  dart: "c",
  php: "c",
  groovy: "c",
  py: "python",
  pyi: "python",
  rb: "hash",
  sh: "hash",
  bash: "hash",
  zsh: "hash",
  pl: "hash",
  r: "hash",
  yml: "hash",
  yaml: "hash",
  toml: "hash",
  properties: "hash",
  ini: "hash",
  cfg: "hash",
  conf: "hash",
  env: "hash",
  tf: "hash",
  sql: "sql",
  lua: "sql",
  hs: "sql",
  html: "markup",
  htm: "markup",
  xml: "markup",
  vue: "markup",
  svelte: "markup",
  md: "markup",
  mdx: "markup",
};

const CODE_EXT = new Set([
  "js",
  "jsx",
  "mjs",
  "cjs",
  "ts",
  "tsx",
  "mts",
  "cts",
  "java",
  "c",
  "h",
  "cc",
  "cpp",
  "cxx",
  "hpp",
  "cs",
  "go",
  "rs",
  "kt",
  "kts",
  "swift",
  "scala",
  "dart",
  "php",
  "groovy",
  "py",
  "rb",
  "sh",
  "bash",
  "zsh",
  "pl",
  "lua",
  "vue",
  "svelte",
  "sql",
]);

const DOC_EXT = new Set(["md", "mdx", "txt", "rst", "adoc"]);

const BINARY_EXT = new Set([
  "png",
  "jpg",
  "jpeg",
  "gif",
  "webp",
  "ico",
  "bmp",
  "tiff",
  "pdf",
  "zip",
  "gz",
  "tgz",
  "bz2",
  "xz",
  "7z",
  "jar",
  "woff",
  "woff2",
  "ttf",
  "otf",
  "eot",
  "mp3",
  "mp4",
  "mov",
  "avi",
  "wasm",
  "so",
  "dll",
  "dylib",
  "exe",
  "bin",
  "class",
  "pyc",
  "sqlite",
  "db",
]);

function extOf(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : "";
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

// Fixtures (`fixtures/`, Jest's `__fixtures__/`, any case) are test inputs, often other projects' code: not code to review as ours.
const FIXTURE_DIR_RE = /(^|\/)(fixtures?|__fixtures__)\//i;

/** Test files (evaluate/test-paths.ts) and fixtures. */
export function isTestPath(path: string): boolean {
  return isTestByName(path) || FIXTURE_DIR_RE.test(path);
}

function isGeneratedPath(path: string): boolean {
  const p = path.toLowerCase();
  const base = baseName(p);
  return (
    /(^|\/)(node_modules|vendor|third_party|dist|build|out|coverage|__snapshots__|\.yarn|generated|__generated__)\//.test(p) ||
    /\.min\.(js|css)$/.test(base) ||
    /\.(snap|map|lock)$/.test(base) ||
    /\.(pb|generated|gen)\.[a-z]+$/.test(base) ||
    /_pb2(_grpc)?\.py$/.test(base) ||
    [
      "package-lock.json",
      "yarn.lock",
      "pnpm-lock.yaml",
      "npm-shrinkwrap.json",
      "cargo.lock",
      "go.sum",
      "poetry.lock",
      "composer.lock",
      "gemfile.lock",
    ].includes(base)
  );
}

export function isBinaryPath(path: string): boolean {
  return BINARY_EXT.has(extOf(path));
}

export function fileKind(path: string): FileKind {
  const ext = extOf(path);
  const base = baseName(path).toLowerCase();
  const isEnv = base === ".env" || base.startsWith(".env.") || ext === "env";
  const syntax: Syntax = isEnv ? "hash" : (EXT_SYNTAX[ext] ?? (base === "dockerfile" || base === "makefile" ? "hash" : "none"));
  const isJsLike = ["js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts"].includes(ext);
  const lower = path.toLowerCase();
  return {
    syntax,
    isJsLike,
    isTs: ["ts", "tsx", "mts", "cts"].includes(ext),
    isCode: CODE_EXT.has(ext),
    isTest: isTestPath(path),
    isGenerated: isGeneratedPath(path),
    isDoc: DOC_EXT.has(ext),
    isScript:
      /(^|\/)(bin|cli|scripts?|examples?|demos?|bench|benchmarks?|tools)\//.test(lower) ||
      /\.config\.[cm]?[jt]s$/.test(base) ||
      /^(cli|bin)\.[cm]?[jt]s$/.test(base) ||
      (!path.includes("/") && /\.[cm]?[jt]s$/.test(base) && !/^index\./.test(base)) ||
      /^(gulpfile|gruntfile|jakefile)\./.test(base),
    isEnv,
  };
}
