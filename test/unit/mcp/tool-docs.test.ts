import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { allTools } from "../../../src/mcp/server.js";
import { DOCS_END, DOCS_START, limitsText, toolsReference, typeText, withToolsReference } from "../../../src/mcp/tool-docs.js";
import { startSessionDefaults } from "../../../src/mcp/tools/start-session.js";
import { resolveConfig } from "../../../src/session/config.js";
import { SessionManager } from "../../../src/session/manager.js";

const DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../docs/tools.md");
const tools = allTools(new SessionManager()) as Parameters<typeof toolsReference>[0];

describe("docs/tools.md", () => {
  it("is the reference the tools' schemas generate (npm run docs writes it)", () => {
    const doc = readFileSync(DOC, "utf8");
    expect(withToolsReference(doc, tools), "docs/tools.md differs from the tools' schemas: run `npm run docs`").toBe(doc);
  });

  it("has a section per tool and a row per input, and refuses a file without its markers", () => {
    const ref = toolsReference(tools);
    for (const t of tools) {
      expect(ref).toContain(`### \`${t.name}\``);
      for (const k of Object.keys(t.input)) expect(ref, `${t.name}.${k}`).toMatch(new RegExp(`\\n\\| \`${k}\` \\|`));
    }
    expect(() => withToolsReference("# no markers\n", tools)).toThrow(/markers/);
    expect(() => withToolsReference(`${DOCS_START}\n${DOCS_START}\n${DOCS_END}\n`, tools)).toThrow(/markers/);
  });

  it("shows trm_start_session's defaults as resolveConfig applies them", () => {
    const c = resolveConfig({ repoPath: "/r", testCmd: "t" });
    const applied = {
      timeoutSec: c.timeoutSec,
      weights: c.weights,
      halt: c.halt,
      emaAlpha: c.emaAlpha,
      cascade: c.cascade,
      parallel: c.parallel ?? true,
      perfDirection: c.perfDirection,
    };
    expect(startSessionDefaults).toEqual(applied);
  });

  it("writes types and limits short", () => {
    const js = (s: z.ZodType) => z.toJSONSchema(s, { target: "draft-7", io: "input" }) as Record<string, unknown>;
    expect(typeText(js(z.array(z.object({ name: z.string(), weight: z.number().optional() }))))).toBe("{name, weight?}[]");
    expect(typeText(js(z.enum(["lower", "higher"])))).toBe('"lower" | "higher"');
    expect(typeText(js(z.number().nullable()))).toBe("number | null");
    expect(typeText(js(z.record(z.string(), z.number())))).toBe("{[key]: number}");
    expect(limitsText(js(z.number().int().min(1).max(3600)))).toBe("1..3600");
    expect(limitsText(js(z.number().int()))).toBe("");
    expect(limitsText(js(z.string().max(2000)))).toBe("≤ 2000 chars");
  });
});
