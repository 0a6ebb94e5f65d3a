/**
 * Objects read by id: a loose object in-process (what code-trm writes is loose: a step's trees, commits
 * and notes), anything else (packed, or in an alternate object store) through one long-lived
 * `git cat-file --batch` per repository. isomorphic-git read a whole pack into memory and hashed it
 * before its first packed object: on prettier's 280 MB pack the first step took 1.1 s longer, and the
 * server's 280 MB more made every command's spawn slower (commands 18 -> 62 ms), measured.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { inflateSync } from "node:zlib";
import { LongGit, longGit } from "./long-lived.js";

export interface RawObject {
  type: string;
  content: Buffer;
}

const TIMEOUT_MS = 30_000;
/**
 * Larger objects are not read into the server at all (a crafted loose object of a few KB can inflate to
 * gigabytes): the caller then lets git do the work, as it does for whatever it cannot read here.
 */
const MAX_OBJECT_BYTES = 256 * 1024 * 1024;

class CatFile extends LongGit {
  /** What git wrote and no answer took yet, as it came (a large object is joined once, when complete). */
  private chunks: Buffer[] = [];
  private have = 0;
  /** The header of the answer being read: its type and size. */
  private head: { type: string; size: number } | null = null;
  private readonly waiting: { oid: string; done: (o: RawObject | null) => void }[] = [];
  /** A question went unanswered for TIMEOUT_MS, or its object is over MAX_OBJECT_BYTES: asking again would not help. */
  timedOut = false;
  tooLarge = false;

  constructor(commonDir: string) {
    super(commonDir, ["cat-file", "--batch"]);
  }

  protected received(d: Buffer): void {
    this.chunks.push(d);
    this.have += d.length;
    this.drain();
  }

  protected ended(): void {
    for (const w of this.waiting.splice(0)) w.done(null);
  }

  /** The first `n` bytes received (n <= have), removed. */
  private take(n: number): Buffer {
    const parts: Buffer[] = [];
    let got = 0;
    while (got < n) {
      const c = this.chunks[0]!;
      if (c.length <= n - got) {
        parts.push(c);
        this.chunks.shift();
        got += c.length;
      } else {
        parts.push(c.subarray(0, n - got));
        this.chunks[0] = c.subarray(n - got);
        got = n;
      }
    }
    this.have -= n;
    return parts.length === 1 ? Buffer.from(parts[0]!) : Buffer.concat(parts, n);
  }

  /** Where the first newline received is (its offset), or -1. */
  private newline(): number {
    let at = 0;
    for (const c of this.chunks) {
      const nl = c.indexOf(10);
      if (nl >= 0) return at + nl;
      at += c.length;
    }
    return -1;
  }

  /** Answers come in the order asked: `<oid> <type> <size>\n<content>\n`, or `<oid> missing\n`. */
  private drain(): void {
    while (this.waiting.length > 0) {
      const w = this.waiting[0]!;
      if (!this.head) {
        const nl = this.newline();
        if (nl < 0) return;
        const head = this.take(nl + 1)
          .toString("latin1", 0, nl)
          .split(" ");
        if (head.length === 2 && head[0] === w.oid && head[1] === "missing") {
          this.waiting.shift();
          w.done(null);
          continue;
        }
        if (head.length !== 3 || head[0] !== w.oid || !/^\d+$/.test(head[2]!)) {
          // Not the answer to this question: the stream can no longer be read in step.
          this.kill();
          return;
        }
        if (Number(head[2]) > MAX_OBJECT_BYTES) {
          this.tooLarge = true;
          this.kill();
          return;
        }
        this.head = { type: head[1]!, size: Number(head[2]) };
      }
      if (this.have < this.head.size + 1) return;
      const content = this.take(this.head.size + 1).subarray(0, this.head.size);
      const type = this.head.type;
      this.head = null;
      this.waiting.shift();
      w.done({ type, content });
    }
    if (this.waiting.length === 0) this.hold(false);
  }

  read(oid: string): Promise<RawObject | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timedOut = true;
        this.kill();
        resolve(null);
      }, TIMEOUT_MS);
      this.waiting.push({
        oid,
        done: (o) => {
          clearTimeout(timer);
          resolve(o);
        },
      });
      this.send(`${oid}\n`);
    });
  }

  /** Ends git itself and answers every question left with null (a stuck or out-of-step process). */
  private kill(): void {
    this.close("SIGTERM");
    for (const w of this.waiting.splice(0)) w.done(null);
    this.chunks = [];
    this.have = 0;
    this.hold(false);
  }
}

/** A loose object of `commonDir`'s own store, or null (absent, packed, unreadable). */
function readLoose(commonDir: string, oid: string): RawObject | null {
  let body: Buffer;
  try {
    body = inflateSync(readFileSync(path.join(commonDir, "objects", oid.slice(0, 2), oid.slice(2))), { maxOutputLength: MAX_OBJECT_BYTES + 64 });
  } catch {
    return null;
  }
  const nul = body.indexOf(0);
  // git refuses a size with a leading zero (parse_loose_header), and so does this.
  const m = /^(blob|tree|commit|tag) (0|[1-9]\d*)$/.exec(body.toString("latin1", 0, Math.max(nul, 0)));
  if (!m || body.length - nul - 1 !== Number(m[2])) return null;
  return { type: m[1]!, content: body.subarray(nul + 1) };
}

/** The object `oid` of the repository whose common directory is `commonDir`; throws when git has none. */
export async function readObjectRaw(commonDir: string, oid: string): Promise<RawObject> {
  if (!/^[0-9a-f]{40}$/.test(oid)) throw new Error(`not an object id: ${oid}`);
  const loose = readLoose(commonDir, oid);
  if (loose) return loose;
  // A process that ended (killed between questions, before its exit was seen) is asked once more anew:
  // only git's own answer ("missing") or a timeout says there is no such object.
  for (let attempt = 0; ; attempt++) {
    const r = longGit("cat-file", commonDir, () => new CatFile(commonDir));
    const o = await r.read(oid);
    if (o) return o;
    if (r.tooLarge) throw new Error(`object ${oid} is larger than ${MAX_OBJECT_BYTES} bytes`);
    if (!r.dead || r.timedOut || attempt > 0) throw new Error(`git has no object ${oid}`);
  }
}

/**
 * The tree of `commit` when it is a loose object of `commonDir`'s own store (a new commit usually is),
 * without any git process (session start asks while `git worktree add` runs); null when packed or odd.
 */
export function looseCommitTree(commonDir: string, commit: string): string | null {
  if (!/^[0-9a-f]{40}$/.test(commit)) return null;
  const o = readLoose(commonDir, commit);
  if (o?.type !== "commit") return null;
  try {
    return commitTreeOf(o.content);
  } catch {
    return null;
  }
}

/** The tree of a commit object's content. */
export function commitTreeOf(content: Buffer): string {
  const m = /^tree ([0-9a-f]{40})\n/.exec(content.toString("latin1", 0, 46));
  if (!m) throw new Error("a commit without a tree line");
  return m[1]!;
}
