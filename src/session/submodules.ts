/**
 * Submodules of a new session worktree: those initialised in the user's checkout are initialised in the
 * worktree too, the others reported (session start, start.ts).
 */
import { runCommand } from "../exec/run.js";
import { gitOrNull } from "../git/cli.js";
import { progressIntervalMs } from "../util/limits.js";
import { capHeadTail, shellQuote } from "../util/text.js";
import type { CallContext } from "./context.js";

export interface SubmoduleResult {
  ok: boolean;
  message: string;
}

/**
 * A new worktree has empty submodule directories. Those the user initialised in their own checkout are
 * initialised in the worktree too (their URLs are already in the repository's config, so that config
 * is not written; the clones go below the worktree's own git directory). Others are reported, and the
 * session starts either way: the result says what does not work instead of letting builds fail.
 */
export async function initSubmodules(wt: string, timeoutSec: number, ctx: CallContext): Promise<SubmoduleResult> {
  const listed = ((await gitOrNull(wt, ["config", "-f", ".gitmodules", "--get-regexp", "^submodule\\..*\\.path$"])) ?? "")
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const [key, p] = l.split(/\s+/, 2);
      return { name: key!.replace(/^submodule\./, "").replace(/\.path$/, ""), path: p! };
    });
  const known = new Set(
    ((await gitOrNull(wt, ["config", "--get-regexp", "^submodule\\..*\\.url$"])) ?? "")
      .split("\n")
      .filter(Boolean)
      .map((l) =>
        l
          .split(/\s+/, 1)[0]!
          .replace(/^submodule\./, "")
          .replace(/\.url$/, ""),
      ),
  );
  const ready = listed.filter((m) => known.has(m.name));
  const missing = listed.filter((m) => !known.has(m.name)).map((m) => m.path);
  const notInit = missing.length
    ? ` Not initialised in your checkout either, so not here: ${missing.join(", ")} (run \`git submodule update --init\` in your checkout, or use setupCmd).`
    : "";
  if (ready.length === 0) return { ok: missing.length === 0, message: `submodules: none initialised.${notInit}` };
  ctx.progress?.("initialising submodules");
  const quoted = ready.map((m) => shellQuote(m.path)).join(" ");
  // No --init at the top: these submodules already have their URLs in the shared config, and init would
  // also copy keys like `update` or `active` into it. --checkout ignores an `update = rebase` set there.
  // Nested submodules are initialised inside the clones, which belong to the worktree.
  const noHooks = "git -c core.hooksPath=/dev/null";
  const r = await runCommand(
    `${noHooks} submodule update --checkout -- ${quoted} && ${noHooks} submodule foreach --quiet --recursive '${noHooks} submodule update --init --checkout'`,
    {
      cwd: wt,
      timeoutMs: Math.max(timeoutSec, 120) * 1000,
      signal: ctx.signal,
      env: { GIT_TERMINAL_PROMPT: "0" },
      onTick: (ms) => ctx.progress?.(`initialising submodules (${Math.round(ms / 1000)}s)`),
      tickMs: progressIntervalMs(),
    },
  );
  if (r.exitCode === 0 && !r.timedOut)
    return { ok: missing.length === 0, message: `submodules initialised in the worktree: ${ready.map((m) => m.path).join(", ")}.${notInit}` };
  // git's last line is often only "failed to clone ... a second time"; the cause is in its fatal/error lines.
  const lines = r.output.stderr.trim().split("\n").filter(Boolean);
  const causes = lines.filter((l) => /^(fatal|error):/i.test(l.trim()));
  const why = r.timedOut ? "timed out" : [...new Set(causes.length ? causes : lines.slice(-1))].slice(0, 4).join(" | ") || `exit ${r.exitCode}`;
  return {
    ok: false,
    message: `submodules could not be initialised in the worktree (${capHeadTail(why, 600).text}); commands that need them will fail. Provide them with setupCmd or linkPaths.${notInit}`,
  };
}
