/**
 * A program a command needs that is not installed: named from the shell's own words (`sh: 1: pnpm: not
 * found`, `bash: pnpm: command not found`, exit 127), with how to get it. Used at start (session/
 * missing-tools.ts, by a PATH lookup, before anything runs) and after a run (environment.ts), so that
 * a missing package manager is said as such instead of "dependencies may be missing".
 */
import { quoted } from "../util/text.js";

/**
 * How to get a program that is not on PATH, as a user would do it. In a JavaScript project an unknown
 * name is a dependency's binary (node_modules/.bin), which the project's install provides.
 */
export function installFix(program: string, nodeProject = false): string {
  switch (program) {
    case "pnpm":
      return "`corepack enable` (or `npm i -g pnpm`)";
    case "yarn":
      return "`corepack enable` (or `npm i -g yarn` for yarn 1)";
    case "bun":
    case "bunx":
      return "install bun (bun.sh) or `npm i -g bun`";
    case "npm":
    case "npx":
    case "node":
      return "install Node.js, or start the server with a PATH that has it";
    case "python":
    case "python3":
      return "install Python 3 (a command may need `python3` where `python` is missing)";
    case "pytest":
    case "py.test":
      return "`pip install pytest` (or your distribution's python3-pytest)";
    case "go":
      return "install Go (golang-go)";
    case "cargo":
    case "rustc":
      return "install Rust (rustup or the cargo package)";
    default:
      return nodeProject
        ? "install the project's dependencies in your checkout (the worktree links its node_modules), or pass setupCmd"
        : "install it, or put it on the PATH the server runs with";
  }
}

/** The program a shell could not find, from a failed command's output; undefined when none is named. */
export function notFoundProgram(output: string, exitCode: number | null): string | undefined {
  if (exitCode !== 127) return undefined;
  // dash: `sh: 1: pnpm: not found`; bash: `bash: pnpm: command not found` / `bash: line 1: pnpm: command not found`;
  // zsh: `zsh: command not found: pnpm`; npm's script shell prints the dash form.
  const m = /(?:^|\n)[^\n:]*sh:(?: line)? ?\d*:? ?([\w.+@/-]+): (?:command )?not found/.exec(output) ?? /command not found: ([\w.+@/-]+)/.exec(output);
  const prog = m?.[1];
  // A path (`./run.sh: not found`) is a missing file: missing-paths.ts says that one.
  return prog && !prog.includes("/") ? prog : undefined;
}

/** A plain statement about a program a command could not run, with its fix. */
export function notInstalledNotice(program: string, cmd: string, nodeProject = false): string {
  return `${program} is not installed (${quoted(cmd, 120)} exited 127, "${program}: not found"): ${installFix(program, nodeProject)}, or give a command that does not need it. The failure is not the candidate's.`;
}
