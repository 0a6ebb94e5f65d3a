import { type DiffResult, diffPoints } from "../../session/history.js";
import { resolvePoint } from "../../session/points.js";
import { expectPositionals, flagBool, flagString } from "../args.js";
import { type Command, type Io, printJson } from "../command.js";
import { checkId, findSession } from "../find.js";
import { plural } from "../format.js";
import { diffBytes } from "../patch.js";

/** `git diff --stat`-like lines: path, change count and a +/- bar scaled to the widest change. */
export function renderStat(files: DiffResult["files"], io: Pick<Io, "paint">): string {
  const p = io.paint;
  if (files.length === 0) return "no changes\n";
  const counts = files.map((f) => (f.added === null ? null : f.added + (f.removed ?? 0)));
  const nameW = Math.max(...files.map((f) => f.path.length));
  const numW = Math.max(3, ...counts.map((c) => String(c ?? "Bin").length));
  const max = Math.max(1, ...counts.map((c) => c ?? 0));
  const scale = Math.min(1, 40 / max);
  const lines = files.map((f, i) => {
    const c = counts[i];
    if (c === null || c === undefined) return ` ${f.path.padEnd(nameW)} | ${"Bin".padStart(numW)}`;
    const plus = Math.round((f.added ?? 0) * scale) || ((f.added ?? 0) > 0 ? 1 : 0);
    const minus = Math.round((f.removed ?? 0) * scale) || ((f.removed ?? 0) > 0 ? 1 : 0);
    return ` ${f.path.padEnd(nameW)} | ${String(c).padStart(numW)} ${p.green("+".repeat(plus))}${p.red("-".repeat(minus))}`.trimEnd();
  });
  const added = files.reduce((n, f) => n + (f.added ?? 0), 0);
  const removed = files.reduce((n, f) => n + (f.removed ?? 0), 0);
  lines.push(` ${plural(files.length, "file")} changed, ${plural(added, "insertion")}(+), ${plural(removed, "deletion")}(-)`);
  return `${lines.join("\n")}\n`;
}

export const diffCommand: Command = {
  name: "diff",
  summary: "unified diff between two points of a session",
  usage: "code-trm diff <id> [from] [to] [--stat] [--json] [--repo <path>] [-- <path>...]",
  description: [
    "Prints the unified diff between two points of a session (default: baseline to current). A point is",
    "baseline, best, current, a step number, or a checkpoint name. Paths after -- limit the diff.",
    "--stat prints changed files with their line counts instead; with --json, the counts (and, without",
    "--stat, the patch text) as JSON.",
  ].join("\n"),
  options: {
    stat: { type: "boolean", help: "files changed and line counts instead of the patch" },
    repo: { type: "string", value: "<path>", help: "repository of the session (default: the current one)" },
    json: { type: "boolean", help: "machine-readable output (stable keys)" },
  },
  async run(args, io) {
    const [id, from = "baseline", to = "current"] = expectPositionals(args, 1, 3, "diff", "<id>");
    const s = await findSession(checkId(id, "diff"), flagString(args, "repo"), io.cwd);
    const stat = flagBool(args, "stat");
    const json = flagBool(args, "json");
    const a = await resolvePoint(s, from);
    const b = await resolvePoint(s, to);
    if (!stat && !json) {
      io.out(await diffBytes(s.config.commonDir, a.commit, b.commit, { paths: args.rest, color: io.color }));
      return 0;
    }
    const r = await diffPoints(s, { from, to, paths: args.rest });
    if (!json) {
      io.out(renderStat(r.files, io));
      return 0;
    }
    const view = {
      sessionId: s.id,
      from: r.from,
      to: r.to,
      fromCommit: a.commit,
      toCommit: b.commit,
      files: r.files,
      linesAdded: r.linesAdded,
      linesRemoved: r.linesRemoved,
    };
    if (stat) printJson(io, view);
    else printJson(io, { ...view, diff: (await diffBytes(s.config.commonDir, a.commit, b.commit, { paths: args.rest })).toString("utf8") });
    return 0;
  },
};
