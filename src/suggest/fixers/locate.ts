import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

/**
 * Where a fixer's executable is, looked up as the project would reach it: the worktree's own
 * node_modules/.bin, its virtual environment (.venv/bin or venv/bin, usually linked from the checkout
 * with linkPaths), then the server's PATH. Null when it is not installed.
 */

const LOCAL_BIN_DIRS = ["node_modules/.bin", ".venv/bin", "venv/bin"];

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

export function locateTool(worktree: string, tool: string, searchPath = process.env.PATH ?? ""): string | null {
  const dirs = [...LOCAL_BIN_DIRS.map((d) => path.join(worktree, d)), ...searchPath.split(path.delimiter).filter((d) => path.isAbsolute(d))];
  for (const dir of dirs) {
    const p = path.join(dir, tool);
    if (executable(p)) return p;
  }
  return null;
}
