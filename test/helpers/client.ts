import { writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type CallToolResult, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { ROOT, tmpDir } from "./repo.js";

export interface TestServer {
  client: Client;
  /** Calls a tool and returns its structured content; throws with the text when the result is an error. */
  call<T = Record<string, unknown>>(
    name: string,
    args: Record<string, unknown>,
    opts?: { onprogress?: (p: unknown) => void; signal?: AbortSignal },
  ): Promise<T>;
  /** Calls a tool and returns the raw result (for error results). */
  raw(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  stderr: () => string;
  close(): Promise<void>;
  pid: number | undefined;
  stateDir: string;
}

/**
 * The suite's TMPDIR (test/helpers/tmp-guard.ts), for the env of every process a test starts: what the
 * server, the command line or a session's commands leave in the temporary folder is then counted too.
 */
export function tmpEnv(): Record<string, string> {
  return process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {};
}

/**
 * Starts the built server (dist/) over stdio, as an MCP client would, with no git identity configured
 * (HOME is empty) to prove code-trm commits without one.
 */
export async function startServer(opts: { stateDir?: string; env?: Record<string, string>; gitconfig?: string } = {}): Promise<TestServer> {
  const home = tmpDir("trm-home-");
  // The user's global git configuration, when a test needs one (none by default: no identity either).
  if (opts.gitconfig) writeFileSync(path.join(home, ".gitconfig"), opts.gitconfig);
  const stateDir = opts.stateDir ?? tmpDir("trm-state-");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(ROOT, "dist", "cli", "main.js")],
    // TMPDIR passed on: what the server puts in the temporary folder is counted by the suite's guard too.
    env: { PATH: process.env.PATH ?? "", HOME: home, CODE_TRM_STATE_DIR: stateDir, GIT_CONFIG_NOSYSTEM: "1", ...tmpEnv(), ...opts.env },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: "trm-e2e", version: "0.0.0" });
  await client.connect(transport);
  const raw = async (name: string, args: Record<string, unknown>, o: { onprogress?: (p: unknown) => void; signal?: AbortSignal } = {}) =>
    (await client.callTool({ name, arguments: args }, CallToolResultSchema, {
      onprogress: o.onprogress as never,
      signal: o.signal,
      timeout: 120_000,
      resetTimeoutOnProgress: true,
    })) as CallToolResult;
  return {
    client,
    raw: (n, a) => raw(n, a),
    async call(name, args, o) {
      const r = await raw(name, args, o);
      if (r.isError) throw new Error(`${name} failed: ${(r.content[0] as { text: string }).text}`);
      return r.structuredContent as never;
    },
    stderr: () => err,
    close: () => client.close(),
    pid: transport.pid ?? undefined,
    stateDir,
  };
}

export function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}
