#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { GitError } from "../git/cli.js";
import { cliCommand } from "../util/cli-name.js";
import { UserError } from "../util/errors.js";
import { holdAndScrubCredentials } from "../util/initial-env.js";
import { optionsHelp, parseArgv, UsageError, wantsHelp } from "./args.js";
import type { Command, Io } from "./command.js";
import { applyCommand } from "./commands/apply.js";
import { diffCommand } from "./commands/diff.js";
import { logCommand } from "./commands/log.js";
import { pruneCommand } from "./commands/prune.js";
import { reviewCommand } from "./commands/review.js";
import { sessionsCommand } from "./commands/sessions.js";
import { colorEnabled, paint } from "./format.js";

/**
 * `code-trm` with no command (or `serve`) is the MCP server on stdio: clients start it that way, so
 * that default never changes. Every other command is for people and scripts.
 */
const COMMANDS: Command[] = [sessionsCommand, logCommand, diffCommand, applyCommand, pruneCommand, reviewCommand];

const DEMO = { name: "demo", summary: "run a real session on a fixture repository and print it" };

function version(): string {
  // dist/cli/main.js -> package.json two levels up (the package root, also when installed).
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

function programHelp(): string {
  const rows = [["serve", "serve MCP over stdio (the default with no command)"], ...COMMANDS.map((c) => [c.name, c.summary]), [DEMO.name, DEMO.summary]];
  const w = Math.max(...rows.map((r) => r[0]!.length));
  return [
    "code-trm: the critic in an LLM code-refinement loop (MCP server) and its command line.",
    "",
    "usage: code-trm [command] [options]",
    "",
    "commands:",
    ...rows.map(([n, s]) => `  ${n!.padEnd(w)}  ${s}`),
    "",
    "options:",
    "  -h, --help     help (also: code-trm <command> --help)",
    "      --version  print the version",
    "",
    "Colour only on a terminal (never with NO_COLOR); --json gives stable machine-readable output.",
    "Exit codes: 0 ok, 1 the operation failed, 2 usage error.",
    "",
  ].join("\n");
}

function commandHelp(c: Command): string {
  return `usage: ${c.usage}\n\n${c.description}\n\noptions:\n${optionsHelp(c.options)}\n`;
}

const SIMPLE_HELP: Record<string, string> = {
  serve:
    "usage: code-trm [serve]\n\nServes the MCP protocol on stdio: only protocol on stdout, logs on stderr. This is what MCP\nclients start; see README.md for client configuration.\n",
  demo: "usage: code-trm demo\n\nCopies fixtures/repos/js-stats into a temporary git repository, starts the server over stdio as an\nMCP client does, submits a wrong fix and the right one, and prints each step, the session's git log\nand a check that the checkout is unchanged.\n",
};

async function runCommand(c: Command, argv: string[], io: Io): Promise<number> {
  if (wantsHelp(argv)) {
    io.out(commandHelp(c));
    return 0;
  }
  const parsed = parseArgv(argv, c.options, c.name);
  if (parsed.rest.length && c.name !== "diff") throw new UsageError(`${c.name} takes no arguments after --`, c.name);
  return (await c.run(parsed, io)) ?? 0;
}

export async function main(argv: string[], io: Io): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === "serve") {
    if (rest.length && wantsHelp(rest)) {
      io.out(SIMPLE_HELP.serve!);
      return 0;
    }
    if (rest.length) throw new UsageError(`serve takes no arguments`, "serve");
    // Loaded only here: the SDK is not needed by the commands for people.
    const { serveStdio } = await import("../mcp/server.js");
    await serveStdio();
    return 0;
  }
  if (cmd === "--version" || cmd === "-V") {
    io.out(`code-trm ${version()}\n`);
    return 0;
  }
  if (cmd === "--help" || cmd === "-h") {
    io.out(programHelp());
    return 0;
  }
  if (cmd === "help") {
    const topic = rest[0];
    const c = COMMANDS.find((x) => x.name === topic);
    if (topic === undefined) io.out(programHelp());
    else if (c) io.out(commandHelp(c));
    else if (SIMPLE_HELP[topic]) io.out(SIMPLE_HELP[topic]!);
    else throw new UsageError(`unknown command ${JSON.stringify(topic)}`);
    return 0;
  }
  if (cmd === "demo") {
    if (wantsHelp(rest)) {
      io.out(SIMPLE_HELP.demo!);
      return 0;
    }
    if (rest.length) throw new UsageError("demo takes no arguments", "demo");
    const { runDemo } = await import("./demo.js");
    await runDemo();
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  }
  const c = COMMANDS.find((x) => x.name === cmd);
  if (!c) throw new UsageError(cmd.startsWith("-") ? `unknown option ${cmd}` : `unknown command ${JSON.stringify(cmd)}`);
  return runCommand(c, rest, io);
}

/** What goes to stderr for a failure, and the exit code: 2 for usage errors, 1 for everything else. */
export function describeError(err: unknown): { text: string; code: number } {
  if (err instanceof UsageError) {
    const more = err.command ? `${cliCommand()} ${err.command} --help` : `${cliCommand()} --help`;
    return { text: `code-trm: ${err.message}\nusage: see ${more}\n`, code: 2 };
  }
  if (err instanceof UserError) return { text: `code-trm: ${err.message}${err.hint ? `\n${err.hint}` : ""}\n`, code: 1 };
  if (err instanceof GitError) return { text: `code-trm: ${err.message}\nIs the repository intact? \`git status\` and \`git fsck\` tell.\n`, code: 1 };
  return { text: `code-trm: ${err instanceof Error ? err.message : String(err)}\n`, code: 1 };
}

function processIo(argv: string[]): Io {
  const color = colorEnabled(process.stdout) && !argv.includes("--no-color");
  return {
    out: (t) => void process.stdout.write(t),
    err: (t) => void process.stderr.write(t),
    paint: paint(color),
    color,
    cwd: process.cwd(),
  };
}

// `code-trm log <id> | head` closes the pipe early: that is not an error.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});

// First of all, for every command (review runs the repository's own ESLint): see util/initial-env.ts.
const scrub = holdAndScrubCredentials();
if (scrub.error) {
  process.stderr.write(
    `code-trm: could not clear ${scrub.held.join(", ")} from its initial environment (${scrub.error}); without sandbox: true, commands it runs can read them from /proc/${process.pid}/environ\n`,
  );
}

const args = process.argv.slice(2);
main(args, processIo(args)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (err: unknown) => {
    const { text, code } = describeError(err);
    process.stderr.write(text);
    process.exitCode = code;
  },
);
