/**
 * Keeps Python commands on the candidate's code. An editable install in a linked environment
 * (`pip install -e .` in a `.venv` listed in linkPaths) points into the user's checkout: through a
 * `.pth` file that names a source folder, or a setuptools finder that maps package names to folders.
 * The worktree's copies of those folders are put first on PYTHONPATH, which Python searches before
 * site-packages and before the finders. The same holds for an environment the commands reach otherwise:
 * the server's own (VIRTUAL_ENV, or the first python on PATH, as an activated venv leaves them) and one
 * a command names by absolute path (`/home/me/project/.venv/bin/python -m pytest`). Bytecode goes to a session folder (PYTHONPYCACHEPREFIX), never
 * next to the sources: importing the checkout's code must not write into the checkout.
 */
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { absolutePathsIn, isInside } from "../util/paths.js";
import { readPrefix } from "../util/read-prefix.js";

export interface PythonIsolation {
  env: Record<string, string>;
  /** Checkout folders redirected to the worktree's, relative to the repository. */
  redirected: string[];
  notices: string[];
}

const MAX_READ = 256 * 1024;

/** At most MAX_READ bytes of a regular file that is not a link (util/read-prefix.ts says why). */
const readSmall = async (file: string): Promise<string> => readPrefix(file, MAX_READ, "refuse");

/** Folders a site-packages directory makes importable that lie inside the checkout (absolute paths). */
export async function editableSources(sitePackages: string): Promise<{ dirs: string[]; editableDists: { name: string; url: string }[] }> {
  const dirs: string[] = [];
  const editableDists: { name: string; url: string }[] = [];
  const names = await readdir(sitePackages).catch(() => [] as string[]);
  for (const n of names) {
    const file = path.join(sitePackages, n);
    if (n.endsWith(".pth")) {
      const text = await readSmall(file);
      for (const raw of text.split("\n")) {
        const line = raw.trim();
        // As site.py reads them: comments and `import` lines are not paths.
        if (!line || line.startsWith("#") || /^import[\s\t]/.test(line)) continue;
        dirs.push(path.resolve(sitePackages, line));
      }
    } else if (/^__editable__.*_finder\.py$/.test(n)) {
      // setuptools' finder: MAPPING: dict[str, str] = {'pkg': '/home/me/project/src/pkg'}
      const text = await readSmall(file);
      const m = /^MAPPING\b[^=\n]*=\s*\{([^\n]*)\}/m.exec(text);
      if (m) for (const e of m[1]!.matchAll(/'(?:[^'\\]|\\.)*'\s*:\s*'((?:[^'\\]|\\.)*)'/g)) dirs.push(path.dirname(e[1]!));
    } else if (n.endsWith(".dist-info")) {
      const raw = await readSmall(path.join(file, "direct_url.json"));
      if (!raw) continue;
      try {
        const j = JSON.parse(raw) as { url?: unknown; dir_info?: { editable?: unknown } };
        if (j.dir_info?.editable === true && typeof j.url === "string") editableDists.push({ name: n.replace(/-[^-]*\.dist-info$/, ""), url: j.url });
      } catch {
        // Not ours to judge.
      }
    }
  }
  return { dirs, editableDists };
}

async function sitePackagesOf(env: string): Promise<string[]> {
  const out: string[] = [];
  for (const lib of ["lib", "lib64"]) {
    for (const py of await readdir(path.join(env, lib)).catch(() => [] as string[])) {
      const sp = path.join(env, lib, py, "site-packages");
      if (/^python\d/.test(py) && existsSync(sp)) out.push(sp);
    }
  }
  const win = path.join(env, "Lib", "site-packages");
  if (existsSync(win)) out.push(win);
  return [...new Set(out)];
}

/** The virtual environment (the folder holding pyvenv.cfg) that an absolute path lies in, if any. */
function venvOf(p: string): string | null {
  for (let dir = path.dirname(p), k = 0; k < 4 && dir !== path.dirname(dir); dir = path.dirname(dir), k++) {
    if (existsSync(path.join(dir, "pyvenv.cfg"))) return dir;
  }
  return null;
}

/**
 * The environments the commands' Python may come from besides linkPaths, labelled as the notices name
 * them: the server's (VIRTUAL_ENV; else the first python on PATH, whose environment an activation put
 * there) and those the commands name by absolute path.
 */
export function otherEnvironments(commands: string[], procEnv: NodeJS.ProcessEnv = process.env): { dir: string; label: string }[] {
  const out: { dir: string; label: string }[] = [];
  const add = (dir: string | null, label: string) => {
    if (dir && !out.some((e) => e.dir === dir)) out.push({ dir, label });
  };
  if (procEnv.VIRTUAL_ENV && path.isAbsolute(procEnv.VIRTUAL_ENV)) add(procEnv.VIRTUAL_ENV, `the server's VIRTUAL_ENV (${procEnv.VIRTUAL_ENV})`);
  for (const dir of (procEnv.PATH ?? "").split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const py = ["python3", "python"].map((n) => path.join(dir, n)).find((f) => existsSync(f));
    if (!py) continue;
    add(venvOf(py), `the environment of the python on the server's PATH (${path.dirname(dir)})`);
    break;
  }
  for (const cmd of commands) {
    for (const p of absolutePathsIn(cmd)) add(venvOf(p), `${path.dirname(path.dirname(p))} (named by "${cmd.length > 60 ? `${cmd.slice(0, 57)}...` : cmd}")`);
  }
  return out;
}

/**
 * What the session's commands need so that Python imports the worktree's code: `top` is the user's
 * checkout, `wt` the worktree, `linkPaths` the folders linked from the checkout, `pycacheDir` a folder
 * of the session for bytecode (null: none, in the sandbox), `commands` the session's commands (for environments they name).
 */
export async function pythonIsolation(
  top: string,
  wt: string,
  linkPaths: string[],
  pycacheDir: string | null,
  commands: string[] = [],
  procEnv: NodeJS.ProcessEnv = process.env,
): Promise<PythonIsolation> {
  // PYTHONDONTWRITEBYTECODE (set in many Docker images) is lifted: with a prefix, Python reads bytecode
  // only from it, so without writing it would compile the standard library, pytest and every dependency
  // from source at every run (about 1.3 s of CPU per sqlparse step; bench/verdict.mjs). The prefix is the session's.
  // No prefix (null) in the sandbox: there the checkout is read-only and the prefix would last one command
  // (the state folder is hidden), so every command compiled everything again (sqlparse: 1.6x the suite run
  // directly); without it the installed bytecode next to the standard library and the packages is read,
  // and the worktree's own __pycache__ goes with the step's leftovers (leftovers.ts), forged or not.
  const env: Record<string, string> = {
    ...(pycacheDir ? { PYTHONPYCACHEPREFIX: pycacheDir } : {}),
    ...(procEnv.PYTHONDONTWRITEBYTECODE ? { PYTHONDONTWRITEBYTECODE: "" } : {}),
  };
  const redirected: string[] = [];
  const notices: string[] = [];
  const sources: string[] = [];
  const envs = [...linkPaths.map((lp) => ({ dir: path.join(top, lp), label: lp })), ...otherEnvironments(commands, procEnv)];
  for (const { dir: envDir, label: lp } of envs) {
    let fromHere = false;
    for (const sp of await sitePackagesOf(envDir)) {
      // Python older than 3.8 ignores PYTHONPYCACHEPREFIX: no bytecode at all then.
      if (/python3\.[0-7]\b|python2/.test(sp)) env.PYTHONDONTWRITEBYTECODE = "1";
      const { dirs, editableDists } = await editableSources(sp);
      let found = 0;
      for (const d of dirs) {
        if (!isInside(top, d) || isInside(envDir, d) || isInside(path.join(top, ".git"), d)) continue;
        const rel = path.relative(top, d) || ".";
        found++;
        if (!redirected.includes(rel) && existsSync(path.join(wt, rel))) {
          redirected.push(rel);
          fromHere = true;
        }
      }
      for (const dist of editableDists) {
        if (found > 0 || !dist.url.startsWith("file://")) continue;
        let p: string;
        try {
          p = new URL(dist.url).pathname;
        } catch {
          continue;
        }
        if (!isInside(top, p)) continue;
        notices.push(
          `${lp} holds an editable install of ${dist.name} from your checkout, and code-trm could not tell which folder it imports from: tests may run your checkout's code. Put the worktree's source folder first, e.g. testCmd "PYTHONPATH=src <command>", or reinstall it in the worktree with setupCmd.`,
        );
      }
    }
    if (fromHere) sources.push(lp);
  }
  if (redirected.length > 0) {
    const wtDirs = redirected.map((r) => path.join(wt, r));
    env.PYTHONPATH = [...wtDirs, ...(process.env.PYTHONPATH ? [process.env.PYTHONPATH] : [])].join(path.delimiter);
    notices.push(
      `editable install in ${sources.join(", ")} points into your checkout (${redirected.join(", ")}): the worktree's ${redirected.length === 1 ? "copy is" : "copies are"} put first on PYTHONPATH so tests import the candidate's code.`,
    );
  }
  return { env, redirected, notices };
}
