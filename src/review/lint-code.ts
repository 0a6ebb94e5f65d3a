import path from "node:path";
import { gitBytes, gitOrNull } from "../git/cli.js";

/**
 * Which paths a change touches that the project's ESLint would run as code. ESLint executes its
 * configuration, every file that configuration imports, its plugins and parsers (from `node_modules`),
 * and the configurations some plugins load (Babel's, Prettier's, webpack's...). Run on a pull request's
 * head, any of these the pull request changed is the author's code running on this machine. So the
 * linter may only run when the change leaves all of them as the base commit had them:
 *
 * - no changed path under a `node_modules` folder (a committed package shadows the installed one);
 * - no changed ESLint configuration or plugin folder anywhere (`eslint.config.*`, `.eslintrc*`,
 *   `eslint-rules/`...), no changed `package.json` that has or had an `eslintConfig`;
 * - no changed JavaScript configuration of another tool (`*.config.js`, `.babelrc`, `.prettierrc`...);
 * - no changed file that the base's configurations import, followed transitively through relative
 *   specifiers (`./x`, `../x`, `path.join(__dirname, "x")`, `new URL("x", import.meta.url)`, globs
 *   cut at their first wildcard), including files the base lacks that such a specifier would find.
 *
 * Everything is read from git objects, the changed paths from `git diff base head` (both sides of a
 * rename), never from the pull request's own file list. Imports computed at run time beyond those
 * patterns are not followed: the sandbox, when available, is the second line.
 */

export interface LintCode {
  /** Changed paths that are ESLint's code, each with the reason (at most 20). */
  found: Array<{ path: string; why: string }>;
  /** Set when the configurations could not be followed completely (too many files). */
  incomplete?: string;
}

const ESLINT_NAME = /^\.?eslint/i;
const NOT_CODE = /^\.eslint(ignore|cache)$/i;
const JS_TOOL_CONFIG = /^(?:[\w-]+(?:\.[\w-]+)*\.config|\.[\w-]+rc)\.[cm]?[jt]sx?$/i;
const DATA_TOOL_CONFIG =
  /^(?:\.(?:babel|prettier|swc|postcss)rc(?:\.(?:json5?|ya?ml|toml))?|(?:babel|prettier)\.config\.json5?|\.pnp\.c?js|\.pnp\.loader\.mjs)$/i;
const ESLINT_CONFIG = /^(?:eslint\.config\.[cm]?[jt]s|\.eslintrc(?:\.(?:c?js|json|ya?ml))?)$/i;
const READ_EXT = /\.(?:[cm]?[jt]sx?|json5?|ya?ml)$|(?:^|\/)\.[\w-]+rc$/i;
const RESOLVE_EXT = ["", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx", ".json"];
const MAX_FILES = 400;
const MAX_BYTES = 1024 * 1024;
const MAX_FOUND = 20;
const FOLDER_READS = 50;

/** Why a changed path is ESLint's code whatever the configuration says, or null. Pure. */
export function alwaysLintCode(p: string): string | null {
  const parts = p.split("/");
  const base = parts[parts.length - 1]!;
  if (parts.includes("node_modules")) return "a package under node_modules, which ESLint would load instead of the installed one";
  if (parts.some((s) => ESLINT_NAME.test(s) && !NOT_CODE.test(s))) return "ESLint configuration or plugin";
  if (JS_TOOL_CONFIG.test(base) || DATA_TOOL_CONFIG.test(base)) return "a tool configuration that ESLint plugins may load and run";
  return null;
}

/** Data files a configuration may name that no tool runs: never treated as code. */
const DATA_FILE = /(?:^|\/)(?:package\.json|[jt]sconfig[^/]*\.json)$/;

/**
 * The paths of the repository that `text` (a file at `file`) names with relative specifiers, resolved
 * against the file's folder; those leaving the repository are dropped. `all` takes every relative
 * string (ESLint configurations name parsers, shared configs and resolver configs by path), plus
 * `path.join(__dirname, ...)`, `new URL(..., import.meta.url)` and glob calls (a rules folder read at
 * run time); `imports` only import / require specifiers (the other tools' configurations, whose
 * relative strings are mostly source folders). Pure; over-matching only makes the check stricter.
 */
export function relativeSpecifiers(text: string, file: string, mode: "all" | "imports" = "all"): string[] {
  const dir = path.posix.dirname(file);
  const specs = new Set<string>();
  const REL = String.raw`\.\.?(?:\/[^"'\x60\n]*)?`;
  if (mode === "imports") {
    for (const m of text.matchAll(new RegExp(String.raw`(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire(?:\.resolve)?\s*\(\s*)(["'\x60])(${REL})\1`, "g")))
      specs.add(m[2]!);
  } else {
    // Quoted (a glob pattern such as "./src/**" in `files` is not a load: only a glob call's is), or bare in YAML.
    for (const m of text.matchAll(new RegExp(String.raw`(["'\x60])(${REL})\1`, "g"))) {
      // A template's `${...}` is a path computed at run time: the part before it (a folder) is protected whole.
      const dynamic = m[2]!.indexOf("${");
      if (dynamic >= 0) specs.add(`${m[2]!.slice(0, m[2]!.lastIndexOf("/", dynamic) + 1)}*`);
      else if (!/[*?{[]/.test(m[2]!)) specs.add(m[2]!);
    }
    for (const m of text.matchAll(/(?<![\w$./-])(\.\.?\/[^\s"'`,;)\]}*?{[]*)(?=[\s"'`,;)\]}]|$)/g)) specs.add(m[1]!);
    for (const m of text.matchAll(/\bglob\w*(?:\.sync)?\(\s*\[?\s*(["'`])([^"'`\n]+)\1/gi)) specs.add(/^\.\.?\//.test(m[2]!) ? m[2]! : `./${m[2]}`);
    for (const m of text.matchAll(
      /\b(?:join|resolve)\(\s*(?:__dirname|import\.meta\.dirname|dirname\([^()]*\)|[\w$]*[dD]ir(?:name)?)\s*((?:,\s*(["'`])[^"'`\n]*\2\s*)+)\)/g,
    )) {
      specs.add(`./${[...m[1]!.matchAll(/(["'`])([^"'`\n]*)\1/g)].map((x) => x[2]!).join("/")}`);
    }
    for (const m of text.matchAll(/new\s+URL\(\s*(["'`])([^"'`\n]+)\1\s*,\s*import\.meta\.url/g)) specs.add(/^\.\.?\//.test(m[2]!) ? m[2]! : `./${m[2]}`);
  }
  const out = new Set<string>();
  for (let s of specs) {
    const glob = s.search(/[*?{[]/);
    if (glob >= 0) s = s.slice(0, s.lastIndexOf("/", glob) + 1) || "./";
    const p = path.posix.normalize(path.posix.join(dir, s)).replace(/\/+$/, "");
    if (p === ".." || p.startsWith("../") || DATA_FILE.test(p)) continue;
    out.add(p === "." ? "" : p);
  }
  return [...out];
}

interface Protected {
  path: string;
  /** The whole folder (a specifier naming a folder below the importing file's). */
  tree: boolean;
  by: string;
}

/** Whether changed path `c` is what protected entry `p` names: itself, a file it resolves to, or under it. */
export function covers(p: Protected, c: string): boolean {
  if (p.path === "") return /^index\.[^/]+$/.test(c);
  if (c === p.path) return true;
  if (c.startsWith(`${p.path}.`) && !c.slice(p.path.length).includes("/")) return true;
  if (c.startsWith(`${p.path}/`)) return p.tree || /^index\.[^/]+$/.test(c.slice(p.path.length + 1));
  return false;
}

/** The paths a package.json's `imports` map leads to (a wildcard: its folder), as repository paths. Pure. */
export function importTargets(packageJson: string, dir: string): string[] {
  let imports: unknown;
  try {
    imports = (JSON.parse(packageJson) as { imports?: unknown }).imports;
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const m of JSON.stringify(imports ?? {}).matchAll(/"(\.\/[^"]*)"/g)) {
    const star = m[1]!.indexOf("*");
    const target = path.posix.normalize(path.posix.join(dir, star < 0 ? m[1]! : m[1]!.slice(0, m[1]!.lastIndexOf("/", star) + 1))).replace(/\/+$/, "");
    if (target !== ".." && !target.startsWith("../")) out.push(target === "." ? "" : target);
  }
  return out;
}

const isAncestorOrSelf = (a: string, b: string): boolean => a === "" || a === "." || b === a || b.startsWith(`${a}/`);

/** ESLint's code among the paths `base..head` changes (see the module comment). */
export async function changedLintCode(top: string, base: string, head: string, linted: string[]): Promise<LintCode> {
  const diff = await gitOrNull(top, [
    "diff",
    "--no-renames",
    "--no-ext-diff",
    "--no-textconv",
    "--ignore-submodules=none",
    "--name-only",
    "-z",
    base,
    head,
    "--",
  ]);
  if (diff === null) return { found: [], incomplete: `git could not compare ${base.slice(0, 12)} with ${head.slice(0, 12)}` };
  const changed = diff.split("\0").filter(Boolean);
  const found: LintCode["found"] = [];
  const add = (p: string, why: string) => {
    if (found.length < MAX_FOUND && !found.some((f) => f.path === p)) found.push({ path: p, why });
  };
  for (const c of changed) {
    const why = alwaysLintCode(c);
    if (why) add(c, why);
  }
  const tree = new Map<string, string>(); // path -> blob id, files of the base
  for (const entry of ((await gitOrNull(top, ["ls-tree", "-r", "-z", "--full-tree", base])) ?? "").split("\0")) {
    const m = /^\d+ blob ([0-9a-f]+)\t(.+)$/s.exec(entry);
    if (m) tree.set(m[2]!, m[1]!);
  }
  const read = async (oid: string): Promise<string | null> => {
    const size = Number((await gitOrNull(top, ["cat-file", "-s", oid]))?.trim());
    if (!Number.isFinite(size) || size > MAX_BYTES) return null;
    return (await gitBytes(top, ["cat-file", "blob", oid])).toString("utf8");
  };
  for (const c of changed.filter((x) => path.posix.basename(x) === "package.json")) {
    for (const rev of [base, head]) {
      const text = (await gitOrNull(top, ["cat-file", "-p", `${rev}:${c}`])) ?? "";
      if (text.includes('"eslintConfig"')) add(c, "package.json with an eslintConfig");
    }
  }

  // The base's configurations: ESLint's anywhere (with package.json files that have an eslintConfig on
  // the way from a linted file up to the root), and other tools' that plugins load.
  type Mode = "all" | "imports";
  const roots: Array<{ file: string; mode: Mode }> = [];
  for (const p of tree.keys()) {
    const b = path.posix.basename(p);
    if (ESLINT_CONFIG.test(b) || DATA_TOOL_CONFIG.test(b)) roots.push({ file: p, mode: "all" });
    else if (JS_TOOL_CONFIG.test(b)) roots.push({ file: p, mode: "imports" });
  }
  const dirs = new Set<string>([""]);
  for (const f of linted) for (let d = path.posix.dirname(f); d !== "." && !dirs.has(d); d = path.posix.dirname(d)) dirs.add(d);
  for (const d of dirs) {
    const pj = d ? `${d}/package.json` : "package.json";
    const oid = tree.get(pj);
    if (oid && (await read(oid))?.includes('"eslintConfig"')) roots.push({ file: pj, mode: "all" });
  }

  const protect: Protected[] = [];
  const queued = new Set<string>();
  const queue: Array<{ file: string; by: string; mode: Mode }> = [];
  const enqueue = (file: string, by: string, mode: Mode) => {
    if (!queued.has(file) && tree.has(file) && READ_EXT.test(file) && !DATA_FILE.test(file)) {
      queued.add(file);
      queue.push({ file, by, mode });
    }
  };
  for (const r of roots) {
    protect.push({ path: r.file, tree: false, by: r.file });
    enqueue(r.file, r.file, r.mode);
  }
  let incomplete: string | undefined;
  while (queue.length > 0) {
    if (queued.size > MAX_FILES) {
      incomplete = `the base's configurations import more than ${MAX_FILES} files`;
      break;
    }
    const { file, by, mode } = queue.shift()!;
    const text = await read(tree.get(file)!);
    if (text === null) {
      incomplete = `${file} is larger than ${MAX_BYTES / 1024 / 1024} MB`;
      continue;
    }
    const dir = path.posix.dirname(file) === "." ? "" : path.posix.dirname(file);
    const specs = relativeSpecifiers(text, file, mode);
    // Package imports (#x): the package.json files above the file map them to paths.
    if (/["'`]#[\w@/-]/.test(text)) {
      for (let d = dir; ; d = path.posix.dirname(d) === "." ? "" : path.posix.dirname(d)) {
        const pj = d ? `${d}/package.json` : "package.json";
        if (tree.has(pj)) {
          protect.push({ path: pj, tree: false, by });
          specs.push(...importTargets((await read(tree.get(pj)!)) ?? "", d));
        }
        if (d === "") break;
      }
    }
    for (const s of specs) {
      const folder = !isAncestorOrSelf(s, dir);
      protect.push({ path: s, tree: folder, by });
      for (const ext of RESOLVE_EXT) {
        enqueue(`${s}${ext}`, by, mode);
        enqueue(`${s}/index${ext}`, by, mode);
      }
      // A folder named whole (a rules folder read at run time): its files are protected above; the first
      // ones are read for what they import from outside it.
      if (folder)
        [...tree.keys()]
          .filter((f) => f.startsWith(`${s}/`))
          .slice(0, FOLDER_READS)
          .forEach((f) => enqueue(f, by, mode));
    }
  }
  for (const c of changed) {
    const p = protect.find((x) => covers(x, c));
    if (p) add(c, p.by === c ? "ESLint's configuration" : `loaded by ${p.by}`);
  }
  return { found, ...(incomplete ? { incomplete } : {}) };
}

/**
 * {@link changedLintCode} for a head and the base it is compared with (a pull request's base commit, a
 * local range's base): from their merge base, which is what the base branch already had. A base that
 * is missing from the clone leaves the question open (`incomplete` says what to fetch).
 */
export async function lintCodeOfChange(top: string, base: string | undefined, head: string, linted: string[]): Promise<LintCode> {
  if (!base || !/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(base)) return { found: [], incomplete: "the base commit of the change is not known" };
  if ((await gitOrNull(top, ["cat-file", "-e", `${base}^{commit}`], { env: { GIT_NO_LAZY_FETCH: "1" } })) === null) {
    return { found: [], incomplete: `the base commit ${base.slice(0, 12)} is not in ${top} (fetch the base branch)` };
  }
  const from = (await gitOrNull(top, ["merge-base", base, head]))?.trim() || base;
  return changedLintCode(top, from, head, linted);
}
