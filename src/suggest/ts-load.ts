import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { isInside } from "../util/paths.js";

export type TsModule = typeof import("typescript");

export interface LoadedTypeScript {
  ts: TsModule;
  version: string;
  /** "repository" when the worktree resolves its own typescript (its fixes match its compiler). */
  origin: "repository" | "code-trm";
}

function usable(mod: unknown): mod is TsModule {
  const m = mod as Partial<TsModule> | null;
  return !!m && typeof m.createLanguageService === "function" && typeof m.parseJsonConfigFileContent === "function" && typeof m.version === "string";
}

/**
 * The repository's own typescript when the worktree resolves one (Node walks up from the worktree,
 * which also finds the checkout's node_modules), so fixes agree with the compiler the build runs;
 * else code-trm's (always, with `repository` false). A typescript without the JS language service API
 * (e.g. a native port) is skipped.
 * Loaded lazily: it is several megabytes of JavaScript the other tools never need.
 */
export function loadTypeScript(worktree: string, repository = true): LoadedTypeScript {
  if (repository) {
    try {
      const req = createRequire(path.join(worktree, "package.json"));
      const mod: unknown = req(req.resolve("typescript"));
      if (usable(mod)) return { ts: mod, version: mod.version, origin: "repository" };
    } catch {
      // Not installed in the repository: use ours.
    }
  }
  const own: unknown = createRequire(import.meta.url)("typescript");
  if (!usable(own)) throw new Error("code-trm's own typescript package has no language service API");
  return { ts: own, version: own.version, origin: "code-trm" };
}

/**
 * The tsconfig a build command names with `-p` / `--project` (a file, or a directory holding
 * tsconfig.json), when it lies inside the worktree. Only read, never run.
 */
export function projectFromCommand(worktree: string, cmd: string | undefined): string | undefined {
  if (!cmd || !/\btsc\b/.test(cmd)) return undefined;
  const m = /(?:^|\s)(?:-p|--project|-b|--build)(?:\s+|=)("[^"]+"|'[^']+'|[^\s;&|]+)/.exec(cmd);
  if (!m) return undefined;
  const raw = m[1]!.replace(/^["']|["']$/g, "");
  const abs = path.resolve(worktree, raw);
  if (!isInside(worktree, abs) || !existsSync(abs)) return undefined;
  const file = statSync(abs).isDirectory() ? path.join(abs, "tsconfig.json") : abs;
  return existsSync(file) ? file : undefined;
}

/**
 * The nearest tsconfig.json above a file, searching no higher than the worktree: above it lies the
 * user's checkout (the worktree sits inside its .git), whose config belongs to another tree.
 */
export function nearestTsconfig(worktree: string, fileAbs: string): string | undefined {
  let dir = path.dirname(fileAbs);
  while (isInside(worktree, dir)) {
    const candidate = path.join(dir, "tsconfig.json");
    if (existsSync(candidate)) return candidate;
    if (dir === worktree) break;
    dir = path.dirname(dir);
  }
  return undefined;
}
