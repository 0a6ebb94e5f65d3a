import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { LineTransport } from "../../../src/mcp/stdio-transport.js";

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

  it("answers a message past the limit with an error for id null (its id is not read), and reads the next one", async () => {
    const { t, stdin, got, sent } = setup(200);
    await t.start();
    const big = JSON.stringify({ method: "tools/call", params: { content: "x".repeat(5000) }, jsonrpc: "2.0", id: 42 });
    for (let i = 0; i < big.length; i += 64) stdin.write(big.slice(i, i + 64));
    stdin.write(`\n${JSON.stringify({ jsonrpc: "2.0", id: 43, method: "ping" })}\n`);
    await tick();
    expect(got).toEqual([{ jsonrpc: "2.0", id: 43, method: "ping" }]);
    expect(sent).toHaveLength(1);
    const err = JSON.parse(sent[0]!) as { id: unknown; error: { code: number; message: string } };
    expect(err.id).toBe(null);
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
});

describe("LineTransport's JSON-RPC errors", () => {
  const ping = (id: number) => `${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\n`;
  const errorOf = (line: string) => JSON.parse(line) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };

  it("answers a line that is not JSON with a parse error for id null, and keeps reading", async () => {
    const { t, stdin, got, sent } = setup(1000);
    await t.start();
    stdin.write(`not json\n{"jsonrpc":"2.0","id":1,"method":\n${ping(2)}`);
    await tick();
    expect(sent.map(errorOf)).toEqual(
      [0, 1].map(() => expect.objectContaining({ jsonrpc: "2.0", id: null, error: expect.objectContaining({ code: -32700 }) })),
    );
    expect(got).toEqual([{ jsonrpc: "2.0", id: 2, method: "ping" }]);
  });

  it("reads a line that starts with a UTF-8 byte-order mark", async () => {
    const { t, stdin, got, sent } = setup(1000);
    await t.start();
    stdin.write(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(ping(3))]));
    await tick();
    expect(got).toEqual([{ jsonrpc: "2.0", id: 3, method: "ping" }]);
    expect(sent).toEqual([]);
  });

  it("takes params: null as no params, for requests and notifications", async () => {
    const { t, stdin, got, sent } = setup(1000);
    await t.start();
    stdin.write('{"jsonrpc":"2.0","id":4,"method":"tools/list","params":null}\n{"jsonrpc":"2.0","method":"notifications/initialized","params":null}\n');
    await tick();
    expect(got).toEqual([
      { jsonrpc: "2.0", id: 4, method: "tools/list" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ]);
    expect(sent).toEqual([]);
  });

  it("answers params the method's schema rejects with invalid params (-32602) for the request's id", async () => {
    const { t, stdin, got, sent } = setup(1000);
    await t.start();
    stdin.write('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"trm_get_state","arguments":"oops"}}\n');
    stdin.write('{"jsonrpc":"2.0","id":"six","method":"tools/call","params":"oops"}\n');
    stdin.write('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"trm_get_state","arguments":{"sessionId":"x"}}}\n');
    await tick();
    const errs = sent.map(errorOf);
    expect(errs.map((e) => [e.id, e.error.code])).toEqual([
      [5, -32602],
      ["six", -32602],
    ]);
    expect(errs[0]!.error.message).toMatch(/Invalid params for tools\/call: params\.arguments: .*record/);
    // Well-formed calls go on, whatever their tool's own arguments: those are the tool's to check.
    expect(got).toEqual([{ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "trm_get_state", arguments: { sessionId: "x" } } }]);
  });

  it("answers an invalid request with -32600 (its id when readable), never a notification or a response", async () => {
    const { t, stdin, got, sent } = setup(1000);
    await t.start();
    stdin.write('{"jsonrpc":"2.0","id":8}\n[1,2]\n{"jsonrpc":"1.0","id":9,"method":"ping"}\n');
    stdin.write('{"jsonrpc":"2.0","method":"notifications/x","params":"bad"}\n{"jsonrpc":"2.0","id":10,"result":"bad"}\n');
    await tick();
    expect(sent.map(errorOf).map((e) => [e.id, e.error.code])).toEqual([
      [8, -32600],
      [null, -32600],
      [9, -32600],
    ]);
    expect(got).toEqual([]);
  });
});

const idsAndCodes = (sent: string[]) => sent.map((l) => JSON.parse(l) as { id: unknown; error: { code: number } }).map((e) => [e.id, e.error.code]);

describe("LineTransport's answer to a request whose id is not a JSON-RPC id", () => {
  it("answers -32600 with id null (JSON-RPC 2.0, section 5) instead of dropping it as a notification", async () => {
    const { t, stdin, got, sent } = setup(1000);
    await t.start();
    for (const id of ["1.5", "9007199254740993", "true", "null", '{"a":1}', "[1]"]) stdin.write(`{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`);
    stdin.write('{"jsonrpc":"2.0","method":"notifications/x","params":"bad"}\n{"jsonrpc":"2.0","id":1.5,"result":{}}\n');
    await tick();
    expect(idsAndCodes(sent)).toEqual(Array.from({ length: 6 }, () => [null, -32600]));
    expect(got).toEqual([]);
  });
});

describe("LineTransport's answer to an oversized message", () => {
  it("is one error for id null per message, whatever it holds (request, notification, response, ids in its params)", async () => {
    const { t, stdin, got, sent } = setup(200);
    await t.start();
    const content = "x".repeat(1000);
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 42, method: "tools/call", params: { name: "x", arguments: { content, id: 3 } } })}\n`);
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: { content, id: 4 } })}\n`);
    stdin.write(`${JSON.stringify({ result: { content }, jsonrpc: "2.0", id: 6 })}\n`);
    stdin.write(`{"jsonrpc":"2.0","method":"ping","params":{"pad":"${content}"},"id":"\\x"}\n`);
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 43, method: "ping" })}\n`);
    await tick();
    expect(idsAndCodes(sent)).toEqual(Array.from({ length: 4 }, () => [null, -32600]));
    expect(got).toEqual([{ jsonrpc: "2.0", id: 43, method: "ping" }]);
  });

  it("ends at its own newline however it was split, the next message in the same chunk read whole", async () => {
    const { t, stdin, got, sent } = setup(200);
    await t.start();
    // Only its final two bytes past the limit, and the next message after its newline in the same chunk.
    const last = (n: number) => JSON.stringify({ method: "tools/call", params: { name: "x", arguments: { content: "x".repeat(n) } }, jsonrpc: "2.0", id: 43 });
    const at202 = last(202 - last(0).length);
    for (const piece of [at202.slice(0, 17), at202.slice(17, 200), `${at202.slice(200)}\n{"jsonrpc":"2.0","id":44,`, '"method":"ping"}\n']) stdin.write(piece);
    await tick();
    expect(idsAndCodes(sent)).toEqual([[null, -32600]]);
    expect(got).toEqual([{ jsonrpc: "2.0", id: 44, method: "ping" }]);
  });
});
