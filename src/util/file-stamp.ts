import { lstatSync, statSync } from "node:fs";

/**
 * Which version of a file is on disk, as one string: inode, size and the times in nanoseconds, so that a
 * rewrite (git renames a new file over the old one) or an edit in place shows. Null when the file does
 * not exist; other errors are thrown. `follow: false` stamps a link itself, not what it points to.
 */
export function fileStamp(file: string, follow = true): string | null {
  const st = (follow ? statSync : lstatSync)(file, { bigint: true, throwIfNoEntry: false });
  return st ? `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}` : null;
}
