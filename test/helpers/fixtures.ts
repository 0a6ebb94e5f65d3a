import { readFileSync } from "node:fs";
import path from "node:path";

/** Candidate contents for the js-stats fixture, shared by the end-to-end tests. */
export const MEDIAN_WRONG = `export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[0];
}
`;
export const MEDIAN_RIGHT = `export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}
`;

export function statsWith(repo: string, medianSrc: string): string {
  return readFileSync(path.join(repo, "src/stats.js"), "utf8").replace(/export function median[\s\S]*$/, medianSrc);
}

export function filesCandidate(p: string, content: string) {
  return { mode: "files", files: [{ path: p, content }] };
}

/** A `files` candidate of several files (path → content). */
export function filesOf(files: Record<string, string>) {
  return { mode: "files", files: Object.entries(files).map(([p, content]) => ({ path: p, content })) };
}

/** The commands a step ran, by kind (the keys of its commandMs). */
export const commandsRan = (r: { commandMs?: Record<string, number> }): string[] => Object.keys(r.commandMs ?? {});
