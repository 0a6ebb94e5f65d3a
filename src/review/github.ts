import { Octokit } from "@octokit/rest";
import { errorMessage, UserError } from "../util/errors.js";
import { serverEnv } from "../util/secrets.js";
import { attachContents, projectInfo } from "./contents.js";
import { parseFilePatch, parseUnifiedDiff } from "./diff.js";
import { prContentReader } from "./github-contents.js";
import { boundedPages, MAX_PAGES, originBoundFetch } from "./github-fetch.js";
import { isBinaryPath } from "./lang.js";
import type { PrRef } from "./pr-url.js";
import type { FileChange, FileStatus, ProjectInfo } from "./types.js";

/**
 * Reads a pull request through the GitHub REST API (Octokit): metadata, the list of changed files
 * with their patches, and the whole diff as a fallback for files whose patch the list omits.
 *
 * The token (GITHUB_TOKEN or GH_TOKEN) is never logged, returned or put in a message: every message
 * that leaves this module goes through {@link redact}. It is also only sent to hosts the user chose:
 * github.com, a host named by GITHUB_API_URL / GH_HOST / GITHUB_SERVER_URL, or the caller's baseUrl;
 * a prUrl pointing at some other host (it comes from the model, which may have read it anywhere)
 * gets anonymous requests, so a crafted URL cannot exfiltrate the token. Every request, next pages
 * and redirects included, stays on that API's origin (github-fetch.ts), and lists are read for at most
 * 30 pages.
 */

export interface GitHubOptions {
  /** API base to use instead of the one derived from the URL (tests, proxies). Trusted. */
  baseUrl?: string;
  /** fetch implementation for Octokit (tests). */
  fetch?: typeof fetch;
  /** Environment to read GITHUB_TOKEN / GH_TOKEN / GITHUB_API_URL from (default: the server's, held credentials included). */
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** Budget for the whole fetch, all pages included. */
  timeoutMs?: number;
  /** Called after each API page, for MCP progress notifications on large pull requests. */
  onProgress?: (message: string) => void;
}

export interface PrInfo {
  title: string;
  author: string;
  base: string;
  head: string;
  state: string;
  url?: string;
  number?: number;
  draft?: boolean;
  baseSha?: string;
  headSha?: string;
}

export interface FetchedPr {
  info: PrInfo;
  files: FileChange[];
  notes: string[];
  project: ProjectInfo;
}

/** GitHub lists at most this many files of a pull request. */
export const GITHUB_FILE_LIMIT = 3000;
const DEFAULT_TIMEOUT_MS = 120_000;

export function githubToken(env: Record<string, string | undefined>): string | undefined {
  const t = env.GITHUB_TOKEN?.trim() || env.GH_TOKEN?.trim();
  return t ? t : undefined;
}

export function redact(text: string, token: string | undefined): string {
  if (!token) return text;
  return text.split(token).join("[REDACTED]");
}

function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}

export interface ApiTarget {
  baseUrl: string;
  /** Whether the token may be sent to baseUrl. */
  sendToken: boolean;
}

/** Chooses the API base and whether the token may go there (see the module comment). */
export function apiTarget(ref: PrRef, opts: Pick<GitHubOptions, "baseUrl" | "env">): ApiTarget {
  const env = opts.env ?? serverEnv();
  if (opts.baseUrl) return { baseUrl: opts.baseUrl.replace(/\/+$/, ""), sendToken: true };
  const fromEnv = env.GITHUB_API_URL?.trim();
  if (fromEnv) return { baseUrl: fromEnv.replace(/\/+$/, ""), sendToken: true };
  const trusted = new Set(["github.com", hostOf(env.GITHUB_SERVER_URL), env.GH_HOST?.trim().toLowerCase()].filter(Boolean));
  // The URL comes from the model: the token goes only to a trusted host, and never over plain http.
  return { baseUrl: ref.apiBase, sendToken: trusted.has(ref.host) && ref.apiBase.startsWith("https:") };
}

const STATUS: Record<string, FileStatus> = {
  added: "added",
  removed: "deleted",
  modified: "modified",
  changed: "modified",
  unchanged: "modified",
  renamed: "renamed",
  copied: "copied",
};

export interface ErrorContext {
  ref: PrRef;
  baseUrl: string;
  token: string | undefined;
  sentToken: boolean;
  timeoutMs: number;
  timedOut: () => boolean;
  cancelled: () => boolean;
}

function header(headers: Record<string, unknown> | undefined, name: string): string | undefined {
  const v = headers?.[name];
  return v === undefined || v === null ? undefined : String(v);
}

/** Turns an Octokit / network error into a UserError that says what to do. */
export function githubError(err: unknown, ctx: ErrorContext): Error {
  const e = err as { status?: unknown; response?: { headers?: Record<string, unknown>; data?: unknown }; cause?: unknown; name?: string };
  // Refused by the origin-bound fetch (another origin, a huge answer): that message says it all.
  if (e.cause instanceof UserError)
    return new UserError(redact(e.cause.message, ctx.token), e.cause.hint && redact(e.cause.hint, ctx.token), { api: ctx.baseUrl });
  const status = typeof e.status === "number" ? e.status : undefined;
  const pr = `${ctx.ref.owner}/${ctx.ref.repo}#${ctx.ref.number}`;
  const make = (message: string, hint: string): UserError => new UserError(redact(message, ctx.token), redact(hint, ctx.token), { status, api: ctx.baseUrl });
  const setToken = "Set GITHUB_TOKEN (or GH_TOKEN) to a token that can read the repository";
  // Octokit reports network failures and aborts as status 500 without a response.
  if (status === undefined || e.response === undefined) {
    if (ctx.timedOut())
      return make(
        `GitHub did not answer within ${Math.round(ctx.timeoutMs / 100) / 10} s (${ctx.baseUrl}).`,
        "Try again; for a very large pull request, review it locally with repoPath + base + head.",
      );
    if (ctx.cancelled()) return err instanceof Error ? err : new Error("Cancelled.");
    const cause = (e.cause ?? {}) as { code?: string; message?: string; cause?: { code?: string } };
    const code = cause.cause?.code ?? cause.code ?? cause.message ?? errorMessage(err);
    return make(
      `Could not reach the GitHub API at ${ctx.baseUrl}: ${code}.`,
      "Check the network and the URL's host; for GitHub Enterprise set GITHUB_API_URL (e.g. https://HOST/api/v3).",
    );
  }
  const headers = e.response?.headers;
  const remaining = header(headers, "x-ratelimit-remaining");
  const reset = header(headers, "x-ratelimit-reset");
  const retryAfter = header(headers, "retry-after");
  const apiMessage = (() => {
    const d = e.response?.data as { message?: unknown } | undefined;
    return typeof d?.message === "string" ? d.message : "";
  })();
  if (status === 429 || ((status === 403 || status === 429) && (remaining === "0" || /rate limit/i.test(apiMessage)))) {
    let when = "";
    if (retryAfter && /^\d+$/.test(retryAfter)) when = ` Retry in ${retryAfter} s.`;
    else if (reset && /^\d+$/.test(reset)) {
      const at = new Date(Number(reset) * 1000);
      const mins = Math.max(0, Math.ceil((at.getTime() - Date.now()) / 60_000));
      when = ` The limit resets at ${at.toISOString()} (in about ${mins} min).`;
    }
    const secondary = /secondary/i.test(apiMessage) ? "secondary " : "";
    return make(
      `GitHub API ${secondary}rate limit exceeded while reading ${pr}.${when}`,
      ctx.sentToken ? "Wait for the reset, or use a different token." : `${setToken}: authenticated requests get 5,000 per hour instead of 60.`,
    );
  }
  if (status === 404) {
    return make(
      `Pull request ${pr} not found at ${ctx.baseUrl}${ctx.sentToken ? ", or the token in use cannot see it" : ""}.`,
      ctx.sentToken
        ? "Check the URL. For a private repository the token needs read access to it (classic: repo scope; fine-grained: Pull requests read) and SSO authorization if the organization enforces SSO."
        : ctx.token
          ? `Check the URL. The token was not sent to ${ctx.ref.host} because it is not a configured host: set GH_HOST=${ctx.ref.host} or GITHUB_API_URL to its API URL to use it there.`
          : `Check the URL; if the repository is private, ${setToken.charAt(0).toLowerCase()}${setToken.slice(1)}.`,
    );
  }
  if (status === 401) {
    if (!ctx.sentToken) return make(`GitHub requires authentication to read ${pr} (401).`, `${setToken}.`);
    return make(
      "GitHub rejected the token (401 Bad credentials).",
      "Set GITHUB_TOKEN or GH_TOKEN to a valid, unexpired token, or unset both to read public repositories anonymously.",
    );
  }
  if (status === 403) {
    return make(
      `GitHub refused access to ${pr} (403${apiMessage ? `: ${apiMessage}` : ""}).`,
      ctx.sentToken ? "The token lacks permission for this repository: grant it read access (and SSO authorization if required)." : `${setToken}.`,
    );
  }
  if (status >= 500) return make(`GitHub returned ${status} for ${pr}.`, "GitHub is having trouble: try again in a minute.");
  return make(`GitHub request for ${pr} failed with ${status}${apiMessage ? `: ${apiMessage}` : ""}.`, "Check the pull request URL.");
}

const SILENT = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** An Octokit for the pull request's API, with the token only where it may go (see the module comment). */
export function octokitFor(ref: PrRef, opts: GitHubOptions = {}): { octokit: Octokit; ctx: ErrorContext; token: string | undefined; sendToken: boolean } {
  const env = opts.env ?? serverEnv();
  const token = githubToken(env);
  const target = apiTarget(ref, opts);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const sendToken = target.sendToken && token !== undefined;
  const octokit = new Octokit({
    ...(sendToken ? { auth: token } : {}),
    baseUrl: target.baseUrl,
    userAgent: "code-trm",
    // Octokit logs deprecations to the console; a stdio MCP server must not write to stdout.
    log: SILENT,
    request: { signal, fetch: originBoundFetch(target.baseUrl, opts.fetch ?? globalThis.fetch) },
  });
  const ctx: ErrorContext = {
    ref,
    baseUrl: target.baseUrl,
    token,
    sentToken: sendToken,
    timeoutMs,
    timedOut: () => timeout.aborted,
    cancelled: () => opts.signal?.aborted === true,
  };
  return { octokit, ctx, token, sendToken };
}

/** Fetches a pull request's metadata and files (with patches), mapping every failure to a UserError. */
export async function fetchPullRequest(ref: PrRef, opts: GitHubOptions = {}): Promise<FetchedPr> {
  const { octokit, ctx, token, sendToken } = octokitFor(ref, opts);
  const params = { owner: ref.owner, repo: ref.repo, pull_number: ref.number };
  const notes: string[] = [];
  if (token && !sendToken) {
    notes.push(`GITHUB_TOKEN/GH_TOKEN was not sent to ${ref.host} (not a configured host); set GH_HOST or GITHUB_API_URL to use it there.`);
  }

  let pr: Awaited<ReturnType<typeof octokit.rest.pulls.get>>["data"];
  let listed: Awaited<ReturnType<typeof octokit.rest.pulls.listFiles>>["data"];
  try {
    pr = (await octokit.rest.pulls.get(params)).data;
    opts.onProgress?.(`Read pull request ${ref.owner}/${ref.repo}#${ref.number}; listing ${pr.changed_files} changed files`);
    const pages = await boundedPages(octokit.paginate.iterator(octokit.rest.pulls.listFiles, { ...params, per_page: 100 }), {
      maxItems: GITHUB_FILE_LIMIT,
      onPage: (seen) => opts.onProgress?.(`Listed ${seen} of ${pr.changed_files} files`),
    });
    listed = pages.items;
    if (pages.truncated && pages.items.length < GITHUB_FILE_LIMIT) {
      notes.push(
        `GitHub's file list went on past ${MAX_PAGES} pages (GitHub itself serves at most ${MAX_PAGES}): stopped there, ${listed.length} files listed; the rest were not reviewed.`,
      );
    }
  } catch (err) {
    throw githubError(err, ctx);
  }
  // A misbehaving server may list a file twice (a next page that repeats itself): each is reviewed once.
  const before = listed.length;
  listed = [...new Map(listed.map((f) => [f.filename, f])).values()];
  if (listed.length < before) notes.push(`GitHub listed ${before - listed.length} file(s) more than once; each is reviewed once.`);

  // Older GitHub Enterprise versions may omit changed_files; the listing length is then all we know.
  const changed = typeof pr.changed_files === "number" ? pr.changed_files : listed.length;
  if (listed.length >= GITHUB_FILE_LIMIT || changed > listed.length) {
    const n = (x: number): string => x.toLocaleString("en-US");
    notes.push(
      `GitHub's API lists at most ${n(GITHUB_FILE_LIMIT)} files of a pull request; this one changes ${n(changed)}, so ${n(Math.max(0, changed - listed.length))} were not reviewed. Review it locally (repoPath + base + head) to cover every file.`,
    );
  }

  const files: FileChange[] = [];
  const missing: Array<{ index: number; path: string }> = [];
  for (const f of listed) {
    const status = STATUS[f.status] ?? "modified";
    const change = parseFilePatch(f.patch ?? "", f.filename, status, f.previous_filename);
    change.linesAdded = f.additions;
    change.linesRemoved = f.deletions;
    if (f.patch === undefined || f.patch === null) {
      change.binary = isBinaryPath(f.filename);
      // Text files with added lines need their patch; binaries and pure deletions or renames do not.
      if (!change.binary && f.additions > 0) missing.push({ index: files.length, path: f.filename });
    }
    files.push(change);
  }

  if (missing.length > 0) {
    let fromDiff: Map<string, FileChange> | null = null;
    try {
      const res = await octokit.rest.pulls.get({ ...params, mediaType: { format: "diff" } });
      const text = res.data as unknown as string;
      fromDiff = new Map(parseUnifiedDiff(typeof text === "string" ? text : "").map((c) => [c.path, c]));
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      const e = err as { status?: number; response?: unknown };
      const st = e.response === undefined ? undefined : e.status;
      notes.push(
        `GitHub did not return the pull request's diff (${st ?? "network error"}${st === 406 ? ": too large" : ""}); ${missing.length} file(s) without a patch were not reviewed: ${missing
          .slice(0, 5)
          .map((m) => m.path)
          .join(", ")}${missing.length > 5 ? ", …" : ""}.`,
      );
    }
    if (fromDiff) {
      const unresolved: string[] = [];
      for (const m of missing) {
        const d = fromDiff.get(m.path);
        const current = files[m.index]!;
        if (d && d.added.length > 0) {
          files[m.index] = {
            ...d,
            path: current.path,
            status: current.status,
            linesAdded: current.linesAdded,
            linesRemoved: current.linesRemoved,
            ...(current.oldPath ? { oldPath: current.oldPath } : {}),
          };
        } else unresolved.push(m.path);
      }
      if (unresolved.length > 0)
        notes.push(
          `No patch available for ${unresolved.length} file(s) (binary or too large), not reviewed: ${unresolved.slice(0, 5).join(", ")}${unresolved.length > 5 ? ", …" : ""}.`,
        );
    }
  }

  const info: PrInfo = {
    title: pr.title,
    author: pr.user?.login ?? "unknown",
    base: pr.base.ref,
    head: pr.head.ref,
    state: pr.merged ? "merged" : pr.state,
    url: pr.html_url,
    number: pr.number,
    draft: pr.draft ?? false,
    baseSha: pr.base.sha,
    headSha: pr.head.sha,
  };
  // Whole files at the head commit (by blob sha, cached), and the project's own settings.
  const read = prContentReader(octokit, ref, pr.head.sha, new Map(listed.flatMap((f) => (f.sha ? [[f.filename, f.sha] as const] : []))));
  notes.push(...(await attachContents(files, read)));
  const project = await projectInfo(read, pr.title);
  return { info, files, notes: notes.map((n) => redact(n, token)), project };
}
