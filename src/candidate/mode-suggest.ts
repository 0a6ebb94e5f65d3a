import { diffRegions } from "./line-diff.js";
import type { Candidate, Mode } from "./schema.js";
import { decodeText } from "./text.js";
import type { Plan, TreeReader } from "./types.js";

/**
 * Estimates what each mode would have cost, in tokens, to express the same change, so the model can
 * learn to send three changed lines as an edit rather than a 400-line file. Rough by design: about
 * four characters of JSON per token, and per-edit overheads read off typical candidates.
 */
const tokens = (chars: number) => Math.ceil(chars / 4);
const jsonLen = (s: string) => JSON.stringify(s).length;

const EDIT_OVERHEAD = 18; // {"type":"replaceRange","startLine":120,"endLine":124,"content":...}
const HUNK_OVERHEAD = 6; // @@ -120,7 +120,8 @@
const PATCH_CONTEXT = 3;

type Costs = Partial<Record<Mode, number>>;

interface Change {
  path: string;
  costs: Costs;
  changedLines: number;
  totalLines: number;
}

function modifiedCosts(path: string, a: string[], b: string[], after: string): Change {
  const regions = diffRegions(a, b);
  let patchChars = 0;
  let modifyTokens = 8 + tokens(jsonLen(path));
  let changed = 0;
  let prevEnd = -Infinity;
  for (const r of regions) {
    const lead = Math.min(PATCH_CONTEXT, r.aStart - Math.max(0, prevEnd));
    const body = [
      ...a.slice(r.aStart - Math.max(0, lead), r.aStart),
      ...a.slice(r.aStart, r.aEnd),
      ...b.slice(r.bStart, r.bEnd),
      ...a.slice(r.aEnd, r.aEnd + PATCH_CONTEXT),
    ];
    patchChars += body.reduce((n, l) => n + l.length + 2, 0);
    modifyTokens += EDIT_OVERHEAD + tokens(jsonLen(b.slice(r.bStart, r.bEnd).join("\n")));
    changed += Math.max(r.aEnd - r.aStart, r.bEnd - r.bStart);
    prevEnd = r.aEnd + PATCH_CONTEXT;
  }
  const header = tokens(2 * path.length + 20);
  const patch = header + tokens(Math.ceil(patchChars * 1.1)) + regions.length * HUNK_OVERHEAD;
  return {
    path,
    costs: { files: tokens(jsonLen(after) + jsonLen(path)) + 4, patch, diff: patch + 4, modify: modifyTokens },
    changedLines: changed,
    totalLines: a.length,
  };
}

async function changesOf(plan: Plan, tree: TreeReader): Promise<Change[] | undefined> {
  const out: Change[] = [];
  for (const op of plan.ops) {
    const path = op.path;
    if (op.op === "delete") {
      const n = tokens(jsonLen(path)) + 2;
      out.push({ path, costs: { delete: n, patch: n + 12, diff: n + 12 }, changedLines: 0, totalLines: 0 });
      continue;
    }
    const before = await tree.read(path);
    const after = decodeText(op.content);
    if (!after.ok) return undefined;
    if (before === null) {
      const text = op.content.toString("utf8");
      const n = tokens(jsonLen(text) + jsonLen(path)) + 4;
      const lines = after.doc.lines.length;
      out.push({ path, costs: { files: n, create: n, patch: n + tokens(lines) + 10, diff: n + tokens(lines) + 6 }, changedLines: lines, totalLines: 0 });
      continue;
    }
    const b = decodeText(before);
    if (!b.ok) return undefined;
    out.push(modifiedCosts(path, b.doc.lines, after.doc.lines, op.content.toString("utf8")));
  }
  return out;
}

function sentTokens(c: Candidate): number {
  const field = { files: c.files, create: c.files, patch: c.patch, diff: c.diffs, modify: c.changes, delete: c.paths }[c.mode];
  return tokens(JSON.stringify(field ?? "").length);
}

const fmt = (n: number) => n.toLocaleString("en-US");

/**
 * A one-sentence suggestion when another mode would have expressed `plan` much more cheaply than
 * `candidate` did, or undefined when the mode used was reasonable. `tree` must still show the files
 * as they were before the plan: call this between planCandidate and applyPlan.
 */
export async function suggestMode(c: Candidate, plan: Plan, tree: TreeReader): Promise<string | undefined> {
  if (plan.ops.length === 0) return undefined;
  // Advisory only: a read failure must not fail the submit it annotates.
  const changes = await changesOf(plan, tree).catch(() => undefined);
  if (!changes) return undefined;
  const totals = new Map<Mode, number>();
  for (const mode of ["files", "create", "patch", "diff", "modify", "delete"] as const) {
    let sum = 0;
    for (const ch of changes) sum += ch.costs[mode] ?? Infinity;
    if (Number.isFinite(sum)) totals.set(mode, sum);
  }
  const sent = sentTokens(c);
  const ranked = [...totals.entries()].filter(([m]) => m !== c.mode).sort((x, y) => x[1] - y[1]);
  const best = ranked[0];
  if (!best) return undefined;
  const saving = sent - best[1];
  if (saving < Math.max(80, sent * 0.4)) return undefined;
  const close = ranked.filter(([m, n]) => m !== best[0] && n <= best[1] * 1.25 && m !== "diff").map(([m, n]) => `${m} ~${fmt(n)}`);
  const biggest = [...changes].sort((x, y) => y.totalLines - x.totalLines)[0]!;
  const what =
    biggest.totalLines > 0
      ? `${fmt(biggest.changedLines)} of ${fmt(biggest.totalLines)} lines changed in ${biggest.path}${changes.length > 1 ? ` and ${changes.length - 1} more file(s)` : ""}`
      : `${changes.length} file(s)`;
  const how = best[0] === "modify" ? "modify (replace / replaceRange edits)" : best[0];
  return `Mode ${c.mode} sent ~${fmt(sent)} tokens for ${what}; ${how} would take ~${fmt(best[1])}${close.length ? ` (${close.join(", ")})` : ""}, about ${fmt(saving)} fewer.`;
}
