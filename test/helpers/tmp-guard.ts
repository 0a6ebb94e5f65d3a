import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Runs the whole suite with TMPDIR set to a fresh folder (workers and the servers they start inherit
 * it), and fails the run when anything is left in it afterwards: every test removes what it makes.
 * A folder of its own, so other processes sharing /tmp neither count nor disturb the check.
 * On by default (CODE_TRM_TMP_GUARD=0 turns it off, see vitest.config.ts).
 */
export default function setup() {
  const previous = process.env.TMPDIR;
  const root = mkdtempSync(path.join(os.tmpdir(), "trm-suite-"));
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    const left = readdirSync(root);
    rmSync(root, { recursive: true, force: true, maxRetries: 5 });
    if (left.length > 0) {
      // vitest only logs an error thrown here; the exit code is what CI and `npm test` see.
      process.exitCode = 1;
      console.error(`FAIL: the tests left ${left.length} entries in the temporary folder: ${left.slice(0, 20).join(", ")}${left.length > 20 ? ", ..." : ""}`);
    }
  };
}
