import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { git } from "../git/cli.js";
import { normalizeRelPath } from "../util/paths.js";

/**
 * A diff between two commits as bytes. git writes it to a file (`--output`) instead of stdout because
 * stdout passes through a UTF-8 string, which would corrupt files in other encodings; a patch that is
 * applied or saved must keep every byte.
 */
export async function diffBytes(cwd: string, from: string, to: string, opts: { paths?: string[]; binary?: boolean; color?: boolean } = {}): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "code-trm-"));
  try {
    const file = path.join(dir, "diff.patch");
    const spec = (opts.paths ?? []).map((p) => normalizeRelPath(p));
    await git(
      cwd,
      [
        "diff",
        `--output=${file}`,
        opts.color ? "--color=always" : "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        // A patch others (git apply, a reviewer) read must not follow the user's diff settings:
        // diff.noprefix would make git apply write to the wrong paths, diff.context=0 would not apply.
        "--src-prefix=a/",
        "--dst-prefix=b/",
        "-U3",
        "--no-relative",
        ...(opts.binary ? ["--binary", "--full-index", "--no-renames"] : []),
        from,
        to,
        "--",
        ...spec,
      ],
      { env: { GIT_LITERAL_PATHSPECS: "1" } },
    );
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs `fn` with the path of a temporary file holding `data` (outside the repository), removed afterwards. */
export async function withTempFile<T>(data: Uint8Array, fn: (file: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "code-trm-"));
  try {
    const file = path.join(dir, "session.patch");
    await writeFile(file, data);
    return await fn(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
