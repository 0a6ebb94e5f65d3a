import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { LineTransport, requestId } from "../../../src/mcp/stdio-transport.js";

function setup(max: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const t = new LineTransport(max, stdin, stdout);
  const got: unknown[] = [];
  const sent: string[] = [];
  const errors: string[] = [];
  t.onmessage = (m) => got.push(m);
  t.onerror = (e) => errors.push(e.message);
  stdout.on("data", (d: Buffer) => sent.push(...d.toString().split("\n").filter(Boolean)));
  return { t, stdin, got, sent, errors };
}

const tick = () => new Promise((r) => setTimeout(r, 10));

describe("LineTransport", () => {
  it("reassembles messages split across chunks and splits several in one chunk", async () => {
    const { t, stdin, got } = setup(1000);
    await t.start();
    const a = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const b = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
    stdin.write(a.slice(0, 10));
    stdin.write(`${a.slice(10)}\n${b}\r\n`);
    await tick();
    expect(got).toEqual([JSON.parse(a), JSON.parse(b)]);
  });

  it("answers a message past the limit with an error for its id, and reads the next one", async () => {
    const { t, stdin, got, sent } = setup(200);
    await t.start();
    const big = JSON.stringify({ method: "tools/call", params: { content: "x".repeat(5000) }, jsonrpc: "2.0", id: 42 });
    for (let i = 0; i < big.length; i += 64) stdin.write(big.slice(i, i + 64));
    stdin.write(`\n${JSON.stringify({ jsonrpc: "2.0", id: 43, method: "ping" })}\n`);
    await tick();
    expect(got).toEqual([{ jsonrpc: "2.0", id: 43, method: "ping" }]);
    const err = JSON.parse(sent[0]!) as { id: number; error: { code: number; message: string } };
    expect(err.id).toBe(42);
    expect(err.error.code).toBe(-32600);
    expect(err.error.message).toMatch(/larger than code-trm's limit of 200 bytes/);
  });

  it("accepts a message of exactly the limit", async () => {
    const m = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping", params: { pad: "" } });
    const { t, stdin, got } = setup(m.length);
    await t.start();
    stdin.write(`${m}\n`);
    await tick();
    expect(got).toHaveLength(1);
  });

  it("finds ids at either end, never inside escaped content", () => {
    expect(requestId('…"x\\"id\\":9,","jsonrpc":"2.0","id":12}')).toBe(12);
    expect(requestId('{"jsonrpc":"2.0","id":"abc","method":')).toBe("abc");
    expect(requestId('…content \\"id\\": 5, more')).toBeUndefined();
  });
});
