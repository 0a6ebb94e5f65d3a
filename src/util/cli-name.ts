import { accessSync, constants, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;
const MAIN = fileURLToPath(new URL("../cli/main.js", import.meta.url));

/**
 * Folders that npm puts in front of PATH for the process it starts (`npx`, `npm exec`, `npm run`): a
 * `code-trm` found there runs for this process only, not in the user's shell.
 */
function npmOwnBin(dir: string): boolean {
  const parts = path.resolve(dir).split(path.sep);
  return parts.includes("_npx") || (parts.at(-1) === ".bin" && parts.at(-2) === "node_modules");
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * How to run the command line from a shell, as code-trm prints it in instructions: `code-trm` when
 * that name is on the user's PATH and is this very code-trm (npm install -g, npm link), else
 * `node <absolute path of dist/cli/main.js>`, which works from anywhere (a server started with `node
 * dist/...`, or by `npx`, whose cache folder is on the server's PATH but not in the user's shell).
 * `main` is the CLI's entry point, the dist/cli/main.js beside this module unless a test names another.
 */
export function cliCommand(env: NodeJS.ProcessEnv = process.env, main: string = MAIN): string {
  const cache = env === process.env && main === MAIN;
  if (cached !== undefined && cache) return cached;
  // The shell runs the first executable code-trm on PATH: that one must be this code-trm.
  let onPath = false;
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir || npmOwnBin(dir)) continue;
    const bin = path.join(dir, "code-trm");
    try {
      accessSync(bin, constants.X_OK);
    } catch {
      continue;
    }
    onPath = sameFile(bin, main);
    break;
  }
  const name = onPath ? "code-trm" : `node ${/^[\w@%+=:,./-]+$/.test(main) ? main : `'${main.replace(/'/g, `'\\''`)}'`}`;
  if (cache) cached = name;
  return name;
}
