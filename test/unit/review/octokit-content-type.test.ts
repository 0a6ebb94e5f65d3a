import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * @octokit/request 10.0.16 asks for content-type ^3, which declares node >=22 and makes npm warn on Node
 * 20. An `overrides` entry silenced `npm ci` only: npm ignores overrides when code-trm itself is
 * installed (`npm install -g`, `npx`), so @octokit/core, /graphql and /request are pinned to the last
 * releases that take content-type ^2 (node >=18). Octokit reads every response's Content-Type with it:
 * these are the shapes its request path relies on.
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

/**
 * Enough of semver for `engines.node` ranges: `||` of space-separated comparators (>=, >, <=, <, ^, =);
 * a bare partial version is an X-range, as npm reads it (`20` is any 20.x.y: tap-parser's `20 || >=22`).
 */
function satisfies(version: string, range: string): boolean {
  const given = (t: string) =>
    t
      .replace(/^v/, "")
      .split(".")
      .filter((p) => p !== "" && p !== "x" && p !== "*");
  const parse = (t: string) => [...given(t), "0", "0"].slice(0, 3).map(Number);
  const cmp = (a: number[], b: number[]) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;
  const v = parse(version);
  return range.split("||").some((alt) =>
    alt
      .trim()
      .replace(/([<>=^]+)\s+/g, "$1")
      .split(/\s+/)
      .every((c) => {
        const [, op = "=", num = ""] = /^([<>=^]*)v?(.+)$/.exec(c) ?? [];
        const d = cmp(v, parse(num));
        if (op === ">=") return d >= 0;
        if (op === ">") return d > 0;
        if (op === "<=") return d <= 0;
        if (op === "<") return d < 0;
        if (op === "^") return d >= 0 && v[0] === parse(num)[0];
        // `=` or none: the parts given must match, the missing ones are free.
        return given(num).every((p, k) => v[k] === Number(p));
      }),
  );
}

describe("the packages code-trm installs on Node 20", () => {
  const lock = JSON.parse(readFileSync(path.join(import.meta.dirname, "..", "..", "..", "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean; engines?: { node?: string } }>;
  };
  const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, "..", "..", "..", "package.json"), "utf8")) as {
    engines: { node: string };
    overrides?: unknown;
  };
  const floor = pkg.engines.node.replace(/^>=/, "");

  it("come from the dependencies, not from overrides (npm ignores overrides when code-trm is installed as a package)", () => {
    expect(pkg.overrides).toBeUndefined();
  });

  it("reads engine ranges as npm does", () => {
    expect(satisfies("20.5.0", ">=22")).toBe(false);
    expect(satisfies("20.5.0", ">= 18")).toBe(true);
    expect(satisfies("20.5.0", "^18.19.0 || >=20.5.0")).toBe(true);
    expect(satisfies("20.5.0", "^20.19.0 || >=22.12.0")).toBe(false);
    expect(satisfies("20.20.2", "^20.19.0 || >=22.12.0")).toBe(true);
    expect(satisfies("20.5", ">=20.5.0")).toBe(true);
    expect(satisfies("20.5.0", "20 || >=22")).toBe(true);
    expect(satisfies("21.1.0", "20 || >=22")).toBe(false);
    expect(satisfies("22.0.0", "20 || >=22")).toBe(true);
    expect(satisfies("20.5.0", "20.4")).toBe(false);
    expect(satisfies("20.5.0", "=20.5.0")).toBe(true);
  });

  it("all accept the Node that runs them, and the runtime ones the lowest Node package.json promises (no EBADENGINE)", () => {
    const refused = Object.entries(lock.packages)
      .filter(([name, p]) => name && p.engines?.node && !(satisfies(process.version, p.engines.node) && (p.dev || satisfies(floor, p.engines.node))))
      .map(([name, p]) => `${name} (node ${p.engines!.node})`);
    expect(refused).toEqual([]);
  });
});

describe("content-type as pinned for @octokit/request", () => {
  it("is a version that supports Node 20", () => {
    const fromRequest = createRequire(createRequire(import.meta.url).resolve("@octokit/request"));
    // The package's exports hide package.json: read it next to the module Octokit resolves.
    const main = fromRequest.resolve("content-type");
    const pkg = JSON.parse(
      readFileSync(path.join(main.slice(0, main.lastIndexOf(`${path.sep}content-type${path.sep}`)), "content-type", "package.json"), "utf8"),
    ) as { version: string; engines: { node: string } };
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
