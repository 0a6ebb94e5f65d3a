/**
 * Evaluations must measure the candidate's code. When a command's output names files of the user's
 * checkout outside the worktree (a stack frame, a traceback, a compiler path), some of what ran came
 * from the checkout (an editable install, a workspace link, a path in the command): the result must say
 * so. Dependencies reached from the checkout on purpose (node_modules, site-packages, linked paths)
 * are not the candidate's code and are passed over. Pure and linear in the output's length.
 */

import path from "node:path";

const THIRD_PARTY_SEGMENTS = new Set(["node_modules", "site-packages", "dist-packages", ".git", "__pycache__", ".pnpm"]);
const PATH_END = /[\s'"`:,;()<>[\]{}|]/;
const PATH_START_OK = /[\s'"`(<[=,:;]/;
const MAX_LISTED = 8;

/**
 * Checkout-relative paths of the files `output` names under `checkout` but outside `worktree`:
 * absolute paths (stack frames, tracebacks, file:// URLs) and paths relative to the worktree that
 * climb out of it (tsc prints `../../../../packages/a/index.ts` for a file reached through a link).
 * `linked` are checkout-relative folders deliberately shared with the worktree (linkPaths).
 */
export function checkoutPathsIn(output: string, checkout: string, worktree: string | string[], linked: string[] = []): string[] {
  const root = checkout.replace(/\/+$/, "");
  if (root === "") return [];
  // The worktree's path in every form it may be printed in (as given, resolved).
  const wts = (Array.isArray(worktree) ? worktree : [worktree]).map((w) => w.replace(/\/+$/, ""));
  const wt = wts[0] ?? "";
  const found = new Set<string>();
  const consider = (abs: string) => {
    if (wts.some((w) => abs === w || abs.startsWith(`${w}/`)) || !abs.startsWith(`${root}/`)) return;
    const rel = abs.slice(root.length + 1);
    if (rel === "") return;
    if (rel.split("/").some((s) => THIRD_PARTY_SEGMENTS.has(s))) return;
    if (linked.some((l) => rel === l || rel.startsWith(`${l.replace(/\/+$/, "")}/`))) return;
    found.add(rel);
  };
  for (const [needle, relative] of [
    [`${root}/`, false],
    ["../", true],
  ] as const) {
    for (let i = output.indexOf(needle); i >= 0; i = output.indexOf(needle, i + needle.length)) {
      const prev = i === 0 ? " " : output[i - 1]!;
      if (!PATH_START_OK.test(prev) && !(!relative && prev === "/" && output.endsWith("file://", i))) continue;
      let end = i + needle.length;
      while (end < output.length && end - i < 4096 && !PATH_END.test(output[end]!)) end++;
      const text = output.slice(i, end).replace(/[.]+$/, "");
      consider(relative ? path.posix.resolve(wt, text) : path.posix.normalize(text));
      i = end - needle.length;
    }
  }
  return [...found];
}

/** The prominent statement, or none. */
export function checkoutLeakNotice(byCommand: Record<string, string[]>): string | undefined {
  const entries = Object.entries(byCommand).filter(([, files]) => files.length > 0);
  if (entries.length === 0) return undefined;
  const all = [...new Set(entries.flatMap(([, f]) => f))];
  const shown = all.slice(0, MAX_LISTED).join(", ");
  return (
    `THESE RESULTS CAME PARTLY FROM YOUR CHECKOUT, NOT FROM THE CANDIDATE: the ${entries.map(([k]) => k).join(", ")} output names files of your checkout outside the worktree (${shown}${all.length > MAX_LISTED ? ", …" : ""}). ` +
    "Something resolves into the checkout (an editable install, a workspace link, an absolute path in a command or config); make the command use the worktree's files (e.g. PYTHONPATH=src, a relative path) before trusting this score."
  );
}
