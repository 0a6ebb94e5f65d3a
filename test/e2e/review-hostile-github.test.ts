import type { IncomingMessage, ServerResponse } from "node:http";
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, textOf } from "../helpers/client.js";
import { fileJson, type HostileServer, json, notFound, prJson, startHostileServer } from "../helpers/hostile-github.js";

/**
 * A GitHub API that lies (test/helpers/hostile-github.ts) against the real server over stdio, with a
 * token configured for it (GITHUB_API_URL). "Another origin" is another local server: another port of
 * 127.0.0.1, 127.0.0.2, [::1], or the same port under the name localhost. Whatever the API names (next
 * pages, redirects), the token is seen by the configured origin only, no other origin gets any request,
 * and a list that never ends stops at 30 pages with a note. The controls at the end run plain Octokit
 * against the same servers to show that each attack works when the protection is off.
 */

type Any = Record<string, any>;
const TOKEN = ["ghp", "H0stileServerMustNeverSeeThis00000000"].join("_");
const HUGE_BYTES = 40 * 1024 * 1024;
const SILENT = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

let gh: HostileServer;
const others: HostileServer[] = [];
let other: HostileServer; // 127.0.0.1, another port
let other2: HostileServer; // 127.0.0.2
let other6: HostileServer | undefined; // [::1], when this machine has IPv6 loopback
let srv: TestServer;

/** Where each repository's file list points its next page (or what it does instead). */
function nextPageOf(repo: string, req: IncomingMessage): string | undefined {
  const path = `/repos/acme/${repo}/pulls/1/files?per_page=100&page=2`;
  switch (repo) {
    case "next-port":
      return `${other.url}${path}`;
    case "next-ip":
      return `${other2.url}${path}`;
    case "next-ipv6":
      return `${other6?.url ?? "http://[::1]:9"}${path}`;
    case "next-localhost":
      return `http://localhost:${gh.port}${path}`;
    case "next-https":
      return `https://127.0.0.1:${gh.port}${path}`;
    case "next-userinfo":
      return `http://user:pw@127.0.0.1:${gh.port}${path}`;
    case "next-confusable":
      return `http://127.0.0.1:${gh.port}@127.0.0.2:${other2.port}${path}`;
    case "next-scheme":
      return `httpx://127.0.0.2:${other2.port}${path}`;
    case "selfref":
      return `${gh.url}${req.url}`;
    default:
      return undefined;
  }
}

/** A 40 MB JSON array sent in chunks without a length: only reading it shows its size. */
function hugePage(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
  const item = JSON.stringify(fileJson("src/padding.ts"));
  const chunk = Buffer.from(`${item},`.repeat(Math.ceil(65536 / (item.length + 1))));
  let sent = 0;
  res.write("[");
  const pump = (): void => {
    while (sent < HUGE_BYTES) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
    res.end(`${item}]`);
  };
  res.on("error", () => undefined);
  pump();
}

function github(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? "/", gh.url);
  if (url.pathname === "/repositories/7/pulls/1") return json(res, 200, prJson("renamed", 1, 1));
  if (url.pathname === "/repositories/7/pulls/1/files") return json(res, 200, [fileJson("src/renamed.ts")]);
  const m = /^\/repos\/acme\/([\w-]+)\/pulls\/1(\/files)?$/.exec(url.pathname);
  if (!m || req.method !== "GET") return notFound(res);
  const repo = m[1]!;
  if (!m[2]) {
    // The same repository under its old name: GitHub answers 301 to its id URL, on the same origin.
    if (repo === "renamed") return json(res, 301, { message: "Moved Permanently" }, { location: `${gh.url}/repositories/7/pulls/1` });
    return json(res, 200, prJson(repo, 1, repo === "many" ? 20_000 : 1));
  }
  if (repo === "renamed") return json(res, 301, { message: "Moved Permanently" }, { location: `/repositories/7/pulls/1/files${url.search}` });
  if (repo === "redirect") return json(res, 302, { message: "Found" }, { location: `${other.url}${url.pathname}${url.search}` });
  if (repo === "huge") return hugePage(res);
  if (repo === "many") {
    return json(
      res,
      200,
      Array.from({ length: 20_000 }, (_, i) => fileJson(`src/f${i}.ts`)),
    );
  }
  const next = nextPageOf(repo, req);
  json(res, 200, [fileJson("src/a.ts")], next ? { link: `<${next}>; rel="next"` } : {});
}

const review = (repo: string) => srv.raw("trm_review_pr", { prUrl: `https://github.com/acme/${repo}/pull/1` });

/** Requests `s` received since `from` for the pull request of `repo`. */
const seenFor = (s: HostileServer, repo: string, from = 0) => s.requests.slice(from).filter((r) => r.url.includes(`/acme/${repo}/`));

beforeAll(async () => {
  const answer404 = (_: IncomingMessage, res: ServerResponse) => notFound(res);
  other = await startHostileServer(answer404);
  other2 = await startHostileServer(answer404, "127.0.0.2");
  other6 = await startHostileServer(answer404, "::1").catch(() => undefined);
  others.push(other, other2, ...(other6 ? [other6] : []));
  gh = await startHostileServer(github);
  srv = await startServer({ env: { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: gh.url } });
});

afterAll(async () => {
  await srv?.close();
  for (const s of [gh, ...others]) await s?.close();
});

describe("a hostile GitHub API cannot take the token elsewhere", () => {
  it.each([
    ["next-port", () => other.url],
    ["next-ip", () => other2.url],
    ["next-ipv6", () => other6?.url ?? "http://[::1]:9"],
    ["next-localhost", () => `http://localhost:${gh.port}`],
    ["next-https", () => `https://127.0.0.1:${gh.port}`],
    ["next-userinfo", () => "carries credentials"],
    ["next-confusable", () => `…@127.0.0.2:${other2.port}`],
    ["next-scheme", () => "httpx:"],
  ])("a next page on another origin (%s) is an error that names it; nothing is sent there", async (repo, named) => {
    const r = await review(repo);
    expect(r.isError).toBe(true);
    const text = textOf(r);
    expect(text).toContain(`The GitHub API at ${gh.url} named a next page that`);
    expect(text).toContain(named());
    expect(text).not.toContain(TOKEN);
    // The first page was read from the configured origin, with the token; the next page from nowhere.
    expect(seenFor(gh, repo).map((q) => [q.host, q.authorization, q.url.includes("/files")])).toEqual([
      [`127.0.0.1:${gh.port}`, `token ${TOKEN}`, false],
      [`127.0.0.1:${gh.port}`, `token ${TOKEN}`, true],
    ]);
    for (const s of others) expect(seenFor(s, repo)).toEqual([]);
  });

  it("a redirect to another origin is refused before anything is sent there", async () => {
    const r = await review("redirect");
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(`The GitHub API at ${gh.url} redirected to a URL that is on ${other.url}: refused`);
    expect(seenFor(other, "redirect")).toEqual([]);
  });

  it("a redirect on the same origin (a renamed repository) is followed, with the token", async () => {
    const from = gh.requests.length;
    const r = await review("renamed");
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as Any).summary.filesChanged).toBe(1);
    expect(
      gh.requests
        .slice(from)
        .filter((q) => q.url.startsWith("/repositories/7/"))
        .map((q) => q.authorization),
    ).toEqual([`token ${TOKEN}`, `token ${TOKEN}`]);
  });

  it("a next page that names itself is read 30 times, then the review ends with a note", async () => {
    const from = gh.requests.length;
    const started = Date.now();
    const r = await review("selfref");
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as Any;
    expect(seenFor(gh, "selfref", from).filter((q) => q.url.includes("/files"))).toHaveLength(30);
    expect(s.notes).toEqual(
      expect.arrayContaining([
        "GitHub's file list went on past 30 pages (GitHub itself serves at most 30): stopped there, 30 files listed; the rest were not reviewed.",
        "GitHub listed 29 file(s) more than once; each is reviewed once.",
      ]),
    );
    expect(s.summary.filesChanged).toBe(1);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(srv.stderr()).not.toMatch(/MaxListenersExceededWarning/);
  });

  it("a page larger than 32 MB is refused while it streams", async () => {
    const r = await review("huge");
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("GitHub's answer to /repos/acme/huge/pulls/1/files is larger than 32 MB: refused.");
  });

  it("a page of 20,000 files is cut at GitHub's 3,000 and the note says so", async () => {
    const r = await review("many");
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as Any;
    expect(s.summary.filesChanged).toBe(3000);
    expect(s.notes.join("\n")).toContain("GitHub's API lists at most 3,000 files of a pull request; this one changes 20,000, so 17,000 were not reviewed.");
  });

  it("after all of the above, only the configured origin ever saw the token", () => {
    const withToken = [gh, ...others].flatMap((s) => s.requests.filter((q) => q.authorization).map((q) => q.host));
    expect(withToken.length).toBeGreaterThan(0);
    expect(new Set(withToken)).toEqual(new Set([`127.0.0.1:${gh.port}`]));
    for (const s of others) expect(s.requests).toEqual([]);
  });
});

describe("controls: the same servers against plain Octokit", () => {
  const plain = () => new Octokit({ auth: TOKEN, baseUrl: gh.url, log: SILENT });

  it("octokit.paginate sends the token to the next page's origin", async () => {
    const [a, b] = [other.requests.length, other2.requests.length];
    await plain()
      .paginate("GET /repos/acme/next-port/pulls/1/files", { per_page: 100 })
      .catch(() => undefined);
    expect(seenFor(other, "next-port", a).map((q) => q.authorization)).toEqual([`token ${TOKEN}`]);
    await plain()
      .paginate("GET /repos/acme/next-ip/pulls/1/files", { per_page: 100 })
      .catch(() => undefined);
    expect(seenFor(other2, "next-ip", b).map((q) => q.authorization)).toEqual([`token ${TOKEN}`]);
  });

  it("octokit.paginate follows a self-referencing next page without end", async () => {
    const from = gh.requests.length;
    const signal = AbortSignal.timeout(1500);
    const o = new Octokit({ auth: TOKEN, baseUrl: gh.url, request: { signal }, log: SILENT });
    await o.paginate("GET /repos/acme/selfref/pulls/1/files", { per_page: 100 }).catch(() => undefined);
    expect(seenFor(gh, "selfref", from).length).toBeGreaterThan(100);
  });

  it("fetch follows a redirect to another origin (without the token: fetch drops it)", async () => {
    const from = other.requests.length;
    await plain()
      .request("GET /repos/acme/redirect/pulls/1/files")
      .catch(() => undefined);
    expect(seenFor(other, "redirect", from).map((q) => q.authorization)).toEqual([undefined]);
  });
});
