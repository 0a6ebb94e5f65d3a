import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * What to do after an argument failed the tool's input schema. The SDK checks the arguments before
 * our handler runs and answers with its own text ("MCP error -32602: Input validation error: ... at
 * from"); this adds the part a model needs to fix the call: which arguments, and where their types are.
 */
export function schemaErrorHelp(message: string): string | null {
  if (!/-32602|Input validation error|Invalid arguments for tool/.test(message)) return null;
  const tool = /for tool ([\w-]+)/.exec(message)?.[1];
  const fields = [...new Set([...message.matchAll(/ at ([\w.[\]-]+)/g)].map((m) => m[1]!))];
  const which = fields.length ? `fix ${fields.join(", ")}` : "fix the arguments";
  // A best-of-N candidate sent as a JSON number (3.2) is not taken as "3.2": 3.10 would arrive as 3.1.
  const point =
    fields.some((f) => f === "at" || f === "from" || f === "to") && /received number/.test(message)
      ? ` A best-of-N candidate <step>.<k> is sent as a string, e.g. "3.2".`
      : "";
  return `What to do: ${which} to match the inputSchema of ${tool ?? "the tool"} in tools/list (a missing required argument, a wrong type or an unknown value), then call again.${point} Nothing was done.`;
}

/**
 * Hooks the SDK's tool-error rendering, the only place its -32602 validation text passes through.
 * createToolError is internal to the SDK, so the hook is optional: without it the SDK's text stays as
 * it was (test/e2e/protocol.test.ts notices).
 */
export function explainSchemaErrors(server: McpServer): void {
  const internal = server as unknown as { createToolError?: (message: string) => CallToolResult };
  const original = internal.createToolError;
  if (typeof original !== "function") return;
  internal.createToolError = (message: string) => {
    const help = schemaErrorHelp(message);
    return original.call(server, help ? `${message}\n${help}` : message);
  };
}
