import { UserError } from "../util/errors.js";

/**
 * The fetch every GitHub request goes through. Octokit follows whatever `Link: rel="next"` URL a page
 * names, to any host, with the `Authorization` header; redirects are followed by fetch itself. Here
 * each URL, first request, next page and redirect hop alike, must be on the API's own origin (scheme,
 * host and port; no user:password@), else the request is refused with an error that names the origin,
 * before anything is sent. Answers are bounded in size, and each request gets its own abort signal
 * that follows the caller's (one shared signal collects a listener per request inside fetch, and Node
 * floods stderr with MaxListenersExceededWarning).
 */

/** The largest answer read from GitHub (a page of 100 files with their patches is far below). */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
const MAX_REDIRECTS = 5;

export class OffOriginError extends UserError {}

/** Why `url` may not be requested with the API's credentials, or null when it may. */
export function offOrigin(url: string, origin: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "is not a URL";
  }
  if (u.username || u.password) return `carries credentials (${u.protocol}//…@${u.host})`;
  if (u.origin !== origin) return `is on ${u.protocol === "http:" || u.protocol === "https:" ? u.origin : u.protocol}`;
  return null;
}

function refuse(url: string, origin: string, why: string, redirect: boolean): OffOriginError {
  return new OffOriginError(
    `The GitHub API at ${origin} ${redirect ? "redirected to a URL" : "named a next page"} that ${why}: refused, nothing was sent there (the token only goes to ${origin}).`,
    "The API server (or something between) is misbehaving; check GITHUB_API_URL / the pull request URL.",
    { url: url.slice(0, 200) },
  );
}

async function readCapped(res: Response, maxBytes: number, url: string): Promise<Uint8Array> {
  const tooBig = () =>
    new UserError(
      `GitHub's answer to ${new URL(url).pathname} is larger than ${maxBytes >= 1 << 20 ? `${Math.round(maxBytes / (1 << 20))} MB` : `${maxBytes} bytes`}: refused.`,
      "Review the pull request locally (repoPath + base + head).",
    );
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw tooBig();
  }
  if (!res.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooBig();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

const NULL_BODY = new Set([204, 205, 304]);

/** `inner` restricted to `baseUrl`'s origin, redirects followed only there, answers at most `maxBytes`. */
export function originBoundFetch(baseUrl: string, inner: typeof fetch = globalThis.fetch, maxBytes = MAX_RESPONSE_BYTES): typeof fetch {
  const origin = new URL(baseUrl).origin;
  return async (input, init = {}) => {
    let url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    let method = (init.method ?? "GET").toUpperCase();
    let body = init.body;
    // A signal of its own for each request, following the caller's without a listener on it.
    const signal = init.signal ? AbortSignal.any([init.signal]) : undefined;
    for (let hop = 0; ; hop++) {
      const why = offOrigin(url, origin);
      if (why) throw refuse(url, origin, why, hop > 0);
      const res = await inner(url, { ...init, method, body, redirect: "manual", ...(signal ? { signal } : {}) });
      const location = res.status >= 300 && res.status < 400 ? res.headers.get("location") : null;
      if (location !== null) {
        await res.body?.cancel().catch(() => undefined);
        if (hop >= MAX_REDIRECTS)
          throw new UserError(`The GitHub API at ${origin} redirected more than ${MAX_REDIRECTS} times.`, "Check GITHUB_API_URL / the pull request URL.");
        try {
          url = new URL(location, url).href;
        } catch {
          throw refuse(location, origin, "is not a URL", true);
        }
        // As fetch does: 303, and 301/302 after a POST, continue as a GET without a body.
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
          if (method !== "HEAD") method = "GET";
          body = undefined;
        }
        continue;
      }
      const bytes = NULL_BODY.has(res.status) ? null : await readCapped(res, maxBytes, url);
      const out = new Response(bytes, { status: res.status, statusText: res.statusText, headers: res.headers });
      Object.defineProperty(out, "url", { value: url });
      return out;
    }
  };
}

/** GitHub serves at most 30 pages of a pull request's files (3,000 files, 100 a page); no list read here needs more. */
export const MAX_PAGES = 30;

/**
 * The items of at most `maxPages` pages of `pages` (an Octokit paginate iterator) and at most `maxItems`
 * items; `truncated` when the API offered more. No request is made past the bound: a server whose next
 * page names itself would otherwise be followed forever.
 */
export async function boundedPages<T>(
  pages: AsyncIterable<{ data: T[]; headers: { link?: string } }>,
  opts: { maxPages?: number; maxItems?: number; onPage?: (items: number) => void } = {},
): Promise<{ items: T[]; pages: number; truncated: boolean }> {
  const maxPages = opts.maxPages ?? MAX_PAGES;
  const maxItems = opts.maxItems ?? Number.POSITIVE_INFINITY;
  const it = pages[Symbol.asyncIterator]();
  const items: T[] = [];
  for (let n = 1; n <= maxPages; n++) {
    const r = await it.next();
    if (r.done) return { items, pages: n - 1, truncated: false };
    const data = Array.isArray(r.value.data) ? r.value.data : [];
    // A page may hold more than it should (a hostile server's million items): only what fits is kept.
    const room = maxItems - items.length;
    for (let i = 0; i < Math.min(room, data.length); i++) items.push(data[i]!);
    const overflow = data.length > room;
    opts.onPage?.(items.length);
    const more = /<[^<>]+>;\s*rel="next"/.test(r.value.headers.link ?? "");
    if (!more || overflow) return { items, pages: n, truncated: overflow };
    if (items.length >= maxItems || n === maxPages) return { items, pages: n, truncated: true };
  }
  return { items, pages: maxPages, truncated: false }; // maxPages < 1
}
