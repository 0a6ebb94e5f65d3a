import { describe, expect, it } from "vitest";
import { z } from "zod";
import { leanJsonSchema } from "../../../src/mcp/lean-schema.js";

describe("leanJsonSchema", () => {
  const schema = z.toJSONSchema(
    z.object({
      name: z.string().min(1).max(40).describe("a name"),
      count: z.number().int(),
      ratio: z.number().min(0).max(1),
      tags: z.array(z.string()).max(5),
      // A property literally called "maximum" must survive: names are not keywords.
      limits: z.object({ maximum: z.number().int().min(1) }),
      mode: z.enum(["a", "b"]).optional(),
    }),
    { target: "draft-7" },
  );

  it("drops what tells a model nothing and keeps what it needs", () => {
    expect(leanJsonSchema(schema)).toEqual({
      type: "object",
      properties: {
        name: { type: "string", description: "a name" },
        count: { type: "integer" },
        ratio: { type: "number", minimum: 0, maximum: 1 },
        tags: { type: "array", items: { type: "string" } },
        limits: { type: "object", properties: { maximum: { type: "integer" } }, required: ["maximum"] },
        mode: { type: "string", enum: ["a", "b"] },
      },
      required: ["name", "count", "ratio", "tags", "limits"],
    });
  });
});
