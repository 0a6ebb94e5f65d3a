import { z } from "zod";

/**
 * The candidate input schema. It is one flat object rather than a discriminated union on purpose:
 * the schema is sent to the model on every turn (twice: submit and validate), and a union of six
 * modes and seven edit types costs several times the tokens. Which fields each mode needs is checked
 * by {@link checkCandidateShape} with messages that say what to send.
 */
export const EDIT_TYPES = ["replace", "replaceLine", "replaceRange", "insertBefore", "insertAfter", "deleteLine", "deleteRange"] as const;

export const editSchema = z.object({
  type: z.enum(EDIT_TYPES),
  oldText: z.string().optional(),
  newText: z.string().optional(),
  all: z.boolean().optional(),
  line: z.number().int().optional(),
  startLine: z.number().int().optional(),
  endLine: z.number().int().optional(),
  content: z.string().optional(),
});

export const MODES = ["files", "patch", "diff", "create", "modify", "delete"] as const;

export const candidateSchema = z
  .object({
    mode: z.enum(MODES),
    files: z.array(z.object({ path: z.string(), content: z.string() })).optional(),
    patch: z.string().optional(),
    diffs: z.array(z.object({ path: z.string(), diff: z.string() })).optional(),
    changes: z.array(z.object({ file: z.string(), edits: z.array(editSchema) })).optional(),
    paths: z.array(z.string()).optional(),
  })
  .describe("files|create: files[{path,content}]; patch: patch; diff: diffs[{path,diff}]; modify: changes[{file,edits}]; delete: paths");

export type Edit = z.infer<typeof editSchema>;
export type Candidate = z.infer<typeof candidateSchema>;
export type Mode = (typeof MODES)[number];
