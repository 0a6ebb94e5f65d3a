/**
 * MCP over stdio, newline-delimited JSON-RPC, as the SDK's StdioServerTransport speaks it, with two
 * differences that a client sending large candidates needs:
 * - a message of up to LIMITS.maxRequestBytes is read in linear time (the SDK concatenates its whole
 *   buffer on every 64 KiB chunk, quadratic in the message size, and stops at 10 MiB of its own);
 * - a larger message is skipped up to its newline, unread, and answered with a JSON-RPC error naming the
 *   limit for id null, where the SDK's transport closes, which ends the server without a word;
 * - a line that is not JSON, not a JSON-RPC message, or a request whose params the SDK would reject gets
 *   the JSON-RPC error for it (-32700, -32600, -32602), where the SDK stays silent or answers -32603, and
 *   a leading byte-order mark or `params: null` (clients that serialise an absent value) is tolerated.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ClientRequestSchema, type JSONRPCMessage, JSONRPCMessageSchema, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { LIMITS } from "../util/limits.js";
import { profileBegin, profileEnd, profileMark } from "../util/profile.js";

/** The SDK's schema of each request a client may send, by method: their params are checked here. */
const REQUESTS = new Map<string, (typeof ClientRequestSchema.options)[number]>(ClientRequestSchema.options.map((o) => [o.shape.method.value, o]));

/** JSON-RPC error codes (JSON-RPC 2.0, section 5.1). */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;
const INVALID_REQUEST_TEXT =
  'Invalid Request: expected a JSON-RPC 2.0 object with "jsonrpc": "2.0", a "method" and, for a request, an "id" (batches are not supported).';

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while skipping an oversized message: its length so far. */
  private skipping: number | null = null;

  constructor(
    private readonly maxBytes: number = LIMITS.maxRequestBytes,
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {}

  private readonly onData = (chunk: Buffer) => {
    let rest = chunk;
    for (let nl = rest.indexOf(10); nl >= 0; nl = rest.indexOf(10)) {
      this.take(rest.subarray(0, nl));
      this.endOfLine();
      rest = rest.subarray(nl + 1);
    }
    if (rest.length > 0) this.take(rest);
  };

  private readonly onError = (error: Error) => this.onerror?.(error);

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.skipping !== null) {
      this.skipping += piece.length;
      return;
    }
    if (this.size + piece.length <= this.maxBytes) {
      this.chunks.push(piece);
      this.size += piece.length;
      return;
    }
    this.skipping = this.size + piece.length;
    this.chunks = [];
    this.size = 0;
  }

  private endOfLine(): void {
    if (this.skipping !== null) {
      const size = this.skipping;
      this.skipping = null;
      this.onerror?.(new Error(`discarded a message of ${size} bytes (limit ${this.maxBytes})`));
      // Unread, its id is unknown: id null, as for a line that is not JSON (JSON-RPC 2.0, section 5).
      const message = `Request of ${size} bytes is larger than code-trm's limit of ${this.maxBytes} bytes per message; it was not read.`;
      void this.answer(
        null,
        INVALID_REQUEST,
        `${message} Send fewer or smaller files per call (a candidate may hold ${LIMITS.maxCandidateBytes} bytes, ${LIMITS.maxFileBytes} per file).`,
      );
      return;
    }
    profileBegin("request");
    const line = Buffer.concat(this.chunks, this.size)
      .toString("utf8")
      .replace(/^\uFEFF/, "")
      .replace(/\r$/, "");
    this.chunks = [];
    this.size = 0;
    if (line.trim() === "") return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      void this.answer(null, PARSE_ERROR, "Parse error: the line is not JSON. Send one JSON-RPC 2.0 message per line.");
      return;
    }
    const checked = checkMessage(raw);
    if ("problem" in checked) {
      const { problem } = checked;
      this.onerror?.(new Error(problem.message));
      if (problem.id !== undefined) void this.answer(problem.id, problem.code, problem.message);
      return;
    }
    profileMark("parse");
    this.onmessage?.(checked.message);
  }

  /** An error answer; `id` null when the request's id could not be read (JSON-RPC 2.0, section 5). */
  private answer(id: RequestId | null, code: number, message: string): Promise<void> {
    const error = { code, message };
    return (id === null ? this.write({ jsonrpc: "2.0", id, error }) : this.send({ jsonrpc: "2.0", id, error })).catch(() => undefined);
  }

  async start(): Promise<void> {
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onError);
  }

  async close(): Promise<void> {
    this.stdin.off("data", this.onData);
    this.stdin.off("error", this.onError);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.chunks = [];
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  private write(message: JSONRPCMessage | { jsonrpc: "2.0"; id: null; error: { code: number; message: string } }): Promise<void> {
    const isAnswer = "id" in message && ("result" in message || "error" in message);
    if (isAnswer) profileMark("sdk-out");
    const line = `${JSON.stringify(message)}\n`;
    if (isAnswer) profileEnd("json");
    return new Promise((resolve) => {
      if (this.stdout.write(line)) resolve();
      else this.stdout.once("drain", resolve);
    });
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is RequestId => typeof v === "string" || (typeof v === "number" && Number.isSafeInteger(v));

type Problem = { id: RequestId | null | undefined; code: number; message: string };

/**
 * The message as the SDK's schema reads it (parsed once here: the schema is a union of zod objects), or
 * why a parsed line is not a message to hand on, with the id to answer (null: unreadable; undefined: no
 * answer, for a notification or a response, which get none). `params: null` is removed in place first.
 */
function checkMessage(raw: unknown): { problem: Problem } | { message: JSONRPCMessage } {
  const problem = (p: Problem) => ({ problem: p });
  if (!isObject(raw)) return problem({ id: null, code: INVALID_REQUEST, message: INVALID_REQUEST_TEXT });
  if (raw.params === null) delete raw.params;
  const { id, method } = raw;
  const parsed = JSONRPCMessageSchema.safeParse(raw);
  const valid = parsed.success;
  if (typeof method === "string" && isId(id)) {
    // A request whose envelope is right but whose params are not: the SDK would answer -32603 (internal).
    if (!valid && !JSONRPCMessageSchema.safeParse({ ...raw, params: undefined }).success)
      return problem({ id, code: INVALID_REQUEST, message: INVALID_REQUEST_TEXT });
    const checked = REQUESTS.get(method)?.safeParse({ method, params: raw.params });
    if (valid && (!checked || checked.success)) return { message: parsed.data };
    const issues =
      checked && !checked.success
        ? checked.error.issues.slice(0, 3).map((i) => `${i.path.map(String).join(".") || "params"}: ${i.message}`)
        : ["params must be an object"];
    return problem({ id, code: INVALID_PARAMS, message: `Invalid params for ${method}: ${issues.join("; ")}` });
  }
  if (valid) return { message: parsed.data };
  // A notification (a method, no id) or a response (result or error) is never answered; a request whose
  // id is not a JSON-RPC id (1.5, true, null, past 2^53) is, with id null (JSON-RPC 2.0, section 5).
  if ((typeof method === "string" && !("id" in raw)) || "result" in raw || "error" in raw)
    return problem({ id: undefined, code: INVALID_REQUEST, message: "discarded an invalid notification or response" });
  return problem({ id: isId(id) ? id : null, code: INVALID_REQUEST, message: INVALID_REQUEST_TEXT });
}
