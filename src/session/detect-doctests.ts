/**
 * pytest's doctest options where the project runs them (mahmoud/boltons: tox.ini runs `pytest
 * --doctest-modules {env_site_packages_dir}/boltons {tox_root}/tests`): without them a candidate that breaks
 * a docstring example scored 1.0. Read from the tox configuration (tox.ini, setup.cfg, pyproject.toml,
 * tox.toml) and CI files; pytest's own config (addopts) needs nothing added. Only what is recognised is
 * carried, rebuilt by code-trm: the two doctest options (a glob of plain characters, quoted) and paths that
 * exist in the repository (tox's root and site-packages mapped to the checkout's folders), never the line's
 * other words: the repository is not trusted. A pytest command run after a `cd` / `pushd` into another folder
 * (`cd docs && python -m pytest --doctest-glob='*.rst' .`, or a `cd` line before it in the same script) is
 * not carried: its paths and its doctests' own file reads are of that folder, not of the checkout's root.
 * Pure: reads through a RepoView.
 */
import { shellQuote } from "../util/text.js";
import type { RepoView } from "./detect-commands.js";

export interface DoctestArgs {
  /** The words to add after `pytest -rA`, ready for the shell ([] when pytest's config already runs doctests). */
  args: string[];
  /** Where they were found, for the why line. */
  why: string;
}

const TOX_FILES = ["tox.ini", "setup.cfg", "pyproject.toml", "tox.toml"];
const CI_FILES = [".gitlab-ci.yml", "azure-pipelines.yml", ".travis.yml"];
/** pytest options (and plugins' common ones) whose value may follow as the next word: it is no path. */
const TAKES_VALUE = new Set(
  "-k -m -p -c -n -o -W -r --ignore --ignore-glob --deselect --cov --cov-report --cov-config --cov-fail-under --rootdir --confcutdir --basetemp --junitxml --junit-xml --log-level --log-format --durations --maxfail --tb --import-mode --doctest-report --dist --numprocesses --timeout --reruns --override-ini --config-file".split(
    " ",
  ),
);
const SAFE_GLOB = /^[\w.*?-]{1,64}$/;
const SAFE_PATH = /^[\w][\w.-]*(?:\/[\w][\w.-]*)*$/;
const MAX_PATHS = 10;

/** A `cd` / `pushd` into another folder (not the root: `.`, `$GITHUB_WORKSPACE`, tox's root), as a CI step or a script line writes it. */
const CD =
  /^\s*(?:-\s+)?(?:(?:run|script|commands|cmd)\s*:\s*(?:[|>][-+]?\s*)?)?(?:-\s+)?(?:cd|pushd)(?:\s+(?!(?:\.\/?|"?\$\{?(?:GITHUB_WORKSPACE|CI_PROJECT_DIR)\}?"?|\{(?:toxinidir|tox_root)\})\s*$)\S+|\s*$)/;

/** A file's lines with `\` continuations joined, comments left out. */
const linesOf = (text: string) =>
  text
    .replace(/\\\r?\n/g, " ")
    .split(/\r?\n/)
    .filter((l) => !/^\s*[#;]/.test(l));

/** Words of a line as tox, a shell or a TOML array writes them: quotes, commas and brackets dropped. */
const wordsOf = (part: string) =>
  part
    .split(/\s+/)
    .map((w) => w.replace(/^[[("']+|[\]),"']+$/g, ""))
    .filter(Boolean);

/** A path word as the checkout has it: tox's root dropped, its site-packages' package found in the checkout; undefined otherwise. */
function checkoutPath(word: string, repo: RepoView, moved: boolean): string | undefined {
  let p = word.replace(/\/+$/, "");
  const site = /^\{(?:envsitepackagesdir|env_site_packages_dir)\}\/([\w.-]+)$/.exec(p);
  if (site) return [site[1]!, `src/${site[1]}`].find((c) => SAFE_PATH.test(c) && repo.has(c));
  const rooted = /^\{(?:toxinidir|tox_root)\}(?:\/(.*))?$/.exec(p);
  if (rooted) p = rooted[1] ?? ".";
  // Relative to a changedir (working-directory) that is not the root: not the checkout's path.
  else if (moved) return undefined;
  p = p.replace(/^\.\//, "");
  if (p === ".") return p;
  if (!SAFE_PATH.test(p) || p.split("/").some((s) => s === ".." || s === ".tox") || !repo.has(p)) return undefined;
  return p;
}

/** The doctest options and paths of one command that runs pytest, or undefined when it runs no doctests. */
function fromCommand(part: string, repo: RepoView, moved: boolean): { opts: string[]; paths: string[]; dropped: boolean } | undefined {
  const words = wordsOf(part);
  const at = words.findIndex((w, i) => /^(?:[\w./{}-]*\/)?(?:pytest|py\.test)$/.test(w) || (w === "-m" && words[i + 1] === "pytest"));
  if (at < 0) return undefined;
  const rest = words.slice(words[at] === "-m" ? at + 2 : at + 1);
  const opts: string[] = [];
  const paths: string[] = [];
  let dropped = false;
  for (let i = 0; i < rest.length; i++) {
    // tox's `{posargs:default words}`: the defaults are what runs.
    const w = rest[i]!.replace(/^\{posargs:/, "").replace(/^([^{]+)\}$/, "$1");
    const glob = /^--doctest-glob(?:=(.*))?$/.exec(w);
    if (w === "--doctest-modules") opts.push(w);
    else if (glob) {
      const value = (glob[1] ?? rest[++i] ?? "").replace(/^["']|["']$/g, "");
      if (SAFE_GLOB.test(value)) opts.push(shellQuote(`--doctest-glob=${value}`));
    } else if (w.startsWith("-")) {
      if (TAKES_VALUE.has(w)) i++;
    } else if (w !== "}" && w !== "{posargs}" && w !== "") {
      const p = checkoutPath(w, repo, moved);
      if (p) paths.push(p);
      else dropped = true;
    }
  }
  return opts.length > 0 ? { opts: [...new Set(opts)], paths: [...new Set(paths)], dropped } : undefined;
}

/** The files that may hold the project's test command line: tox's, then CI's. */
function sources(repo: RepoView): string[] {
  const workflows = repo
    .list(".github/workflows")
    .filter((f) => /\.ya?ml$/.test(f))
    .slice(0, 20)
    .map((f) => `.github/workflows/${f}`);
  return [...TOX_FILES, ...workflows, ...CI_FILES];
}

/**
 * The doctest words to add to the detected pytest command. `config` is the text of pytest's config
 * sections; `tests` the folder (or files) holding the tests, added when the line's paths leave them out.
 */
export function projectDoctests(repo: RepoView, config: string, tests: string[]): DoctestArgs | undefined {
  if (/--doctest-(?:modules|glob)/.test(config)) return { args: [], why: "its pytest config's addopts run the doctests" };
  for (const file of sources(repo)) {
    const text = repo.read(file, 128 * 1024);
    if (!text.includes("--doctest-")) continue;
    // tox's changedir (or a CI step's working-directory) moves where bare paths are read from: in an ini
    // file, in its own section and the `testenv:` sections that inherit `[testenv]`'s; in YAML, anywhere.
    const ini = !/\.ya?ml$/.test(file);
    const movedIn = ini ? changedirSections(text) : undefined;
    const movedAnywhere = !ini && /working-directory\s*:/m.test(text);
    let section = "";
    // A `cd` line moves the lines after it in its script (a YAML block or list at its indent, or deeper).
    let cdIndent: number | undefined;
    for (const line of linesOf(text)) {
      const head = ini ? SECTION_RE.exec(line) : null;
      if (head) section = head[1]!.trim();
      const moved = movedAnywhere || (!!movedIn && (movedIn.has(section) || (section.startsWith("testenv:") && movedIn.has("testenv"))));
      const indent = /^\s*/.exec(line)![0].length;
      if (cdIndent !== undefined && indent < cdIndent && line.trim() !== "") cdIndent = undefined;
      let cd = cdIndent !== undefined;
      for (const part of line.split(/&&|\|\||[;|]/)) {
        if (CD.test(part)) {
          cd = true;
          // A `- run: cd x` step moves its own line alone: GitHub runs each step in a shell of its own.
          if (!/\brun\s*:/.test(line)) cdIndent ??= indent;
          continue;
        }
        if (cd || !part.includes("--doctest-")) continue;
        const found = fromCommand(part, repo, moved);
        // A line whose paths cannot be found in the checkout would run another set of files: not carried.
        if (!found || (found.dropped && found.paths.length === 0)) continue;
        const paths = found.paths.slice(0, MAX_PATHS);
        const covered = (t: string) => paths.some((p) => p === "." || t === p || t.startsWith(`${p}/`));
        // Paths named replace pytest's testpaths: the tests go with them (a line that names only the package).
        if (paths.length > 0) paths.push(...tests.filter((t) => !covered(t)).slice(0, MAX_PATHS));
        const args = [...found.opts, ...paths];
        return { args, why: `${file} runs pytest with its doctests (${args.join(" ")})` };
      }
    }
  }
  return undefined;
}

/** An ini file's section header: `[testenv:docs]`. */
const SECTION_RE = /^\s*\[([^\]]+)\]\s*$/;

/** The sections of an ini file (tox.ini, setup.cfg) that set a changedir other than the root. */
function changedirSections(text: string): Set<string> {
  const out = new Set<string>();
  let section = "";
  for (const line of linesOf(text)) {
    const head = SECTION_RE.exec(line);
    if (head) section = head[1]!.trim();
    else if (/^\s*changedir\s*=\s*(?!\{(?:toxinidir|tox_root)\}\s*$)\S/.test(line)) out.add(section);
  }
  return out;
}
