import { UserError } from "../util/errors.js";

/**
 * Pull-request references: `https://github.com/o/r/pull/5` (with or without a trailing `/files`,
 * query or fragment), GitHub Enterprise (`https://ghe.example.com/o/r/pull/5`), API URLs
 * (`https://api.github.com/repos/o/r/pulls/5`, `https://ghe.example.com/api/v3/repos/o/r/pulls/5`)
 * and the `o/r#5` shorthand for github.com.
 */
export interface PrRef {
  owner: string;
  repo: string;
  number: number;
  /** Host of the web UI, e.g. github.com or ghe.example.com. */
  host: string;
  /** REST API base derived from the URL. */
  apiBase: string;
  /** Canonical web URL of the pull request. */
  webUrl: string;
}

const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;

const HINT = "Pass the pull request's web URL, e.g. https://github.com/OWNER/REPO/pull/123 (or OWNER/REPO#123).";

function build(protocol: string, host: string, owner: string, repo: string, num: string, port = ""): PrRef {
  if (!OWNER.test(owner) || !REPO.test(repo) || repo === "." || repo === "..") {
    throw new UserError(`Not a valid GitHub owner/repository: ${owner}/${repo}.`, HINT);
  }
  const number = Number(num);
  if (!Number.isSafeInteger(number) || number <= 0) throw new UserError(`Not a valid pull request number: ${num}.`, HINT);
  const h = host.toLowerCase();
  const hostPort = port ? `${h}:${port}` : h;
  const isDotCom = h === "github.com" || h === "www.github.com" || h === "api.github.com";
  const webHost = isDotCom ? "github.com" : hostPort;
  return {
    owner,
    repo: repo.replace(/\.git$/, ""),
    number,
    host: webHost,
    apiBase: isDotCom ? "https://api.github.com" : `${protocol}//${hostPort}/api/v3`,
    webUrl: `${isDotCom ? "https:" : protocol}//${webHost}/${owner}/${repo.replace(/\.git$/, "")}/pull/${number}`,
  };
}

export function parsePrUrl(input: string): PrRef {
  const raw = input.trim();
  const short = /^([^/\s#]+)\/([^/\s#]+)#(\d+)$/.exec(raw);
  if (short) return build("https:", "github.com", short[1]!, short[2]!, short[3]!);
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
  } catch {
    throw new UserError(`Not a URL: ${JSON.stringify(raw.slice(0, 200))}.`, HINT);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new UserError(`Unsupported URL scheme ${url.protocol} in prUrl.`, HINT);
  if (url.username || url.password) {
    // Credentials in the URL would be sent along and could end up in messages; refuse them.
    throw new UserError("prUrl must not contain credentials.", "Remove user:password@ from the URL and set GITHUB_TOKEN instead.");
  }
  const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  // Web URL: /owner/repo/pull/N[/...]
  if (parts.length >= 4 && (parts[2] === "pull" || parts[2] === "pulls")) {
    return build(url.protocol, url.hostname, parts[0]!, parts[1]!, parts[3]!, url.port);
  }
  // API URL: [/api/v3]/repos/owner/repo/pulls/N
  const api = parts[0] === "api" && parts[1] === "v3" ? parts.slice(2) : parts;
  if (api.length >= 5 && api[0] === "repos" && api[3] === "pulls") {
    return build(url.protocol, url.hostname, api[1]!, api[2]!, api[4]!, url.port);
  }
  throw new UserError(`Not a pull request URL: ${url.origin}${url.pathname}.`, HINT);
}
