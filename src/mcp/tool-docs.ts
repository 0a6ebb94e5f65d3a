import { z } from "zod";
import type { ToolDef } from "./register.js";

/**
 * docs/tools.md's tool reference, generated from the tools' own schemas (scripts/docs-tools.mjs writes
 * it; test/unit/mcp/tool-docs.test.ts fails while the file differs). Limits come from the full input
 * schema, which the server enforces; clients are shown the lean one (lean-schema.ts).
 */
export const DOCS_START = "<!-- tools:start (generated from the schemas in src/mcp/tools by `npm run docs`; do not edit) -->";
export const DOCS_END = "<!-- tools:end -->";

type Schema = { [k: string]: unknown };
type AnyTool = ToolDef<z.ZodRawShape, z.ZodRawShape>;

// zod's bounds of every integer: no limit a reader needs to know.
const SAFE = Number.MAX_SAFE_INTEGER;

// Angle brackets (trm/<id>) would be read as HTML tags.
const esc = (s: string) => s.replace(/</g, "&lt;").replace(/>/g, "&gt;");
const cell = (s: string) => esc(s).replace(/\|/g, "\\|").replace(/\n/g, " ");
const props = (s: Schema) => (s.properties ?? {}) as Record<string, Schema>;
const required = (s: Schema) => new Set((s.required ?? []) as string[]);

/** A schema as a short type: `string`, `"lower" | "higher"`, `{name, cmd, weight}[]`, `number | null`. */
export function typeText(s: Schema): string {
  if (Array.isArray(s.anyOf)) return [...new Set((s.anyOf as Schema[]).map(typeText))].join(" | ");
  if (Array.isArray(s.enum)) return (s.enum as unknown[]).map((v) => JSON.stringify(v)).join(" | ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.type)) return (s.type as string[]).join(" | ");
  if (s.type === "array") {
    const item = typeText((s.items ?? {}) as Schema);
    return `${/[| ]/.test(item) && !item.startsWith("{") ? `(${item})` : item}[]`;
  }
  if (s.type === "object") {
    const p = props(s);
    if (Object.keys(p).length) {
      const req = required(s);
      return `{${Object.keys(p)
        .map((k) => (req.has(k) ? k : `${k}?`))
        .join(", ")}}`;
    }
    if (s.additionalProperties && typeof s.additionalProperties === "object") return `{[key]: ${typeText(s.additionalProperties as Schema)}}`;
    return "object";
  }
  return typeof s.type === "string" ? s.type : "any";
}

/** The limits the server enforces on one value (numbers, lengths, counts). */
export function limitsText(s: Schema): string {
  const range = (lo: unknown, hi: unknown, unit: string) => {
    const l = typeof lo === "number" && lo > -SAFE ? lo : undefined;
    const h = typeof hi === "number" && hi < SAFE ? hi : undefined;
    if (l !== undefined && h !== undefined) return `${l}..${h}${unit}`;
    if (l !== undefined) return `≥ ${l}${unit}`;
    return h !== undefined ? `≤ ${h}${unit}` : "";
  };
  if (s.type === "number" || s.type === "integer") {
    if (typeof s.exclusiveMinimum === "number") return `> ${s.exclusiveMinimum}${typeof s.maximum === "number" ? `, ≤ ${s.maximum}` : ""}`;
    return range(s.minimum, s.maximum, "");
  }
  if (s.type === "string") return range(s.minLength, s.maxLength, " chars") + (typeof s.pattern === "string" ? ` ${s.pattern}` : "");
  if (s.type === "array") return range(s.minItems, s.maxItems, " items");
  return "";
}

const hintText = (t: AnyTool) =>
  Object.entries(t.hints)
    .map(([k, v]) => `${k} \`${v}\``)
    .join(", ");

function toolSection(t: AnyTool): string[] {
  const input = z.toJSONSchema(z.object(t.input), { target: "draft-7", io: "input" }) as Schema;
  const output = z.toJSONSchema(z.object(t.output), { target: "draft-7", io: "output" }) as Schema;
  const defaults = (t.defaults ?? {}) as Record<string, unknown>;
  const notes = (t.notes ?? {}) as Record<string, string>;
  const reqIn = required(input);
  const reqOut = required(output);
  const inputs = Object.entries(props(input)).map(([k, s]) => {
    const type = [typeText(s), limitsText(s)].filter(Boolean).join(" ");
    const dflt = reqIn.has(k) ? "required" : k in defaults ? `\`${JSON.stringify(defaults[k])}\`` : "";
    const what = [s.description, notes[k]].filter(Boolean).join("; ");
    return `| \`${k}\` | ${cell(type)} | ${cell(dflt)} | ${cell(what)} |`;
  });
  const outputs = Object.entries(props(output)).map(
    ([k, s]) => `| \`${k}\` | ${cell(typeText(s))} | ${reqOut.has(k) ? "always" : "optional"} | ${cell(String(s.description ?? ""))} |`,
  );
  return [
    `### \`${t.name}\``,
    "",
    esc(t.description),
    "",
    `Annotations: ${hintText(t)}.`,
    "",
    ...(inputs.length ? ["| input | type | default | description |", "|---|---|---|---|", ...inputs] : ["No input."]),
    "",
    "| output | type | present | description |",
    "|---|---|---|---|",
    ...outputs,
    "",
  ];
}

/** The reference: an index of the tools, then each tool's inputs and outputs. */
export function toolsReference(tools: AnyTool[]): string {
  return [
    DOCS_START,
    "| tool | what it does |",
    "|---|---|",
    ...tools.map((t) => `| [\`${t.name}\`](#${t.name}) | ${cell(t.description)} |`),
    "",
    ...tools.flatMap(toolSection),
    DOCS_END,
  ].join("\n");
}

/** `doc` with the text between its markers replaced by the generated reference (the markers must be there, once). */
export function withToolsReference(doc: string, tools: AnyTool[]): string {
  const a = doc.indexOf(DOCS_START);
  const b = doc.indexOf(DOCS_END);
  if (a < 0 || b < a || doc.indexOf(DOCS_START, a + 1) >= 0) throw new Error("docs/tools.md: the tools reference markers are missing or repeated");
  return doc.slice(0, a) + toolsReference(tools) + doc.slice(b + DOCS_END.length);
}
