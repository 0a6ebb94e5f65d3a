import { shellQuote } from "../../util/text.js";

const chained = (cmd: string) => /&&|\|\||[;|&\n`]|\$\(/.test(cmd.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, ""));

/**
 * The test command with arguments for its runner added at the end: after `--` for `npm test` / `npm run x`
 * (npm passes what follows to the script), as they are for pnpm, yarn and a runner named directly. null
 * for a chain or a pipe (`a && b`, `a; b`, `a | b`), where the end is not the runner's, and for a package
 * script (`script`, the text of the one the command runs) that is one: npm adds the arguments to the
 * script's end (`jest && tsc` would give them to tsc). Pure.
 */
export function appendArgs(cmd: string, args: string[], script?: string): string | null {
  const trimmed = cmd.trim();
  if (chained(trimmed) || (script !== undefined && chained(script.trim()))) return null;
  const quoted = args.map(shellQuote).join(" ");
  if (/^npm\s+(?:(?:run|run-script)\s+[\w:.-]+|t|test)\b/.test(trimmed)) return `${trimmed}${/\s--(\s|$)/.test(trimmed) ? "" : " --"} ${quoted}`;
  return `${trimmed} ${quoted}`;
}
