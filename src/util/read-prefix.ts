import { closeSync, constants, lstatSync, openSync, readSync, statSync } from "node:fs";

/**
 * The first `max` bytes of a regular file as text, else "" (missing, a folder, a FIFO, a device). Files a
 * repository or an environment holds may be anybody's: a FIFO named `a.pth` hung every evaluation, and
 * a committed link to /dev/zero is read forever by readFileSync. `links: "refuse"` also refuses a file
 * that is a symbolic link at all. Opened non-blocking, so a file swapped for a FIFO meanwhile cannot hang.
 */
export function readPrefix(file: string, max: number, links: "follow" | "refuse" = "follow"): string {
  let fd: number | undefined;
  try {
    if (!(links === "refuse" ? lstatSync(file) : statSync(file)).isFile()) return "";
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const buf = Buffer.alloc(max);
    const n = readSync(fd, buf, 0, max, 0);
    return buf.subarray(0, n).toString("utf8");
  } catch {
    return "";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
