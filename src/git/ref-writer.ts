/**
 * Ref transactions through one long-lived `git update-ref --stdin` per worktree: each step's refs move
 * with `start` / `update ... <old>` / `prepare` / `commit`, git's own lock-file protocol and
 * compare-and-swap, without spawning git (0.9 ms against 13 ms per call, measured on this machine under
 * load). The reflog message is the process's, fixed when it starts. A failed transaction ends the process
 * (git dies on it); the next call starts a new one (long-lived.ts owns the process).
 */
import { inTurn, LongGit, longGit } from "./long-lived.js";

/** As session-git's RefUpdate (not imported from there: session-git imports this module). */
interface RefUpdate {
  ref: string;
  next: string;
  expected?: string | null;
}

const ZERO = "0".repeat(40);

class RefWriter extends LongGit {
  private out = "";
  private waiting: { resolve: () => void; reject: (e: Error) => void } | null = null;

  constructor(cwd: string, reason: string) {
    super(cwd, ["update-ref", "--no-deref", "-m", reason, "--stdin"]);
  }

  protected received(d: Buffer): void {
    this.out += d.toString();
    if (this.waiting && /^commit: ok$/m.test(this.out)) {
      this.out = "";
      const w = this.waiting;
      this.waiting = null;
      this.hold(false);
      w.resolve();
    }
  }

  protected ended(): void {
    const w = this.waiting;
    this.waiting = null;
    w?.reject(new Error(this.stderr.trim() || "git update-ref --stdin exited"));
  }

  /**
   * It ended without a word about the transaction under way: git prints `start: ok` as soon as it reads
   * the first line, so it read none of it (killed between transactions, before its exit was seen).
   */
  get unread(): boolean {
    return this.dead && this.out === "";
  }

  run(updates: RefUpdate[]): Promise<void> {
    const lines = updates.map((u) => `update ${u.ref} ${u.next}${u.expected === undefined ? "" : ` ${u.expected ?? ZERO}`}`);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.send(`start\n${lines.join("\n")}\nprepare\ncommit\n`);
    });
  }
}

/** Runs one atomic transaction in `cwd` (HEAD = that worktree's HEAD); throws git's message on failure. */
export function runRefTransaction(cwd: string, updates: RefUpdate[], reason: string): Promise<void> {
  return inTurn("update-ref", cwd, async () => {
    // A process that ended before reading the transaction (a command of the session may kill it) is
    // replaced once: nothing of it was applied, so it is asked of a new git as a whole.
    for (let attempt = 0; ; attempt++) {
      const w = longGit("update-ref", cwd, () => new RefWriter(cwd, reason));
      try {
        return await w.run(updates);
      } catch (err) {
        if (attempt > 0 || !w.unread) throw err;
      }
    }
  });
}
