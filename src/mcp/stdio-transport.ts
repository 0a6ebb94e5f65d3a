/**
 * MCP over stdio, newline-delimited JSON-RPC, as the SDK's StdioServerTransport speaks it, with two
 * differences that a client sending large candidates needs:
 * - a message of up to LIMITS.maxRequestBytes is read in linear time (the SDK concatenates its whole
 *   buffer on every 64 KiB chunk, quadratic in the message size, and stops at 10 MiB of its own);
 * - a larger message is skipped up to its newline and answered with a JSON-RPC error naming the limit,
 *   where the SDK's transport closes, which ends the server without a word;
 * - a line that is not JSON, not a JSON-RPC message, or a request whose params the SDK would reject gets
 *   the JSON-RPC error for it (-32700, -32600, -32602), where the SDK stays silent or answers -32603, and
 *   a leading byte-order mark or `params: null` (clients that serialise an absent value) is tolerated.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ClientRequestSchema, JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { profileBegin, profileEnd, profileMark } from "../util/profile.js";
import { LIMITS } from "../util/limits.js";

/** Bytes kept from each end of an oversized message, to find its id (the SDK's client puts it last). */
const EDGE = 512;

/** The SDK's schema of each request a client may send, by method: their params are checked here. */
const REQUESTS = new Map<string, (typeof ClientRequestSchema.options)[number]>(ClientRequestSchema.options.map((o) => [o.shape.method.value, o]));

/** JSON-RPC error codes (JSON-RPC 2.0, section 5.1). */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;
const INVALID_REQUEST_TEXT = 'Invalid Request: expected a JSON-RPC 2.0 object with "jsonrpc": "2.0", a "method" and, for a request, an "id" (batches are not supported).';

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while skipping an oversized message: its first bytes, its last bytes and its length. */
  private skipping: { head: Buffer; tail: Buffer; size: number } | null = null;

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
    if (this.skipping) {
      this.skipping.tail = Buffer.concat([this.skipping.tail, piece]).subarray(-EDGE);
      this.skipping.size += piece.length;
      return;
    }
    if (this.size + piece.length <= this.maxBytes) {
      this.chunks.push(piece);
      this.size += piece.length;
      return;
    }
    // The message's own first and last bytes, whatever pieces they came in (a first piece may be a few bytes).
    const head = edge([...this.chunks, piece], "start");
    const tail = edge([...this.chunks, piece], "end");
    this.skipping = { head, tail, size: this.size + piece.length };
    this.chunks = [];
    this.size = 0;
  }

  private endOfLine(): void {
    if (this.skipping) {
      const { head, tail, size } = this.skipping;
      this.skipping = null;
      void this.refuse(head, tail, size);
      return;
    }
    profileBegin("request");
    const line = Buffer.concat(this.chunks, this.size).toString("utf8").replace(/^\uFEFF/, "").replace(/\r$/, "");
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

  /** Answers an oversized request with an error (a notification has no id and gets none). */
  private async refuse(head: Buffer, tail: Buffer, size: number): Promise<void> {
    // A response (a top-level "result" or "error" in its first bytes) is never answered, however large.
    const start = topLevel(head.toString("utf8"));
    const id = start.keys.includes("result") || start.keys.includes("error") ? undefined : (requestId(tail.toString("utf8"), "end") ?? start.id);
    this.onerror?.(new Error(`discarded a message of ${size} bytes (limit ${this.maxBytes})`));
    if (id === undefined) return;
    await this.send({
      jsonrpc: "2.0",
      id,
      error: {
        code: -32600,
        message: `Request of ${size} bytes is larger than code-trm's limit of ${this.maxBytes} bytes per message; it was not read. Send fewer or smaller files per call (a candidate may hold ${LIMITS.maxCandidateBytes} bytes, ${LIMITS.maxFileBytes} per file).`,
      },
    }).catch(() => undefined);
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

/** The first or last EDGE bytes of a message's pieces (copied: the pieces are let go). */
function edge(pieces: Buffer[], from: "start" | "end"): Buffer {
  const ordered = from === "start" ? pieces : [...pieces].reverse();
  const taken: Buffer[] = [];
  for (let i = 0, size = 0; i < ordered.length && size < EDGE; i++) {
    const p = ordered[i]!;
    taken.push(from === "start" ? p.subarray(0, EDGE - size) : p.subarray(-(EDGE - size)));
    size += taken[taken.length - 1]!.length;
  }
  return Buffer.concat(from === "start" ? taken : taken.reverse());
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
    if (!valid && !JSONRPCMessageSchema.safeParse({ ...raw, params: undefined }).success) return problem({ id, code: INVALID_REQUEST, message: INVALID_REQUEST_TEXT });
    const checked = REQUESTS.get(method)?.safeParse({ method, params: raw.params });
    if (valid && (!checked || checked.success)) return { message: parsed.data };
    const issues = checked && !checked.success ? checked.error.issues.slice(0, 3).map((i) => `${i.path.map(String).join(".") || "params"}: ${i.message}`) : ["params must be an object"];
    return problem({ id, code: INVALID_PARAMS, message: `Invalid params for ${method}: ${issues.join("; ")}` });
  }
  if (valid) return { message: parsed.data };
  // A notification (a method, no id) or a response (result or error) is never answered; a request whose
  // id is not a JSON-RPC id (1.5, true, null, past 2^53) is, with id null (JSON-RPC 2.0, section 5).
  if ((typeof method === "string" && !("id" in raw)) || "result" in raw || "error" in raw) return problem({ id: undefined, code: INVALID_REQUEST, message: "discarded an invalid notification or response" });
  return problem({ id: isId(id) ? id : null, code: INVALID_REQUEST, message: INVALID_REQUEST_TEXT });
}

/**
 * An id's value after its key: a number of up to 15 digits, or a string of up to 200 characters that
 * JSON.parse reads (a bad escape or a raw control character would throw and end the server).
 */
const ID_VALUE = String.raw`\s*:\s*(-?\d{1,15}|"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})){0,200}")\s*`;
const LAST_ID = new RegExp(`"id"${ID_VALUE}}\\s*$`);
const ID_AFTER_KEY = new RegExp(`^${ID_VALUE}[,}]`);
const idOf = (text: string): RequestId => (text.startsWith('"') ? (JSON.parse(text) as string) : Number(text));

/**
 * The request id of a JSON-RPC message seen only in part, never an "id" inside its params: at "end", the
 * message's last key (`"id":7}` ends it, as the SDK's client writes it); at "start", a top-level key among
 * its first bytes; by default either.
 */
export function requestId(text: string, at?: "start" | "end"): RequestId | undefined {
  const last = at === "start" ? null : LAST_ID.exec(text);
  if (last) return idOf(last[1]!);
  return at === "end" ? undefined : topLevel(text).id;
}

/** The top-level keys of the start of a JSON object (and its id, when among them), as far as the text goes. */
function topLevel(text: string): { keys: string[]; id?: RequestId } {
  const keys: string[] = [];
  let id: RequestId | undefined;
  const first = text.search(/\S/);
  if (first < 0 || text[first] !== "{") return { keys };
  let depth = 0;
  for (let i = first; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      if (end >= text.length) break;
      const after = text.slice(end + 1);
      if (depth === 1 && /^\s*:/.test(after)) {
        const key = text.slice(i + 1, end);
        keys.push(key);
        const m = key === "id" && id === undefined ? ID_AFTER_KEY.exec(after) : null;
        if (m) id = idOf(m[1]!);
      }
      i = end;
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
  }
  return { keys, id };
}
