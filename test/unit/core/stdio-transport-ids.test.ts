import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { LineTransport, requestId } from "../../../src/mcp/stdio-transport.js";

function setup(max: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const t = new LineTransport(max, stdin, stdout);
  const got: unknown[] = [];
  const sent: string[] = [];
  t.onmessage = (m) => got.push(m);
  stdout.on("data", (d: Buffer) => sent.push(...d.toString().split("\n").filter(Boolean)));
  return { t, stdin, got, sent };
}

const tick = () => new Promise((r) => setTimeout(r, 10));
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

describe("requestId on the ends of an oversized message", () => {
  it("reads no id JSON cannot parse (a bad escape, a raw control character) instead of throwing", () => {
    for (const text of ['{"jsonrpc":"2.0","id":"\\x"}', '"id":"a\tb"}', '"id":"\\u12"}']) expect(requestId(text)).toBeUndefined();
    expect(requestId('"id":"a\\"b\\u00e9\\n"}')).toBe('a"bé\n');
  });
});

describe("LineTransport's answer to an oversized message", () => {
  it("answers the request's own id, never an id nested in its params", async () => {
    const { t, stdin, sent } = setup(200);
    await t.start();
    // Id first, a nested "id" key last (in the tail), and the SDK's order (id last) with a nested id before it.
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 42, method: "tools/call", params: { name: "x", arguments: { content: "x".repeat(1000), id: 3 } } })}\n`);
    stdin.write(`${JSON.stringify({ method: "tools/call", params: { name: "x", arguments: { content: "x".repeat(1000), more: [{ id: 4, n: 1 }] } }, jsonrpc: "2.0", id: 43 })}\n`);
    await tick();
    expect(idsAndCodes(sent)).toEqual([
      [42, -32600],
      [43, -32600],
    ]);
  });

  it("answers no notification and no response, whatever ids their params hold", async () => {
    const { t, stdin, sent } = setup(200);
    await t.start();
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: { content: "x".repeat(1000), id: 4 } })}\n`);
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: { id: 5, content: "x".repeat(1000) } })}\n`);
    stdin.write(`${JSON.stringify({ result: { content: "x".repeat(1000) }, jsonrpc: "2.0", id: 6 })}\n`);
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 7, result: { content: "x".repeat(1000) } })}\n`);
    await tick();
    expect(sent).toEqual([]);
  });

  it("reads a top-level id at the start or as the last key, not inside nested objects", () => {
    expect(requestId('{"jsonrpc":"2.0","method":"n","params":{"id":5,"c":"', "start")).toBeUndefined();
    expect(requestId('\uFEFF {"jsonrpc":"2.0","params":{"a":{"b":[1]}},"id":"s","method":', "start")).toBe("s");
    expect(requestId('"x","id":3}},"jsonrpc":"2.0","id":12}\r', "end")).toBe(12);
    expect(requestId('"x","id":3}}}', "end")).toBeUndefined();
  });
});

describe("LineTransport's ends of an oversized message", () => {
  it("are its first and last bytes however it was split, not its first piece joined to the one that passed the limit", async () => {
    const { t, stdin, sent } = setup(200);
    await t.start();
    // The id only at the start, read in small pieces (a pipe hands on what the previous line left of its chunk).
    const big = JSON.stringify({ jsonrpc: "2.0", id: 42, method: "tools/call", params: { name: "x", arguments: { content: "x".repeat(1000) } } });
    for (const piece of [big.slice(0, 17), big.slice(17, 30), big.slice(30)]) stdin.write(piece);
    stdin.write("\n");
    // The id only at the end, and only the final two bytes past the limit.
    const last = (n: number) => JSON.stringify({ method: "tools/call", params: { name: "x", arguments: { content: "x".repeat(n) } }, jsonrpc: "2.0", id: 43 });
    const at202 = last(202 - last(0).length);
    for (const piece of [at202.slice(0, 100), at202.slice(100, 200), `${at202.slice(200)}\n`]) stdin.write(piece);
    await tick();
    expect(idsAndCodes(sent)).toEqual([
      [42, -32600],
      [43, -32600],
    ]);
  });
});
