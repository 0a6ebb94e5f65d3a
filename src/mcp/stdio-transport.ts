/**
 * MCP over stdio, newline-delimited JSON-RPC, as the SDK's StdioServerTransport speaks it, with two
 * differences that a client sending large candidates needs:
 * - a message of up to LIMITS.maxRequestBytes is read in linear time (the SDK concatenates its whole
 *   buffer on every 64 KiB chunk, quadratic in the message size, and stops at 10 MiB of its own);
 * - a larger message is skipped up to its newline and answered with a JSON-RPC error naming the limit,
 *   where the SDK's transport closes, which ends the server without a word.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { LIMITS } from "../util/limits.js";

/** Bytes kept from each end of an oversized message, to find its id (the SDK's client puts it last). */
const EDGE = 512;

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
    const head = Buffer.concat([...this.chunks.slice(0, 1), piece.subarray(0, EDGE)]).subarray(0, EDGE);
    this.skipping = { head, tail: piece.subarray(-EDGE), size: this.size + piece.length };
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
    const line = Buffer.concat(this.chunks, this.size).toString("utf8").replace(/\r$/, "");
    this.chunks = [];
    this.size = 0;
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    this.onmessage?.(message);
  }

  /** Answers an oversized request with an error (a notification has no id and gets none). */
  private async refuse(head: Buffer, tail: Buffer, size: number): Promise<void> {
    const id = requestId(tail.toString("utf8")) ?? requestId(head.toString("utf8"));
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
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once("drain", resolve);
    });
  }
}

/** The request id of a JSON-RPC message seen only in part: `"id":7` or `"id":"abc"` at its start or end. */
export function requestId(text: string): RequestId | undefined {
  const m = /"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")\s*[,}]/.exec(text);
  if (!m) return undefined;
  return m[1]!.startsWith('"') ? (JSON.parse(m[1]!) as string) : Number(m[1]);
}
