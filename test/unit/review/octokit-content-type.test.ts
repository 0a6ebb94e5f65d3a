import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import path from "node:path";
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * @octokit/request asks for content-type ^3, which declares node >=22 and makes `npm ci` warn on Node
 * 20; package.json overrides it with 2.1.0 (node >=18). Octokit reads every response's Content-Type
 * with it: these are the shapes its request path relies on.
 */
let server: Server;
let baseUrl: string;
const bodies: Record<string, [string, string]> = {
  "/json": ["application/json; charset=utf-8", JSON.stringify({ ok: true })],
  "/scim": ["application/scim+json", JSON.stringify({ scim: 1 })],
  "/diff": ["application/vnd.github.v3.diff; charset=utf-8", "diff --git a/x b/x\n"],
  "/text": ["text/plain", "plain text"],
  "/bin": ["application/octet-stream; charset=utf-8", "\u0001\u0002"],
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const [type, body] = bodies[req.url ?? ""] ?? ["application/json", "{}"];
    res.writeHead(200, { "content-type": type });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("content-type as pinned for @octokit/request", () => {
  it("is a version that supports Node 20", () => {
    const fromRequest = createRequire(createRequire(import.meta.url).resolve("@octokit/request"));
    // The package's exports hide package.json: read it next to the module Octokit resolves.
    const main = fromRequest.resolve("content-type");
    const pkg = JSON.parse(readFileSync(path.join(main.slice(0, main.lastIndexOf(`${path.sep}content-type${path.sep}`)), "content-type", "package.json"), "utf8")) as { version: string; engines: { node: string } };
    expect(pkg.version).toBe("2.1.0");
    expect(pkg.engines.node).toBe(">=18");
  });

  it("parses every response type Octokit's request path distinguishes", async () => {
    const octokit = new Octokit({ baseUrl, request: { retries: 0 } });
    expect((await octokit.request("GET /json")).data).toEqual({ ok: true });
    expect((await octokit.request("GET /scim")).data).toEqual({ scim: 1 });
    expect((await octokit.request("GET /diff")).data).toBe("diff --git a/x b/x\n");
    expect((await octokit.request("GET /text")).data).toBe("plain text");
    const bin = (await octokit.request("GET /bin")).data as ArrayBuffer;
    expect(bin).toBeInstanceOf(ArrayBuffer);
    expect([...new Uint8Array(bin)]).toEqual([1, 2]);
  });
});
