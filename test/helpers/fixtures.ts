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

/**
 * A patch candidate that deletes whole files, adds new ones and puts a line on top of others (given their text
 * as it is): the steps `files` mode cannot write, such as a test file deleted beside a comment in the code.
 */
export function patchOf(ops: { deleted?: Record<string, string>; added?: Record<string, string>; prepended?: Record<string, [text: string, line: string]> }) {
  const lines = (text: string) => text.replace(/\n$/, "").split("\n");
  const out: string[] = [];
  for (const [p, text] of Object.entries(ops.deleted ?? {}))
    out.push(`--- a/${p}`, "+++ /dev/null", `@@ -1,${lines(text).length} +0,0 @@`, ...lines(text).map((l) => `-${l}`));
  for (const [p, text] of Object.entries(ops.added ?? {}))
    out.push("--- /dev/null", `+++ b/${p}`, `@@ -0,0 +1,${lines(text).length} @@`, ...lines(text).map((l) => `+${l}`));
  for (const [p, [text, line]] of Object.entries(ops.prepended ?? {})) {
    const n = lines(text).length;
    out.push(`--- a/${p}`, `+++ b/${p}`, `@@ -1,${n} +1,${n + 1} @@`, `+${line}`, ...lines(text).map((l) => ` ${l}`));
  }
  return { mode: "patch" as const, patch: `${out.join("\n")}\n` };
}
