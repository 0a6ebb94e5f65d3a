import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { ZodRawShape, z } from "zod";
import type { CallContext } from "../session/context.js";
import { profileMark } from "../util/profile.js";
import { callContext, type SdkExtra } from "./context.js";
import { fail, ok } from "./respond.js";

/** The four hints are always explicit: the SDK's defaults would call every tool destructive and open-world. */
export type Hints = Required<Pick<ToolAnnotations, "readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint">>;

export const READ_ONLY: Hints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export interface ToolDef<I extends ZodRawShape, O extends ZodRawShape> {
  name: string;
  description: string;
  input: I;
  output: O;
  hints: Hints;
  /**
   * For docs/tools.md only, never sent to clients (every word of a schema is paid on every model turn):
   * the defaults of optional inputs, and what an input is for where its schema says too little.
   */
  defaults?: { [K in keyof I]?: unknown };
  notes?: { [K in keyof I]?: string };
  run(args: z.infer<z.ZodObject<I>>, ctx: CallContext): Promise<{ structured: z.infer<z.ZodObject<O>>; text: string }>;
}

export function defineTool<I extends ZodRawShape, O extends ZodRawShape>(def: ToolDef<I, O>): ToolDef<I, O> {
  return def;
}

export function registerTool<I extends ZodRawShape, O extends ZodRawShape>(server: McpServer, def: ToolDef<I, O>): void {
  server.registerTool(
    def.name,
    { description: def.description, inputSchema: def.input, outputSchema: def.output, annotations: def.hints },
    // The SDK's callback generics do not follow a generic shape parameter; the input was validated against def.input.
    (async (args: unknown, extra: SdkExtra) => {
      profileMark("sdk-in");
      try {
        const r = await def.run(args as z.infer<z.ZodObject<I>>, callContext(extra));
        profileMark("tool");
        return ok(r.structured as Record<string, unknown>, r.text);
      } catch (err) {
        return fail(err);
      }
    }) as never,
  );
}

type SameKeys<A, B> = [Exclude<keyof A, keyof B> | Exclude<keyof B, keyof A>] extends [never] ? true : false;

/** Objects (and array elements) at every depth have the same keys on both sides. */
type KeysMatch<A, B> = [A] extends [readonly (infer X)[]]
  ? [B] extends [readonly (infer Y)[]]
    ? KeysMatch<X, Y>
    : false
  : [A] extends [object]
    ? [B] extends [object]
      ? SameKeys<A, B> extends true
        ? false extends { [K in keyof A & keyof B]-?: KeysMatch<NonNullable<A[K]>, NonNullable<B[K]>> }[keyof A & keyof B]
          ? false
          : true
        : false
      : false
    : true;

/**
 * true when A and B are assignable to each other and name the same keys at every depth: a tool's zod
 * schema (its z.infer) and the plain type of the lower layer it feeds. `true satisfies SameShape<...>`
 * fails the build when one gains an option or a field the other lacks, or types it differently.
 */
export type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? KeysMatch<NonNullable<A>, NonNullable<B>> : false) : false;
