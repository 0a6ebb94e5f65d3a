/**
 * The JSON schemas a model reads on every turn, stripped of what costs tokens and tells it nothing:
 * the `$schema` URL, the ±2^53 bounds zod puts on every integer, and length / count / range limits
 * (the server still enforces all of them with zod, and its error names the limit). Fractions keep
 * their 0..1 range because it says what the number means. `additionalProperties: false` goes too: it
 * is not even true here, as zod objects strip unknown keys instead of rejecting them.
 */
const DROP = new Set(["$schema", "minLength", "maxLength", "minItems", "maxItems"]);

export function leanJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(leanJsonSchema);
  if (node === null || typeof node !== "object") return node;
  const src = node as Record<string, unknown>;
  const keepRange = typeof src.maximum === "number" && src.maximum <= 1 && src.type === "number";
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(src)) {
    if (DROP.has(k) || (k === "additionalProperties" && v === false)) continue;
    if ((k === "minimum" || k === "maximum" || k === "exclusiveMinimum" || k === "exclusiveMaximum") && !keepRange) continue;
    // `properties` maps names to schemas: recurse into the values, never treat a name as a keyword.
    out[k] = k === "properties" ? Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([n, s]) => [n, leanJsonSchema(s)])) : leanJsonSchema(v);
  }
  return out;
}
