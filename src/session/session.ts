import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import type { Evaluation, EvaluationRun } from "../evaluate/evaluate.js";
import { bestPerf, foldProgress, type HaltDecision, haltDecision, IMPROVEMENT_EPSILON, type Progress } from "../evaluate/score.js";
import { reapRecordedAll } from "../exec/orphans.js";
import { killMarked } from "../exec/sweep.js";
import { git, gitOrNull } from "../git/cli.js";
import { closeGitProcesses } from "../git/long-lived.js";
import { type SessionRefs, sessionRefs, shortRef, worktreePath } from "../git/refs.js";
import { branchCheckedOutAt, readNote, resolveRefFast } from "../git/session-git.js";
import { removeWorktree } from "../git/worktrees.js";
import { UserError } from "../util/errors.js";
import { profileMark } from "../util/profile.js";
import type { SessionConfig } from "./config.js";
import type { CallContext } from "./context.js";
import { forgetInProcess } from "./git-rules.js";
import { leftoverScope, removeLeftovers, resetTo, restoreTracked } from "./leftovers.js";
import { Mutex } from "./mutex.js";
import { acquireOwner, liveOtherOwner, releaseOwner } from "./owner-lock.js";
import { type PythonIsolation, pythonIsolation } from "./python-env.js";
import type { BaselineNote, StepEntry, StepNote } from "./record.js";
import { evaluateIn } from "./run-commands.js";
import { cacheKeptSteps, readEntries } from "./step-records.js";
import { type SubmitOptions, submitCandidate } from "./submit.js";
import { removePool } from "./worktree-pool.js";
import { healWrites } from "./write-journal.js";

/** The best step ever evaluated in the session (tag `trm/<id>/best`), on the current history or not. */
export interface SessionBest {
  commit: string;
  step: number;
  score: number;
  onCurrentHistory: boolean;
}

/** active: worktree present; ended: trm_end_session ran; abandoned: worktree gone without an end. */
export type SessionStatus = "active" | "ended" | "abandoned";

export function sessionStatus(ended: boolean, worktreeExists: boolean): SessionStatus {
  if (ended) return "ended";
  return worktreeExists ? "active" : "abandoned";
}

export class Session {
  readonly refs: SessionRefs;
  readonly worktree: string;
  readonly mutex = new Mutex();
  /** Evaluated points of the current history, oldest first (step 0 = baseline when preflight ran). */
  entries: StepEntry[] = [];
  tip: string;
  tipTree: string;
  /** Evaluations by tree id, so a state already evaluated (after undo, restore, a repeat) costs no command. */
  readonly cache = new Map<string, { commit: string; evaluation: Evaluation }>();

  constructor(
    readonly config: SessionConfig,
    readonly baseline: { commit: string; tree: string },
  ) {
    this.refs = sessionRefs(config.id);
    this.worktree = worktreePath(config.commonDir, config.id);
    this.tip = baseline.commit;
    this.tipTree = baseline.tree;
  }

  get id(): string {
    return this.config.id;
  }
  /** Where the running command's process group is recorded (exec/orphans.ts). */
  get groupFile(): string {
    return path.join(this.config.commonDir, "trm", "run", `${this.config.id}.pgid`);
  }
  /** What a candidate is being written (write-journal.ts). */
  get writeJournal(): string {
    return path.join(this.config.commonDir, "trm", "run", `${this.config.id}.writing`);
  }
  get top(): string {
    return this.config.repoTop;
  }
  /** Set from `refs/trm/<id>/ended` when loaded, and by end(). */
  ended = false;

  get status(): SessionStatus {
    return sessionStatus(this.ended, existsSync(this.worktree));
  }

  /** Rebuilds the session from git alone: config from the baseline note, steps from the branch and its notes. */
  static async load(commonDir: string, id: string): Promise<Session | null> {
    const refs = sessionRefs(id);
    const baselineCommit = await resolveRefFast(commonDir, refs.baselineTag);
    if (!baselineCommit) return null;
    const cwd = path.dirname(commonDir);
    const note = await readNote<BaselineNote>(commonDir, refs.notes, baselineCommit);
    if (note?.kind !== "baseline") return null;
    const tree = (await git(commonDir, ["rev-parse", `${baselineCommit}^{tree}`])).trim();
    // Sessions written by an older version lack newer fields: default them.
    const cfg = { ...note.config, checks: note.config.checks ?? [], commonDir, repoTop: existsSync(note.config.repoTop) ? note.config.repoTop : cwd };
    const s = new Session(cfg, { commit: baselineCommit, tree });
    s.preflight = note.preflight;
    s.ended = (await resolveRefFast(commonDir, `${refs.keepPrefix}ended`)) !== null;
    await s.reload();
    await cacheKeptSteps(s);
    return s;
  }

  preflight?: Evaluation;

  /** Re-reads the history from the session branch (it may have been moved by undo, restore, or a person). */
  async reload(): Promise<void> {
    // The branch may have been moved by someone else: what was read of its trees (attributes) is read again.
    forgetInProcess(this, this.worktree);
    const tip = (await resolveRefFast(this.config.commonDir, this.refs.branch)) ?? this.baseline.commit;
    this.entries = await this.entriesFor(tip);
    this.tip = tip;
    const last = this.entries[this.entries.length - 1];
    this.tipTree = last && last.commit === tip ? last.tree : this.baseline.tree;
    await this.readBest();
  }

  /** The session's best, as the best tag and its record say (read on load and after every move). */
  best: SessionBest | null = null;

  async readBest(): Promise<SessionBest | null> {
    const commit = await resolveRefFast(this.config.commonDir, this.refs.bestTag);
    let found: SessionBest | null = null;
    if (commit) {
      const entry = this.entries.find((e) => e.commit === commit);
      if (entry) found = { commit, step: entry.step, score: entry.evaluation.score, onCurrentHistory: true };
      else if (commit === this.baseline.commit && this.preflight) found = { commit, step: 0, score: this.preflight.score, onCurrentHistory: true };
      // Left off the history by the move being made (undo, restore, reset): what memory has of it, without a git process.
      else if (this.best?.commit === commit) found = { ...this.best, onCurrentHistory: false };
      else {
        const note = await readNote<StepNote>(this.config.commonDir, this.refs.notes, commit);
        if (note?.kind === "step") found = { commit, step: note.step, score: note.evaluation.score, onCurrentHistory: false };
      }
    }
    // A session written before the tag only moved up, or a tag removed by hand: the current history's best.
    const own = this.bestEntry();
    if (own && (!found || own.evaluation.score > found.score + IMPROVEMENT_EPSILON))
      found = { commit: own.commit, step: own.step, score: own.evaluation.score, onCurrentHistory: true };
    this.best = found;
    return found;
  }

  /** The evaluated steps from the baseline up to `tip`, read from the commits and their notes (one git call). */
  async entriesFor(tip: string): Promise<StepEntry[]> {
    return readEntries(this, tip);
  }

  get currentStep(): number {
    return this.tip === this.baseline.commit ? 0 : (this.entries[this.entries.length - 1]?.step ?? 0);
  }

  /** The running figures of a history (by default the current one): a pure fold, never stored. */
  progress(entries: StepEntry[] = this.entries): Progress | undefined {
    return foldProgress(
      entries.map((e) => ({ step: e.step, score: e.evaluation.score, testsPass: e.evaluation.testsPass, partial: !!e.evaluation.partial })),
      this.config.emaAlpha,
    );
  }

  halt(): HaltDecision {
    const last = this.entries[this.entries.length - 1];
    return haltDecision(
      this.currentStep === 0 ? undefined : this.progress(),
      last?.evaluation.testsPass ?? false,
      this.config.halt,
      last?.evaluation.strength?.scaled,
      !!last && !last.evaluation.testsPass && last.evaluation.tests?.failed === 0 && !last.evaluation.partial,
    );
  }

  zNotes(): string {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const z = this.entries[i]!.note?.zNotes;
      if (z) return z;
    }
    return this.config.zNotes;
  }

  assertActive(): void {
    if (this.status !== "active") {
      throw new UserError(
        `Session ${this.id} has ${this.status === "ended" ? "ended" : "lost its worktree"}.`,
        `Start a new session; this one's work stays on branch ${shortRef(this.refs.branch)}.`,
      );
    }
  }

  /**
   * Brings memory and worktree in line with git before any operation: the branch may have been moved
   * by another process or a person, and a crash may have left the worktree dirty or behind.
   */
  private pendingWrites: Promise<void> = Promise.resolve();

  /**
   * Work that may finish after the reply; settled before the next operation (see settle). It starts
   * on the next turn of the event loop, once the reply (written in this turn's microtasks) is out: its
   * synchronous parts (file reads, spawning git) would otherwise run ahead of the answer.
   */
  afterReply(work: () => Promise<void>): void {
    this.pendingWrites = this.pendingWrites
      .then(() => new Promise<void>((r) => setImmediate(r)))
      .then(work)
      .catch((err: unknown) => {
        process.stderr.write(`code-trm: a deferred write of session ${this.id} failed: ${(err as Error).message}\n`);
      });
  }

  settle(): Promise<void> {
    return this.pendingWrites;
  }

  /**
   * The commit the worktree (files and index) was last reset to by this server, right after a step or a
   * move; syncs trust it instead of running `git status` over the whole worktree, until something of
   * the server's writes there again (a candidate, the commands: cleared before them). Edits made in the
   * session's hidden worktree by hand are then not undone before the next step; the step's commit is
   * built from the tip and the candidate's own paths all the same.
   */
  worktreeAt: string | null = null;

  /**
   * After a step: the worktree checked against `commit`, reset only when the commands changed tracked
   * files, and, when commands ran in it, what they left untracked removed (leftovers.ts).
   */
  async verifyWorktree(commit: string, commandsRan = true): Promise<void> {
    this.worktreeAt = null;
    if (await restoreTracked(this.worktree, commit, commandsRan)) this.ranTrees.delete(this.worktree);
    if (commandsRan) await this.removeLeftovers();
    this.worktreeAt = commit;
  }

  /** What the commands left in the worktree (and the sandbox home) that the session does not keep, removed. */
  removeLeftovers(): Promise<void> {
    return removeLeftovers(leftoverScope(this.config, this.worktree), this.worktree);
  }

  /** Files and index of the worktree exactly at `commit` (what the commands of a step changed undone too). */
  async resetWorktree(commit: string): Promise<void> {
    this.worktreeAt = null;
    this.ranTrees.delete(this.worktree);
    await resetTo(this.worktree, commit);
    this.worktreeAt = commit;
  }

  async sync(): Promise<void> {
    profileMark("lock");
    await this.settle();
    profileMark("settle");
    this.assertActive();
    // Before anything that may kill a recorded command or reset the worktree: the session must be this
    // server's. Another live server's running command is not an orphan (owner-lock.ts).
    await acquireOwner(this.config.commonDir, this.id);
    profileMark("owner");
    // A command left running by a server that died mid-step would still be changing the worktree.
    if (await reapRecordedAll(this.groupFile)) process.stderr.write(`code-trm: killed a command left running by a previous server in session ${this.id}\n`);
    profileMark("reap");
    const tip = await resolveRefFast(this.config.commonDir, this.refs.branch);
    profileMark("tip");
    if (!tip) throw new UserError(`The session branch ${shortRef(this.refs.branch)} was deleted.`, "Start a new session.");
    if (tip !== this.tip) await this.reload();
    if (await healWrites(this.writeJournal, this.worktree, this.tip).finally(() => profileMark("heal")))
      process.stderr.write(`code-trm: removed a candidate left half-written by a previous server in session ${this.id}\n`);
    if (this.worktreeAt === this.tip) return;
    // The worktree is ours, so status may refresh its index (optional locks on): files checked out in
    // the same second as the index stay "racily clean" and would be re-hashed on every step otherwise.
    if (await restoreTracked(this.worktree, this.tip)) this.ranTrees.delete(this.worktree);
    // Not known clean: a step that failed after its commands ran, or a server that died before its cleanup.
    await this.removeLeftovers();
    this.worktreeAt = this.tip;
  }

  /** For reading only: in line with git, without taking the session from a live server that owns it. */
  async refresh(): Promise<void> {
    if (this.status !== "active") return this.reload();
    if (liveOtherOwner(this.config.commonDir, this.id)) return this.mutex.run(() => this.reload());
    return this.mutex.run(() => this.sync());
  }

  /**
   * Refuses to move or delete the session branch while a checkout has it checked out: that checkout's
   * HEAD would move with it and its files would look changed (git's update-ref does not check).
   */
  async assertBranchFree(): Promise<void> {
    const where = await branchCheckedOutAt(this.config.commonDir, this.refs.branch);
    if (where) {
      throw new UserError(
        `The session branch ${shortRef(this.refs.branch)} is checked out in ${where}; code-trm will not move a branch you are on.`,
        `Switch that checkout to another branch (e.g. git switch -), then retry. To look at the session without blocking it: git checkout --detach ${shortRef(this.refs.branch)}.`,
      );
    }
  }

  /** The tree each worktree last ran commands on, while its files are known to be that tree's (stale-bytecode.ts). */
  readonly ranTrees = new Map<string, string>();

  /** Bytecode of the session's Python commands goes here, never next to the sources (python-env.ts). */
  get pycacheDir(): string {
    return path.join(this.config.commonDir, "trm", "pycache", this.config.id);
  }

  private readonly isolation = new Map<string, Promise<PythonIsolation>>();
  /** Read from the linked environments once per process and worktree: derivable again after a restart. */
  pythonIsolation(worktree = this.worktree): Promise<PythonIsolation> {
    let p = this.isolation.get(worktree);
    if (!p)
      this.isolation.set(
        worktree,
        (p = pythonIsolation(
          this.top,
          worktree,
          this.config.linkPaths,
          this.config.sandbox ? null : this.pycacheDir,
          [...Object.values(this.config.commands), ...(this.config.checks ?? []).map((c) => c.cmd)].filter((c): c is string => typeof c === "string"),
        )),
      );
    return p;
  }

  /**
   * Runs the session's commands in `worktree` (the session's own, or a pool worktree of a batch, whose
   * running command is recorded next to the session's so that a crash leaves no orphan either).
   */
  async evaluateHere(
    step: number,
    ctx: CallContext,
    previousBestPerf = this.previousBestPerf(),
    changedFiles: string[] = [],
    worktree = this.worktree,
    wholeSuite = false,
    /** The tree written in `worktree` (default: the tip's, in the session's own worktree). */
    tree = worktree === this.worktree ? this.tipTree : undefined,
  ): Promise<EvaluationRun> {
    return evaluateIn(this, step, ctx, previousBestPerf, changedFiles, worktree, wholeSuite, tree);
  }

  /** Applies, evaluates and records a candidate as the next step (submit.ts). */
  submit(opts: SubmitOptions, ctx: CallContext) {
    return submitCandidate(this, opts, ctx);
  }

  bestEntry(entries: StepEntry[] = this.entries): StepEntry | undefined {
    const p = this.progress(entries);
    return p ? entries.find((e) => e.step === p.bestStep) : undefined;
  }

  /** Best bench value of the current history, against which a new one is normalised. */
  previousBestPerf(): number | undefined {
    return bestPerf(
      this.entries.map((e) => e.evaluation.perf?.value ?? undefined),
      this.config.perfDirection,
    );
  }

  /** Removes the worktree; keeps branch, tags and notes unless `discard`. */
  async end(discard: boolean): Promise<void> {
    return this.mutex.run(async () => {
      await this.settle();
      await acquireOwner(this.config.commonDir, this.id);
      if (discard) await this.assertBranchFree();
      // Daemons a command left behind (already killed when their command ended, unless they hid).
      killMarked("TRM_SESSION_ID", this.id);
      closeGitProcesses(this.worktree);
      await removeWorktree(this.top, this.worktree);
      await removePool(this.top, this.config.commonDir, this.id);
      await rm(this.pycacheDir, { recursive: true, force: true });
      if (discard) {
        const refs = await git(this.top, ["for-each-ref", "--format=%(refname)", this.refs.tagPrefix, this.refs.keepPrefix, this.refs.notes, this.refs.logs]);
        for (const r of [...refs.split("\n").filter(Boolean), this.refs.branch]) await gitOrNull(this.top, ["update-ref", "-d", r]);
      } else {
        await git(this.top, ["update-ref", `${this.refs.keepPrefix}ended`, this.tip]);
      }
      this.ended = true;
      await releaseOwner(this.config.commonDir, this.id);
    });
  }
}
