#!/usr/bin/env node
import { serveStdio } from "../mcp/server.js";

const [cmd] = process.argv.slice(2);

async function main(): Promise<void> {
  if (cmd === undefined || cmd === "serve") return serveStdio();
  if (cmd === "demo") {
    const { runDemo } = await import("./demo.js");
    return runDemo();
  }
  if (cmd === "--help" || cmd === "-h" || cmd === "help") {
    process.stdout.write("usage: code-trm [serve|demo]\n  (no command) serve MCP over stdio\n  demo         run a real session on a fixture repository and print it\n");
    return;
  }
  process.stderr.write(`code-trm: unknown command ${JSON.stringify(cmd)}; see code-trm --help\n`);
  process.exitCode = 2;
}

main().catch((err: unknown) => {
  process.stderr.write(`code-trm: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
