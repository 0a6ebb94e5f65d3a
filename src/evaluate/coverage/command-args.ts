import { shellQuote } from "../../util/text.js";

/**
 * The test command with arguments for its runner added at the end: after `--` for `npm test` / `npm run x`
 * (npm passes what follows to the script), as they are for pnpm, yarn and a runner named directly. null
 * for a chain or a pipe (`a && b`, `a; b`, `a | b`), where the end is not the runner's. Pure.
 */
export function appendArgs(cmd: string, args: string[]): string | null {
  const trimmed = cmd.trim();
  if (/&&|\|\||[;|&\n`]|\$\(/.test(trimmed.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, ""))) return null;
  const quoted = args.map(shellQuote).join(" ");
  if (/^npm\s+(?:(?:run|run-script)\s+[\w:.-]+|t|test)\b/.test(trimmed)) return `${trimmed}${/\s--(\s|$)/.test(trimmed) ? "" : " --"} ${quoted}`;
  return `${trimmed} ${quoted}`;
}
