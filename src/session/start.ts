import { constants, existsSync, rmSync, writeFileSync } from "node:fs";
import { access } from "node:fs/promises";
import path from "node:path";
import { correlateDiagnostics, correlateFailures, renderFeedback } from "../evaluate/feedback.js";
import { hookAdvice } from "../evaluate/npm-hooks.js";
import { chainAdvice } from "../evaluate/runner-hint.js";
import { failingFirstNote } from "../evaluate/select-command.js";
import { runCommand } from "../exec/run.js";
import { assertSandboxAvailable, rootNotice } from "../exec/sandbox.js";
import { git, gitOrNull, openRepo } from "../git/cli.js";
import { looseCommitTree } from "../git/object-read.js";
import { newSessionId, sessionRefs, shortRef, worktreePath } from "../git/refs.js";
import { headCommitFast, prepareNoteOf, readHead, resolveRefFast, snapshotCheckout, updateRefs } from "../git/session-git.js";
import { addWorktree, removeWorktree } from "../git/worktrees.js";
import { UserError } from "../util/errors.js";
import { progressIntervalMs } from "../util/limits.js";
import { normalizeRelPath } from "../util/paths.js";
import { profileMark } from "../util/profile.js";
import { explainSystemError, trmRefInTheWay } from "../util/sys-errors.js";
import { capHeadTail } from "../util/text.js";
import { resolveConfig, type SessionConfig, type StartInput } from "./config.js";
import type { CallContext } from "./context.js";
import { type Detected, detectCommands, nestedCommands } from "./detect-commands.js";
import { folderView } from "./detect-io.js";
import { otherPackageHook } from "./detect-js.js";
import { layersBeforeSetup, leftoverFolders, leftoverScope, recordKept } from "./leftovers.js";
import { linkIgnored } from "./link-paths.js";
import { missingToolNotes } from "./missing-tools.js";
import { acquireOwner, releaseOwner, startingFile } from "./owner-lock.js";
import { commandPolicy } from "./policy.js";
import { recordPreflight } from "./preflight.js";
import type { BaselineNote } from "./record.js";
import { registryDelete, registrySet } from "./registry.js";
import { Session } from "./session.js";
import { initSubmodules } from "./submodules.js";
import { type LayerResult, layerWorkspaces } from "./workspaces.js";

export interface SetupResult {
  cmd: string;
  ok: boolean;
  exitCode: number | null;
  durationMs: number;
  output: string;
}

/**
 * Creates a session: baseline commit, branch, tags, config note and a detached worktree, then runs the
 * setup command and the optional preflight. Anything half-made is removed again if a step fails.
 */
export async function startSession(input: StartInput, ctx: CallContext) {
  if (!path.isAbsolute(input.repoPath)) {
    throw new UserError(
      `repoPath must be absolute: ${input.repoPath}.`,
      `Pass the checkout's absolute path${input.repoPath.startsWith("~") ? "" : `, e.g. ${path.resolve(input.repoPath)} if it is relative to the server's folder (${process.cwd()})`}; ~ is not expanded.`,
    );
  }
  // No command given: the repository's own, read from its files (nothing of it runs), as if given.
  let opened: Awaited<ReturnType<typeof openRepo>> | undefined;
  let detected: Detected | undefined;
  if (!hasCommand(input)) {
    opened = await openRepo(input.repoPath);
    detected = detectCommands(folderView(opened.top));
    if (!detected) throw nothingDetected(opened.top, nestedCommands(folderView(opened.top)));
    input = { ...input, ...detected.args };
  }
  const partial = resolveConfig(input);
  // Before anything is created: without a working bwrap the start fails, it never runs unconfined.
  if (partial.sandbox) assertSandboxAvailable();
  const linkPaths = partial.linkPaths.map((p) => normalizeRelPath(p));
  const repo = opened ?? (await openRepo(input.repoPath));
  // Commands that cannot run (a package manager or tool not installed) are said now, not by a baseline of 0.
  const c = partial.commands;
  const cannotRun = missingToolNotes(
    {
      buildCmd: c.build,
      testCmd: c.test,
      quickTestCmd: c.quickTest,
      lintCmd: c.lint,
      benchCmd: c.bench,
      ...Object.fromEntries(partial.checks.map((k) => [`checks.${k.name}`, k.cmd])),
    },
    folderView(repo.top),
    !!c.setup,
  );
  // Everything code-trm makes lives in the git directory: an unwritable one is said as such, up front.
  await access(repo.commonDir, constants.W_OK).catch((err: NodeJS.ErrnoException) => {
    throw explainSystemError(Object.assign(err, { path: repo.commonDir })) ?? err;
  });
  // A user's branch, tag or notes ref named `trm` blocks every trm/<id> ref: said before anything is made.
  for (const ref of ["refs/heads/trm", "refs/tags/trm", "refs/notes/trm", "refs/notes/trm-logs"]) {
    if (await resolveRefFast(repo.commonDir, ref)) throw trmRefInTheWay(ref);
  }
  if (existsSync(path.join(repo.gitDir, "MERGE_HEAD"))) {
    // Not a refusal on safety grounds (we never touch the checkout), but the baseline would be ambiguous.
    throw new UserError("The checkout is in the middle of a merge.", "Finish or abort the merge, then start the session.");
  }
  profileMark("start-checks");
  const started = performance.now();
  // Snapshot and checkout of a very large repository can take longer than a client waits in silence.
  const ticker = ctx.progress
    ? setInterval(() => ctx.progress!(`starting the session (${Math.round((performance.now() - started) / 1000)}s)`), progressIntervalMs())
    : undefined;
  try {
    const made = await createSession(input, ctx, partial, linkPaths, repo, started);
    return { ...made, ...(detected ? { detected } : {}), notes: [...(detected?.notes ?? []), ...cannotRun, ...made.notes] };
  } finally {
    if (ticker) clearInterval(ticker);
  }
}

async function createSession(
  input: StartInput,
  ctx: CallContext,
  partial: ReturnType<typeof resolveConfig>,
  linkPaths: string[],
  repo: Awaited<ReturnType<typeof openRepo>>,
  started: number,
) {
  const id = newSessionId();
  const refs = sessionRefs(id);
  const wt = worktreePath(repo.commonDir, id);
  // Never start over another session's remains: cleaning up after a failure would delete them.
  if (existsSync(wt) || (await resolveRefFast(repo.commonDir, refs.baselineTag))) {
    throw new UserError(`Session id ${id} is already taken in this repository.`, "Retry: a new id is drawn on every start.");
  }
  // The owner lock doubles as the "start in progress" mark: a start killed half-way leaves a lock of a
  // dead process next to a `.starting` file, which the next server or prune cleans up (see recover.ts).
  const starting = (await acquireOwner(repo.commonDir, id)) ? startingFile(repo.commonDir, id) : null;
  if (starting) writeFileSync(starting, `${process.pid}\n`);
  try {
    const made = await createSessionOwned(input, ctx, partial, linkPaths, repo, started, id);
    if (starting) rmSync(starting, { force: true });
    return made;
  } catch (err) {
    if (starting) rmSync(starting, { force: true });
    await releaseOwner(repo.commonDir, id);
    throw err;
  }
}

async function createSessionOwned(
  input: StartInput,
  ctx: CallContext,
  partial: ReturnType<typeof resolveConfig>,
  linkPaths: string[],
  repo: Awaited<ReturnType<typeof openRepo>>,
  started: number,
  id: string,
) {
  const refs = sessionRefs(id);
  const wt = worktreePath(repo.commonDir, id);
  // The checkout of the worktree (the slow part) starts from the user's HEAD while the baseline is
  // built; a reset then brings in only the files their uncommitted work changed. HEAD's commit is read
  // in-process so that the checkout starts at once; its tree (for the comparison) meanwhile.
  const fast = headCommitFast(repo);
  const add = (commit: string) =>
    addWorktree(repo.top, wt, commit, id).then(
      () => true,
      (err: unknown) => err,
    );
  const fastEarly = fast ? add(fast) : null;
  profileMark("add-begun");
  const head = (fast ? await treeOfHead(repo, fast) : null) ?? (await readHead(repo.top));
  profileMark("head");
  const early = fastEarly ?? (head ? add(head.commit) : Promise.resolve(false));
  let snap: Awaited<ReturnType<typeof snapshotCheckout>>;
  try {
    snap = await snapshotCheckout(repo, id, head);
    profileMark("snapshot");
  } catch (err) {
    await early;
    await removeWorktree(repo.top, wt).catch(() => undefined);
    throw err;
  }
  const config: SessionConfig = {
    ...partial,
    linkPaths,
    id,
    repoTop: repo.top,
    commonDir: repo.commonDir,
    createdAt: new Date().toISOString(),
    userHead: snap.head,
    userBranch: snap.branch,
    uncommittedIncluded: snap.dirty,
  };
  let layer: LayerResult = { layers: [], redirected: [] };
  /** The user's commit the worktree's HEAD still names, when only HEAD must move (after the reply). */
  let headFrom: string | null = null;
  try {
    // The refs and the config note do not depend on the checkout of the worktree: do both at once. All
    // of it settles before any cleanup, so nothing half-written is re-created after it.
    // Branch, baseline tag and the config note move in one transaction (the note's objects written
    // first): one git process, and never a session branch without its record.
    const results = await Promise.allSettled([
      (async () => {
        const note = await prepareNoteOf(
          repo.commonDir,
          refs.notes,
          snap.commit,
          { v: 1, kind: "baseline", config } satisfies BaselineNote,
          "trm: baseline record (session config)",
        );
        await updateRefs(
          repo.top,
          [{ ref: refs.branch, next: snap.commit, expected: null }, { ref: refs.baselineTag, next: snap.commit, expected: null }, note],
          "trm: session start",
        );
      })(),
      (async () => {
        const ready = await early;
        if (ready !== true) {
          if (ready !== false) throw ready;
          await addWorktree(repo.top, wt, snap.commit, id);
        } else if (head && snap.tree === head.tree) {
          // A clean checkout: the worktree's files and index are already the snapshot's; only its HEAD
          // moves, from the user's commit to the session's own (a reset --hard re-read every file: 44 ms
          // at 5,000 files), after the reply: the next operation waits for it, and a server killed
          // before it leaves a HEAD that the next one's check resets.
          headFrom = head.commit;
        } else {
          await git(wt, ["reset", "--hard", "-q", snap.commit]);
        }
      })(),
      // The registry is about the session id, not the worktree: written meanwhile (a stale entry of a
      // start that fails is harmless, and removed below).
      registrySet(id, repo.commonDir),
    ]);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
    profileMark("refs+worktree");
    await linkIgnored(repo.top, wt, linkPaths);
    layer = await layerWorkspaces(repo.top, wt);
    profileMark("links+layers");
  } catch (err) {
    await discardStart(repo.top, wt, refs, snap.commit);
    await registryDelete(id).catch(() => undefined);
    throw err;
  }
  profileMark("registry");
  const moveHead = async () => {
    if (headFrom) await gitOrNull(wt, ["update-ref", "--no-deref", "-m", "trm: session start", "HEAD", snap.commit, headFrom]);
    headFrom = null;
  };
  // What runs in the worktree before the reply (submodules, setup, preflight) sees the session's HEAD.
  if (existsSync(path.join(wt, ".gitmodules")) || config.commands.setup || input.preflight) await moveHead();
  const submodules = existsSync(path.join(wt, ".gitmodules")) ? await initSubmodules(wt, config.timeoutSec, ctx) : undefined;
  const startMs = Math.round(performance.now() - started);

  const session = new Session(config, { commit: snap.commit, tree: snap.tree });
  const layersMade = layersBeforeSetup(wt, layer.layers);
  let setup: SetupResult | undefined;
  if (config.commands.setup) {
    ctx.progress?.(`running setup: ${config.commands.setup}`);
    const r = await runCommand(config.commands.setup, {
      cwd: wt,
      timeoutMs: Math.max(config.timeoutSec, 600) * 1000,
      signal: ctx.signal,
      onTick: (ms) => ctx.progress?.(`running setup (${Math.round(ms / 1000)}s)`),
      tickMs: progressIntervalMs(),
      env: { TRM_SESSION_ID: id },
      ...commandPolicy(config, wt),
    });
    setup = { cmd: r.cmd, ok: r.exitCode === 0 && !r.timedOut, exitCode: r.exitCode, durationMs: r.durationMs, output: capHeadTail(r.output.all, 2000).text };
    // Every step of a session whose dependencies did not install would fail for that reason alone.
    if (!setup.ok && !input.allowSetupFailure) {
      await discardStart(repo.top, wt, refs, snap.commit);
      await registryDelete(id);
      const last = r.output.all
        .trimEnd()
        .split("\n")
        .slice(-15)
        .map((l) => `  ${l.slice(0, 300)}`)
        .join("\n");
      throw new UserError(
        `setupCmd failed (${r.timedOut ? "timed out" : `exit ${r.exitCode}`}), so the session was not started and nothing of it was kept: ${r.cmd}\n${last || "  (no output)"}`,
        "Fix the command (it runs in a fresh worktree of your repository, without ignored files such as node_modules or .env: see linkPaths), or pass allowSetupFailure: true to start anyway.",
      );
    }
  }
  // What the worktree keeps from step to step (leftovers.ts): before any command of the session runs.
  await recordKept(leftoverScope(config, wt), wt, layersMade, !!config.commands.setup);
  const notes = [...(config.sandbox && rootNotice() ? [rootNotice()!] : []), ...(await session.pythonIsolation()).notices];
  const chain = config.commands.test ? chainAdvice(config.commands.test, wt) : undefined;
  if (chain) notes.push(chain);
  const hooks = config.commands.test ? hookAdvice(config.commands.test, wt, () => otherPackageHook(folderView(wt))) : undefined;
  if (hooks) notes.push(hooks);
  if (config.commands.test) notes.push(failingFirstNote(config.commands.test, wt, config.selectTests !== false, config.testReport));
  profileMark("python");
  if (layer.redirected.length > 0) {
    notes.push(
      `workspace packages are linked from the worktree's own node_modules (${layer.redirected.slice(0, 6).join(", ")}${layer.redirected.length > 6 ? ", …" : ""}), so one package is tested against the candidate's version of another; everything else is reached from your checkout's node_modules.`,
    );
  }
  let preflightFeedback: string | undefined;
  if (input.preflight) {
    const run = await session.evaluateHere(0, ctx);
    const ev = run.evaluation;
    await recordPreflight(session, run, "baseline preflight", { v: 1, kind: "baseline", config });
    preflightFeedback = renderFeedback({
      step: 0,
      ev,
      progress: session.progress()!,
      halt: session.halt(),
      diagnostics: correlateDiagnostics(ev, 0, []),
      failures: correlateFailures(ev, 0, []),
      sessionId: id,
    });
    const rebuilt = await leftoverFolders(leftoverScope(config, wt), wt);
    if (rebuilt.length > 0) notes.push(rebuiltNote(rebuilt));
  }
  // A fresh checkout's files share the second of its index ("racily clean"): the first status re-hashes
  // every one of them (64 ms at 5,000 files). Done after the reply, the first step finds it done.
  session.afterReply(async () => {
    await moveHead();
    await session.verifyWorktree(snap.commit, !!input.preflight);
  });
  return { session, snap, setup, submodules, startMs, branch: shortRef(refs.branch), notes, preflightFeedback };
}

/** Whether the caller gave any evaluation command (then nothing is detected: the caller's commands win). */
const hasCommand = (input: StartInput): boolean =>
  [input.buildCmd, input.testCmd, input.lintCmd, input.benchCmd].some((c) => !!c?.trim()) || !!input.checks?.length;

function nothingDetected(top: string, nested: ReturnType<typeof nestedCommands>): UserError {
  return new UserError(
    `No evaluation command given, and none could be detected in ${top}: no package.json test script or test runner, no Python tests or pytest configuration, no go.mod, Cargo.toml or Makefile test target.`,
    `Pass the command you run the tests with as testCmd (and buildCmd, lintCmd where the project has them)${nested ? `; for the project in ${nested.dir}/, e.g. ${JSON.stringify(nested.args)}` : ""}.`,
  );
}

/** HEAD's commit (read in-process) and its tree, in-process too when the commit is loose; null when it cannot be read. */
async function treeOfHead(repo: { top: string; commonDir: string }, commit: string): Promise<{ commit: string; tree: string } | null> {
  const tree = looseCommitTree(repo.commonDir, commit) ?? (await gitOrNull(repo.top, ["rev-parse", "--verify", "-q", `${commit}^{tree}`]))?.trim();
  return tree ? { commit, tree } : null;
}

/** Removes what a failed start made: worktree, branch, baseline tag (only if still ours) and notes. */
async function discardStart(top: string, wt: string, refs: ReturnType<typeof sessionRefs>, baseline: string): Promise<void> {
  await removeWorktree(top, wt).catch(() => undefined);
  // Only refs that are still ours: deleted with the value this start gave them.
  for (const r of [refs.branch, refs.baselineTag]) await gitOrNull(top, ["update-ref", "-d", r, baseline]);
  for (const r of [refs.notes, refs.logs]) await gitOrNull(top, ["update-ref", "-d", r]);
}

/** Said at start: what the baseline's commands built in the worktree is not kept, unless setupCmd makes it. */
function rebuiltNote(folders: string[]): string {
  const shown = folders.slice(0, 5).join(", ") + (folders.length > 5 ? `, … (${folders.length})` : "");
  return `every step starts from its commit (docs/git-model.md#what-a-step-starts-from): ${shown}, which the baseline's commands made in the worktree, is removed after each step and made again by the next (a build cache rebuilt every step); to keep a folder from step to step, make it in setupCmd (e.g. \`cargo build --all-targets\` for target/).`;
}
