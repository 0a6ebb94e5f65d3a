import { summaryLine } from "../../mcp/views.js";
import { expectPositionals, flagBool } from "../args.js";
import { type Command, printJson } from "../command.js";
import { loadSessions, openCheckout, statusOf } from "../find.js";
import { colorScore, fmtAge, table } from "../format.js";

export const sessionsCommand: Command = {
  name: "sessions",
  summary: "list the sessions of a repository",
  usage: "code-trm sessions [repo] [--json]",
  description: [
    "Lists the code-trm sessions of a repository (default: the one the current directory is in), read",
    "from git: id, status, step, score, best score, tests of the last step, and age.",
    "",
    "Status: active (worktree present), ended (trm_end_session or prune ended it; branch and tags kept),",
    "abandoned (worktree gone without the session being ended; `code-trm prune` cleans it up).",
  ].join("\n"),
  options: { json: { type: "boolean", help: "machine-readable output (stable keys)" } },
  async run(args, io) {
    const [repoArg] = expectPositionals(args, 0, 1, "sessions", "");
    const repo = await openCheckout(repoArg, io.cwd);
    const now = Date.now();
    const rows = (await loadSessions(repo)).map(({ session: s, footprint: f }) => {
      const p = s?.progress();
      const line = s ? summaryLine(s) : undefined;
      const createdAt = s?.config.createdAt ?? null;
      return {
        sessionId: f.id,
        branch: `trm/${f.id}`,
        status: statusOf(f),
        step: s ? s.currentStep : null,
        score: p?.score ?? null,
        emaScore: p?.ema ?? null,
        bestScore: s?.best?.score ?? p?.bestScore ?? null,
        bestStep: s?.best?.step ?? p?.bestStep ?? null,
        tests: line?.tests ?? null,
        createdAt,
        ageSeconds: createdAt ? Math.round((now - Date.parse(createdAt)) / 1000) : null,
        lastActivityAt: f.lastActivity ? new Date(f.lastActivity).toISOString() : null,
        worktreePath: f.worktreeExists ? f.worktree : null,
        readable: !!s,
      };
    });
    if (flagBool(args, "json")) {
      printJson(io, { repo: repo.top, sessions: rows });
      return 0;
    }
    if (rows.length === 0) {
      io.out(`no code-trm sessions in ${repo.top}\n`);
      return 0;
    }
    const p = io.paint;
    const statusCell = (s: string) => (s === "active" ? p.green(s) : s === "abandoned" ? p.yellow(s) : p.dim(s));
    const body = rows.map((r) => [
      r.sessionId,
      statusCell(r.readable ? r.status : `${r.status} (unreadable)`),
      r.step === null ? "-" : String(r.step),
      colorScore(p, r.score),
      colorScore(p, r.bestScore),
      r.tests ?? "-",
      r.ageSeconds === null ? "-" : fmtAge(r.ageSeconds * 1000),
    ]);
    io.out(`${table(["ID", "STATUS", "STEP", "SCORE", "BEST", "TESTS", "AGE"], body, ["left", "left", "right", "right", "right", "right", "right"], p)}\n`);
    return 0;
  },
};
