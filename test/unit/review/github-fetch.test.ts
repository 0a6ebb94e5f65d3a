import { describe, expect, it } from "vitest";
import { boundedPages, OffOriginError, offOrigin, originBoundFetch } from "../../../src/review/github-fetch.js";
import { UserError } from "../../../src/util/errors.js";

const API = "https://api.github.com";

describe("offOrigin: which URLs may get the API's token", () => {
  it.each([
    ["https://api.github.com/repos/o/r/pulls/1/files?page=2", null],
    ["HTTPS://API.GITHUB.COM:443/repositories/7/pulls/1/files", null],
    ["http://api.github.com/repos/o/r/pulls/1/files?page=2", "is on http://api.github.com"],
    ["https://api.github.com:8443/x", "is on https://api.github.com:8443"],
    ["https://api.github.com./x", "is on https://api.github.com."],
    ["https://github.com/x", "is on https://github.com"],
    ["https://[::1]/x", "is on https://[::1]"],
    ["https://x:y@api.github.com/x", "carries credentials (https://…@api.github.com)"],
    ["https://api.github.com@evil.example/x", "carries credentials (https://…@evil.example)"],
    ["httpx://api.github.com/x", "is on httpx:"],
    ["file:///etc/passwd", "is on file:"],
    ["/relative/path", "is not a URL"],
  ])("%s → %s", (url, why) => {
    expect(offOrigin(url, API)).toBe(why);
  });
});

/** A fetch stand-in that answers from a table and records what was asked. */
function fakeFetch(answers: Record<string, () => Response>) {
  const seen: Array<{ url: string; method: string; auth: string | null; body: unknown }> = [];
  const f = (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = String(input);
    seen.push({ url, method: init.method ?? "GET", auth: new Headers(init.headers).get("authorization"), body: init.body });
    expect(init.redirect).toBe("manual");
    const a = answers[url];
    return a ? a() : new Response("{}", { status: 404 });
  }) as typeof fetch;
  return { f, seen };
}

const redirect = (status: number, location: string) => () => new Response(null, { status, headers: { location } });

describe("originBoundFetch", () => {
  it("follows redirects on the API's origin and refuses one that leaves it, before sending", async () => {
    const { f, seen } = fakeFetch({
      [`${API}/a`]: redirect(301, "/b"),
      [`${API}/b`]: redirect(302, "https://evil.example/c"),
    });
    const err = await originBoundFetch(API, f)(`${API}/a`, { headers: { authorization: "token T" } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OffOriginError);
    expect((err as Error).message).toBe(
      "The GitHub API at https://api.github.com redirected to a URL that is on https://evil.example: refused, nothing was sent there (the token only goes to https://api.github.com).",
    );
    expect(seen.map((s) => s.url)).toEqual([`${API}/a`, `${API}/b`]);
  });

  it("turns a POST into a GET without body on 303, keeps it on 307, and stops after 5 redirects", async () => {
    const { f, seen } = fakeFetch({
      [`${API}/p`]: redirect(307, "/q"),
      [`${API}/q`]: redirect(303, "/r"),
      [`${API}/r`]: () => new Response('{"ok":true}', { status: 200, headers: { "content-type": "application/json" } }),
      [`${API}/loop`]: redirect(302, "/loop"),
    });
    const res = await originBoundFetch(API, f)(`${API}/p`, { method: "POST", body: "{}" });
    expect(await res.json()).toEqual({ ok: true });
    expect(res.url).toBe(`${API}/r`);
    expect(seen.map((s) => [s.method, s.body])).toEqual([
      ["POST", "{}"],
      ["POST", "{}"],
      ["GET", undefined],
    ]);
    const err = await originBoundFetch(API, f)(`${API}/loop`).catch((e: unknown) => e);
    expect((err as Error).message).toBe("The GitHub API at https://api.github.com redirected more than 5 times.");
  });

  it("refuses an answer larger than the bound, declared or streamed", async () => {
    const big = "x".repeat(2000);
    const { f } = fakeFetch({
      [`${API}/declared`]: () => new Response(big, { headers: { "content-length": "2000" } }),
      [`${API}/streamed`]: () => new Response(new Blob([big]).stream()),
      [`${API}/small`]: () => new Response("small"),
    });
    const bounded = originBoundFetch(API, f, 1000);
    for (const p of ["declared", "streamed"]) {
      const err = await bounded(`${API}/${p}`).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UserError);
      expect((err as Error).message).toBe(`GitHub's answer to /${p} is larger than 1000 bytes: refused.`);
    }
    expect(await (await bounded(`${API}/small`)).text()).toBe("small");
  });

  it("gives each request its own signal that follows the caller's, adding no listener to it", async () => {
    const outer = new AbortController();
    let added = 0;
    const add = outer.signal.addEventListener.bind(outer.signal);
    outer.signal.addEventListener = ((...a: Parameters<typeof add>) => {
      added++;
      return add(...a);
    }) as typeof add;
    const signals: AbortSignal[] = [];
    const f = (async (_: unknown, init: RequestInit = {}) => {
      signals.push(init.signal!);
      return new Response("[]");
    }) as typeof fetch;
    const bounded = originBoundFetch(API, f);
    await Promise.all(Array.from({ length: 50 }, () => bounded(`${API}/x`, { signal: outer.signal })));
    expect(added).toBe(0);
    expect(new Set(signals).size).toBe(50);
    outer.abort(new Error("stop"));
    expect(signals.every((s) => s.aborted)).toBe(true);
  });
});

/** An Octokit-like paginate iterator: page n has `per` items and a next link while `more(n)`. */
function pages(per: number, more: (n: number) => boolean) {
  let requested = 0;
  const it = {
    async *[Symbol.asyncIterator]() {
      for (let n = 1; ; n++) {
        requested++;
        yield {
          data: Array.from({ length: per }, (_, i) => `${n}.${i}`),
          headers: more(n) ? { link: `<https://api.github.com/x?page=${n + 1}>; rel="next"` } : {},
        };
        if (!more(n)) return;
      }
    },
  };
  return { it, requested: () => requested };
}

describe("boundedPages", () => {
  it("reads every page of a list that ends", async () => {
    const p = pages(2, (n) => n < 3);
    expect(await boundedPages(p.it)).toEqual({ items: ["1.0", "1.1", "2.0", "2.1", "3.0", "3.1"], pages: 3, truncated: false });
  });

  it("stops an endless list at 30 pages without asking for the 31st", async () => {
    const p = pages(1, () => true);
    const r = await boundedPages(p.it);
    expect([r.items.length, r.pages, r.truncated, p.requested()]).toEqual([30, 30, true, 30]);
  });

  it("keeps at most maxItems, from a page far larger than asked for", async () => {
    const one = pages(1_000_000, () => false);
    const r = await boundedPages(one.it, { maxItems: 3000 });
    expect([r.items.length, r.truncated]).toEqual([3000, true]);
    const exact = pages(100, (n) => n < 30);
    const e = await boundedPages(exact.it, { maxItems: 3000 });
    expect([e.items.length, e.truncated]).toEqual([3000, false]);
  });
});
