import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolDef } from "../../../src/mcp/register.js";
import { listing } from "../../../src/mcp/server.js";
import { suggestTools } from "../../../src/mcp/tools/suggest-tools.js";
import { SessionManager } from "../../../src/session/manager.js";
import { sessionOver, TSC } from "../suggest/helpers.js";

type AnyTool = ToolDef<z.ZodRawShape, z.ZodRawShape>;

describe("suggestion tools", () => {
  const tools = suggestTools(new SessionManager()) as unknown as AnyTool[];

  it("are two read-only tools with a sessionId input and a small listing", () => {
    expect(tools.map((t) => t.name)).toEqual(["trm_get_suggestions", "trm_suggest_fix"]);
    for (const t of tools) {
      expect(t.hints).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
      expect(Object.keys(t.input)).toEqual(["sessionId"]);
    }
    // What a model reads every turn: each tool stays within ~60 o200k tokens (the budget is shared).
    for (const entry of listing(tools)) {
      const tokens = countTokens(JSON.stringify({ name: entry.name, description: entry.description, inputSchema: entry.inputSchema }));
      expect(tokens, entry.name).toBeLessThanOrEqual(60);
    }
  });

  it("return structured content that matches their output schemas, and a text rendering", async () => {
    const { session } = await sessionOver("ts-fixable", { buildCmd: TSC, preflight: true });
    const manager = new SessionManager();
    manager.add(session);
    const [get, fix] = suggestTools(manager) as unknown as AnyTool[];
    const g = await get!.run({ sessionId: session.id }, {});
    expect(z.object(get!.output).parse(g.structured)).toEqual(g.structured);
    expect(g.text).toMatch(/^1\. \[critical\] build src\/report.ts:4: TS2304 Cannot find name 'add'\.\n {3}→ Import or declare/);
    const f = await fix!.run({ sessionId: session.id }, {});
    expect(z.object(fix!.output).parse(f.structured)).toEqual(f.structured);
    expect(f.text).toMatch(/^1\. \[critical\] typescript: 2 tsc errors/);
    expect(f.text).toContain('candidate: {"mode":"modify"');
  });
});
