import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A GitHub API that lies, for the review's hostile-server tests: a plain HTTP server on a loopback
 * address whose answers a test writes as a handler. Every request is recorded with its Host and
 * Authorization headers, so a test can show which origin saw the token. Listens on `host` only
 * (127.0.0.1 by default; 127.0.0.2 or ::1 stand for "another origin" on this machine).
 */

export interface SeenRequest {
  method: string;
  url: string;
  host: string | undefined;
  authorization: string | undefined;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, self: HostileServer) => void;

export interface HostileServer {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export async function startHostileServer(handler: Handler, host = "127.0.0.1"): Promise<HostileServer> {
  const requests: SeenRequest[] = [];
  const self = {} as HostileServer;
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? "GET", url: req.url ?? "/", host: req.headers.host, authorization: req.headers.authorization });
    req.resume();
    req.on("end", () => handler(req, res, self));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  Object.assign(self, {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
  return self;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
}

export const notFound = (res: ServerResponse): void => json(res, 404, { message: "Not Found" });

/** A pull request's metadata as GitHub gives it (only what the review reads). */
export function prJson(repo: string, number: number, changedFiles: number, sha = { base: "a".repeat(40), head: "b".repeat(40) }): Record<string, unknown> {
  return {
    number,
    title: `Change ${repo}`,
    user: { login: "mallory" },
    state: "open",
    merged: false,
    draft: false,
    html_url: `https://github.com/acme/${repo}/pull/${number}`,
    changed_files: changedFiles,
    base: { ref: "main", sha: sha.base },
    head: { ref: "topic", sha: sha.head },
  };
}

/** One entry of a pull request's file list: an added file of one line. */
export function fileJson(name: string): Record<string, unknown> {
  return { filename: name, status: "added", additions: 1, deletions: 0, changes: 1, patch: "@@ -0,0 +1 @@\n+export const x = 1;" };
}
