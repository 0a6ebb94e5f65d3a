import { readFileSync } from "node:fs";
import path from "node:path";
import { UserError } from "../util/errors.js";
import { secretValues } from "../util/secrets.js";

/**
 * A candidate file holding a credential of the server's (e.g. copied from a file a passEnv command
 * wrote) is refused rather than committed: a commit cannot be redacted after the fact without
 * changing the code, and once on the session branch it is one `git push` from public. Refusing says
 * which file, so the model can remove the value; the candidate is rolled back by the caller.
 */
export async function assertNoSecretsIn(worktree: string, paths: string[]): Promise<void> {
  const secrets = secretValues();
  if (secrets.length === 0) return;
  for (const p of paths) {
    // Read in place: the step's own files, just written (an asynchronous read is four thread-pool round trips).
    let text: string | null = null;
    try {
      text = readFileSync(path.join(worktree, p), "utf8");
    } catch {
      // Deleted by the candidate: nothing to scan.
    }
    if (text !== null && secrets.some((s) => text.includes(s))) {
      throw new UserError(
        `The candidate's file ${p} contains the value of a credential in the server's environment; code-trm does not commit credentials.`,
        "Remove the value from the file (read it from the environment at run time instead), then submit again. Nothing was recorded.",
      );
    }
  }
}
