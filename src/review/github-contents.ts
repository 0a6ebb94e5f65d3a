import type { Octokit } from "@octokit/rest";
import { MAX_CONTENT_BYTES, type ReadFile } from "./contents.js";
import type { PrRef } from "./pr-url.js";

/**
 * Files of a pull request's head through the GitHub API: changed files by their blob sha (the
 * listing gives it; a blob never changes, so it is cached across reviews of the same PR), other
 * files (the project's settings) with the contents API at the head commit. Sizes are bounded; a
 * file that cannot be read is reviewed from its patch alone.
 */

const CACHE_ENTRIES = 500;
const blobCache = new Map<string, string | null>();

function remember(sha: string, text: string | null): void {
  if (blobCache.size >= CACHE_ENTRIES) blobCache.delete(blobCache.keys().next().value!);
  blobCache.set(sha, text);
}

function decode(content: string | undefined, encoding: string | undefined, size: number | undefined): string | null {
  if (content === undefined || (size !== undefined && size > MAX_CONTENT_BYTES)) return null;
  const bytes = Buffer.from(content, encoding === "base64" ? "base64" : "utf8");
  return bytes.includes(0) ? null : bytes.toString("utf8");
}

/** Number of blobs fetched through the API so far (tests check the cache with it). */
export let blobRequests = 0;

export function prContentReader(octokit: Octokit, ref: PrRef, headSha: string, blobs: Map<string, string>): ReadFile {
  return async (path) => {
    const sha = blobs.get(path);
    if (sha) {
      if (blobCache.has(sha)) return blobCache.get(sha)!;
      blobRequests++;
      const { data } = await octokit.rest.git.getBlob({ owner: ref.owner, repo: ref.repo, file_sha: sha });
      const text = decode(data.content, data.encoding, data.size ?? undefined);
      remember(sha, text);
      return text;
    }
    try {
      const { data } = await octokit.rest.repos.getContent({ owner: ref.owner, repo: ref.repo, path, ref: headSha });
      if (Array.isArray(data) || data.type !== "file") return null;
      return decode((data as { content?: string }).content, (data as { encoding?: string }).encoding, data.size);
    } catch {
      return null; // absent (404) or unreadable: the project does not set it
    }
  };
}
