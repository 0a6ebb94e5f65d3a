import { readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startServer, type TestServer } from "./client.js";

/**
 * A local stand-in for the GitHub REST API, serving recorded responses from `fixtures/github/`.
 * It listens on 127.0.0.1 only, so tests never touch the network.
 *
 * A recording is a JSON file:
 *   { "request":  { "method", "path", "query"?: {page: "2"}, "accept": "json" | "diff" },
 *     "response": { "status", "headers", "body" | "bodyFile" },
 *     "generate"?: { "total", "perPage", "template" } }
 * `{{base}}` in headers (Link) becomes the server's URL (with `/api/v3` when the request used it,
 * as GitHub Enterprise does). `generate` produces paginated file lists from a template (`{{n}}` is
 * the 1-based index), for the 3,000-file case. Unknown routes get GitHub's 404 body. Request bodies
 * are kept in `requests` so tests can check exactly what was posted.
 */

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  /** The request body as sent (JSON text for POST / PUT / PATCH), "" when none. */
  body: string;
}

export interface GitHubServer {
  /** Base URL, e.g. http://127.0.0.1:41234 (use `${url}/api/v3` for the GitHub Enterprise layout). */
  url: string;
  host: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

interface Recording {
  file: string;
  request: { method: string; path: string; query?: Record<string, string>; accept?: "json" | "diff" };
  response: { status: number; headers?: Record<string, string>; body?: unknown; bodyFile?: string };
  generate?: { total: number; perPage: number; template: Record<string, unknown> };
}

const FIXTURES = path.resolve(import.meta.dirname, "../../fixtures/github");

function loadRecordings(dir: string): Recording[] {
  const out: Recording[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...loadRecordings(p));
    else if (name.endsWith(".json")) out.push({ ...(JSON.parse(readFileSync(p, "utf8")) as Omit<Recording, "file">), file: p });
  }
  return out;
}

function fill<T>(value: T, n: number): T {
  return JSON.parse(JSON.stringify(value).replaceAll("{{n}}", String(n))) as T;
}

export async function startGitHubServer(fixturesDir = FIXTURES): Promise<GitHubServer> {
  const recordings = loadRecordings(fixturesDir);
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => respond(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  const respond = (req: IncomingMessage, res: import("node:http").ServerResponse, requestBody: string): void => {
    requests.push({ method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, body: requestBody });
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const enterprise = url.pathname.startsWith("/api/v3/");
    const apiPath = enterprise ? url.pathname.slice("/api/v3".length) : url.pathname;
    const base = `http://${req.headers.host}${enterprise ? "/api/v3" : ""}`;
    const accept = /diff/.test(String(req.headers.accept ?? "")) ? "diff" : "json";
    const page = url.searchParams.get("page") ?? "1";
    const rec = recordings.find(
      (r) =>
        r.request.method === req.method &&
        r.request.path === apiPath &&
        (r.request.accept ?? "json") === accept &&
        Object.entries(r.request.query ?? {}).every(([k, v]) => (k === "page" ? page : url.searchParams.get(k)) === v),
    );
    if (!rec) {
      res.writeHead(404, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify({ message: "Not Found", documentation_url: "https://docs.github.com/rest", status: "404" }));
      return;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(rec.response.headers ?? {})) headers[k] = v.replaceAll("{{base}}", base);
    let body: string;
    if (rec.generate) {
      const { total, perPage, template } = rec.generate;
      const per = Math.min(perPage, Number(url.searchParams.get("per_page") ?? perPage));
      const p = Number(page);
      const last = Math.ceil(total / per);
      const items = [];
      for (let n = (p - 1) * per + 1; n <= Math.min(total, p * per); n++) items.push(fill(template, n));
      const link = (q: number, rel: string): string => `<${base}${apiPath}?per_page=${per}&page=${q}>; rel="${rel}"`;
      const links = [];
      if (p < last) links.push(link(p + 1, "next"), link(last, "last"));
      if (p > 1) links.push(link(p - 1, "prev"), link(1, "first"));
      if (links.length) headers.link = links.join(", ");
      body = JSON.stringify(items);
    } else if (rec.response.bodyFile) {
      body = readFileSync(path.join(path.dirname(rec.file), rec.response.bodyFile), "utf8");
    } else {
      body = JSON.stringify(rec.response.body ?? null);
    }
    res.writeHead(rec.response.status, headers);
    res.end(rec.response.status === 204 ? undefined : body);
  };
  // Node closes an idle keep-alive socket after 5 s; a review that parses for longer than that on a
  // loaded machine hands the next test a pooled socket whose close it has not seen yet (ECONNRESET).
  // api.github.com keeps connections open far longer.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // fetch keeps connections alive; without this, close() waits for them to time out.
        server.closeAllConnections();
      }),
  };
}

/**
 * For one test file: a recorded GitHub and a code-trm server whose GITHUB_API_URL points at it (plus
 * `env`), both closed after the file. Read `gh` and `srv` inside tests (they exist once the file started).
 */
export function serveWithRecordedGitHub(env: Record<string, string> = {}): { readonly gh: GitHubServer; readonly srv: TestServer } {
  const both = {} as { gh: GitHubServer; srv: TestServer };
  beforeAll(async () => {
    both.gh = await startGitHubServer();
    both.srv = await startServer({ env: { ...env, GITHUB_API_URL: both.gh.url } });
  });
  afterAll(async () => {
    await both.srv?.close();
    await both.gh?.close();
  });
  return both;
}
