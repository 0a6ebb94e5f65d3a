import { unlinkSync } from "node:fs";

/**
 * Removes a file if it is there: one unlink, where `rmSync(file, { force: true })` first lstats it (twice,
 * in node 20) and then unlinks. For the records written and removed on every command and step.
 */
export function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}
