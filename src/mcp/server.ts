import { readFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { killAllRunning } from "../exec/run.js";
import { closeAllGitProcesses } from "../git/long-lived.js";
import { SessionManager } from "../session/manager.js";
import { holdAndScrubCredentials } from "../util/initial-env.js";
import { leanJsonSchema } from "./lean-schema.js";
import { registerTool, type ToolDef } from "./register.js";
import { explainSchemaErrors } from "./schema-errors.js";
import { LineTransport } from "./stdio-transport.js";
import { candidateTools } from "./tools/candidate-tools.js";
import { fileTools } from "./tools/file-tools.js";
import { historyTools } from "./tools/history-tools.js";
import { reviewTools } from "./tools/review-tools.js";
import { sessionTools } from "./tools/session-tools.js";
import { suggestTools } from "./tools/suggest-tools.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

export function allTools(sessions: SessionManager) {
  return [
    ...sessionTools(sessions),
    ...candidateTools(sessions),
    ...historyTools(sessions),
    ...fileTools(sessions),
    ...suggestTools(sessions),
    ...reviewTools(),
  ];
}

export function createServer(sessions = new SessionManager()): McpServer {
  const server = new McpServer(
    { name: "code-trm", version: pkg.version },
    {
      instructions:
        "code-trm is the critic in a refinement loop: trm_start_session on a repo, then repeat trm_submit_candidate (small changes, a rationale each) until shouldHalt. Every step is a commit on branch trm/<id>; the user's checkout is never modified.",
    },
  );
  const tools = allTools(sessions) as unknown as ToolDef<z.ZodRawShape, z.ZodRawShape>[];
  for (const t of tools) registerTool(server, t);
  explainSchemaErrors(server);
  // Calls still go through the SDK (and its zod validation); only the advertised schemas are leaner.
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing(tools) }));
  return server;
}

/** What tools/list returns: lean input schemas (see lean-schema.ts), full output schemas. */
export function listing(tools: ToolDef<z.ZodRawShape, z.ZodRawShape>[]) {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: leanJsonSchema(z.toJSONSchema(z.object(t.input), { target: "draft-7", io: "input" })) as { type: "object" },
    outputSchema: (({ $schema: _drop, ...rest }) => rest)(z.toJSONSchema(z.object(t.output), { target: "draft-7", io: "output" })) as { type: "object" },
    annotations: t.hints,
  }));
}

/** Serves MCP over stdio: nothing but protocol on stdout, logs on stderr. */
export async function serveStdio(): Promise<void> {
  // Before anything is started: no child inherits the credentials, none reads them from our block.
  const scrub = holdAndScrubCredentials();
  const sessions = new SessionManager();
  const server = createServer(sessions);
  const transport = new LineTransport();
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    killAllRunning();
    // Writes a step left for after its reply (its full logs) finish first, briefly: exiting half-way
    // through one leaves an unreachable object behind.
    void sessions.settleAll(3000).finally(() => {
      closeAllGitProcesses();
      process.exit(0);
    });
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  process.stdin.on("close", shutdown);
  await server.connect(transport);
  process.stderr.write(`code-trm ${pkg.version} serving MCP on stdio\n`);
  if (scrub.error)
    process.stderr.write(
      `code-trm: could not clear ${scrub.held.join(", ")} from the server's initial environment (${scrub.error}); without sandbox: true, commands can read them from /proc/${process.pid}/environ\n`,
    );
}
