/**
 * The long-lived git processes, fed through stdin so that a question costs no spawn: `update-ref --stdin`
 * per worktree (ref-writer.ts), `cat-file --batch` per repository (object-read.ts), `check-attr --stdin`
 * per worktree (attributes.ts). This module owns their one lifecycle: a process is started at the first
 * question, reused while it lives, started anew after it died (a failed transaction, a crash, a kill),
 * held only while an answer is awaited (idle, it never keeps the server alive), and closed when its
 * worktree goes (closeGitProcesses) or the server exits (closeAllGitProcesses). It also exits on its own
 * when its stdin closes, so a server that dies leaves none behind. What each prints is read by its module.
 */
import { gitProcess } from "./cli.js";

export type LongGitKind = "update-ref" | "cat-file" | "check-attr";

/** Kept of a process's stderr: git's message when it dies is short; a chatty process must not grow it. */
const MAX_STDERR = 64 * 1024;

/** One long-lived git process; a subclass reads its answers (received) and answers what is left when it ends. */
export abstract class LongGit {
  private readonly child: ReturnType<typeof gitProcess>;
  /** It ended, or was closed: the next question goes to a new process. */
  dead = false;
  /** What git wrote on stderr, its last MAX_STDERR characters. */
  protected stderr = "";

  constructor(dir: string, args: string[]) {
    this.child = gitProcess(dir, args);
    this.child.stdout!.on("data", (d: Buffer) => this.received(d));
    this.child.stderr!.on("data", (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-MAX_STDERR)));
    const end = () => {
      this.dead = true;
      this.ended();
      this.hold(false);
    };
    this.child.stdin!.on("error", () => undefined);
    void this.child.then(end, end);
  }

  /** A chunk of stdout, as it came. */
  protected abstract received(d: Buffer): void;
  /** The process is gone (exited, crashed, killed): every question still waiting must be answered now. */
  protected abstract ended(): void;

  /** Writes a question; the process is held until {@link hold}(false). */
  protected send(text: string): void {
    this.hold(true);
    this.child.stdin!.write(text);
  }

  /**
   * The idle process is unref'd so that it never keeps the server alive, but a question under way must:
   * with nothing else pending (stdin closed, or a script using the library) Node would otherwise exit
   * silently in the middle of it (a step neither recorded nor reported). The process too, not only its
   * stdout: when git dies (on a failed transaction) its stdout closes before the exit is reported, and
   * the answer (a rejection) comes with the exit.
   */
  protected hold(on: boolean): void {
    for (const h of [this.child.stdout, this.child] as unknown as ({ ref?: () => void; unref?: () => void } | null)[]) {
      if (on) h?.ref?.();
      else h?.unref?.();
    }
  }

  /** Ends its stdin (git exits once it has answered what it read); with `signal`, also ends git at once (a stuck or out-of-step process). */
  close(signal?: NodeJS.Signals): void {
    this.dead = true;
    this.child.stdin!.end();
    if (signal) this.child.kill(signal);
  }
}

const live = new Map<string, LongGit>();
const keyOf = (kind: LongGitKind, dir: string) => `${kind}\0${dir}`;

/**
 * The process of `kind` for `dir`: the live one when `reuse` accepts it, else a new one from `start` (the
 * one refused is closed).
 */
export function longGit<T extends LongGit>(kind: LongGitKind, dir: string, start: () => T, reuse: (p: T) => boolean = () => true): T {
  const key = keyOf(kind, dir);
  const had = live.get(key) as T | undefined;
  if (had && !had.dead && reuse(had)) return had;
  had?.close();
  const p = start();
  live.set(key, p);
  return p;
}

const turns = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` once the previous question of `kind` for `dir` is settled (one transaction, one batch of paths
 * at a time: a session's operations are serialized, this keeps them so). A failure is the caller's alone.
 */
export function inTurn<R>(kind: LongGitKind, dir: string, fn: () => Promise<R>): Promise<R> {
  const key = keyOf(kind, dir);
  const next = (turns.get(key) ?? Promise.resolve()).then(fn);
  const tail = next.catch(() => undefined);
  turns.set(key, tail);
  void tail.then(() => {
    if (turns.get(key) === tail) turns.delete(key);
  });
  return next;
}

/** Ends the processes of `dir` (every kind, or `kind`): its worktree is going, or what they read changed. */
export function closeGitProcesses(dir: string, kind?: LongGitKind): void {
  for (const k of kind ? [kind] : (["update-ref", "cat-file", "check-attr"] as const)) {
    live.get(keyOf(k, dir))?.close();
    live.delete(keyOf(k, dir));
  }
}

/** Ends every one (the server is exiting). */
export function closeAllGitProcesses(): void {
  for (const p of live.values()) p.close();
  live.clear();
}
