import { accessSync, constants } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

/**
 * How to run the command line from a shell, as code-trm prints it in instructions: `code-trm` when
 * that name is on PATH (npm install -g, npm link), else `node <absolute path of dist/cli/main.js>`,
 * which works from anywhere (a server started with `node dist/mcp/...` or `npx` has no `code-trm` on
 * the user's PATH).
 */
export function cliCommand(env: NodeJS.ProcessEnv = process.env): string {
  if (cached !== undefined && env === process.env) return cached;
  const onPath = (env.PATH ?? "").split(path.delimiter).some((dir) => {
    if (!dir) return false;
    try {
      accessSync(path.join(dir, "code-trm"), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  const main = fileURLToPath(new URL("../cli/main.js", import.meta.url));
  const name = onPath ? "code-trm" : `node ${/^[\w@%+=:,./-]+$/.test(main) ? main : `'${main.replace(/'/g, `'\\''`)}'`}`;
  if (env === process.env) cached = name;
  return name;
}
