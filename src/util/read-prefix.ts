import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync } from "node:fs";

/**
 * The first `max` bytes of a regular file as text, else "" (missing, a folder, a FIFO, a device). Files a
 * repository or an environment holds may be anybody's: a FIFO named `a.pth` hung every evaluation, and
 * a committed link to /dev/zero is read forever by readFileSync. `links: "refuse"` also refuses a file
 * that is a symbolic link at all. Opened non-blocking, so a file swapped for a FIFO meanwhile cannot hang.
 * What the file holds beyond its size when opened (it grew meanwhile) is not read.
 */
export function readPrefix(file: string, max: number, links: "follow" | "refuse" = "follow"): string {
  let fd: number | undefined;
  try {
    if (!(links === "refuse" ? lstatSync(file) : statSync(file)).isFile()) return "";
    // Refused links stay refused when the file is swapped for one after the check.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | (links === "refuse" ? constants.O_NOFOLLOW : 0));
    // A buffer of the file's size, not of the cap: a caller reading thousands of small files with a
    // cap of 20 MB zero-filled 20 MB each time (minutes for one hostile coverage report).
    const st = fstatSync(fd);
    if (!st.isFile()) return "";
    const buf = Buffer.alloc(Math.min(max, st.size));
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString("utf8");
  } catch {
    return "";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
