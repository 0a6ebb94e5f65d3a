import { z } from "zod";
import { readFiles, readLines } from "../../session/files.js";
import { readLog } from "../../session/logs.js";
import type { SessionManager } from "../../session/manager.js";
import { LIMITS } from "../../util/limits.js";
import { defineTool, READ_ONLY } from "../register.js";
import { pointIn } from "./point.js";

const at = pointIn.optional().describe("baseline|best|current|<step>|<checkpoint>; default current");

export function fileTools(sessions: SessionManager) {
  const read = defineTool({
    name: "trm_read_files",
    description: "Read files of the session (current worktree or a past point) with lineCount, sizeBytes, lastModified; offset/limit select lines.",
    input: {
      sessionId: z.string(),
      paths: z.array(z.string()).min(1).max(LIMITS.maxReadPaths),
      offset: z.number().int().min(1).optional().describe("first line, 1-based"),
      limit: z.number().int().min(1).optional().describe("max lines"),
      at,
    },
    output: {
      files: z.array(
        z.object({
          path: z.string(),
          exists: z.boolean(),
          content: z.string().optional(),
          lineCount: z.number().optional(),
          sizeBytes: z.number().optional(),
          lastModified: z.string().optional(),
          startLine: z.number().optional(),
          linesReturned: z.number().optional(),
          binary: z.boolean().optional(),
          truncated: z.boolean().optional(),
        }),
      ),
    },
    hints: READ_ONLY,
    async run(args) {
      const s = await sessions.get(args.sessionId);
      const files = await s.mutex.run(() => readFiles(s, args.paths, { offset: args.offset, limit: args.limit, at: args.at }));
      const text = files
        .map((f) => {
          if (!f.exists) return `=== ${f.path}: does not exist`;
          if (f.binary) return `=== ${f.path}: binary, ${f.sizeBytes} bytes`;
          const range = f.startLine ? ` lines ${f.startLine}-${f.startLine + (f.linesReturned ?? 1) - 1} of ${f.lineCount}` : ` ${f.lineCount} lines`;
          return `=== ${f.path}${range}${f.truncated ? " (truncated)" : ""}\n${f.content}`;
        })
        .join("\n");
      return { structured: { files }, text };
    },
  });

  const lines = defineTool({
    name: "trm_read_lines",
    description: 'Numbered line range of one file ("45: ...").',
    input: { sessionId: z.string(), file: z.string(), startLine: z.number().int().min(1), endLine: z.number().int().min(1), at },
    output: { file: z.string(), lines: z.array(z.string()), lineCount: z.number(), startLine: z.number(), endLine: z.number() },
    hints: READ_ONLY,
    async run(args) {
      const s = await sessions.get(args.sessionId);
      const r = await readLines(s, { file: args.file, startLine: args.startLine, endLine: args.endLine, at: args.at });
      return { structured: r, text: `${r.file} (${r.lineCount} lines)\n${r.lines.join("\n")}` };
    },
  });
  const log = defineTool({
    name: "trm_read_log",
    description: "Full output of a command at a step (feedback shows only an excerpt). Default: the first failing command, current step.",
    input: {
      sessionId: z.string(),
      at,
      command: z.string().optional().describe("build|test|lint|bench|check:<name>"),
      offset: z.number().int().min(0).optional(),
      limit: z.number().int().min(1).optional(),
    },
    output: {
      at: z.string(),
      command: z.string(),
      available: z.array(z.object({ command: z.string(), chars: z.number() })),
      totalChars: z.number(),
      offset: z.number(),
      content: z.string(),
      truncated: z.boolean(),
    },
    hints: READ_ONLY,
    async run(args) {
      const s = await sessions.get(args.sessionId);
      const r = await readLog(s, args);
      const more = r.truncated ? `\n… ${r.totalChars - r.offset - r.content.length} more characters (offset ${r.offset + r.content.length})` : "";
      return {
        structured: r,
        text: `${r.command} at ${r.at} (${r.totalChars} characters; recorded: ${r.available.map((a) => a.command).join(", ")})\n${r.content}${more}`,
      };
    },
  });
  return [read, lines, log];
}
