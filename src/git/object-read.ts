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
import { gitProcess } from "./cli.js";

export interface RawObject {
  type: string;
  content: Buffer;
}

const TIMEOUT_MS = 30_000;

class CatFile {
  private readonly child: ReturnType<typeof gitProcess>;
  private buf: Buffer = Buffer.alloc(0);
  private readonly waiting: { oid: string; done: (o: RawObject | null) => void }[] = [];
  dead = false;

  constructor(commonDir: string) {
    this.child = gitProcess(commonDir, ["cat-file", "--batch"]);
    this.child.stdout!.on("data", (d: Buffer) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
      this.drain();
    });
    const fail = () => {
      this.dead = true;
      for (const w of this.waiting.splice(0)) w.done(null);
      this.hold(false);
    };
    this.child.stdin!.on("error", () => undefined);
    void this.child.then(fail, fail);
  }

  /** Answers come in the order asked: `<oid> <type> <size>\n<content>\n`, or `<oid> missing\n`. */
  private drain(): void {
    while (this.waiting.length > 0) {
      const nl = this.buf.indexOf(10);
      if (nl < 0) return;
      const head = this.buf.toString("latin1", 0, nl).split(" ");
      const w = this.waiting[0]!;
      if (head.length !== 3 || head[0] !== w.oid) {
        this.buf = this.buf.subarray(nl + 1);
        this.waiting.shift();
        w.done(null);
        continue;
      }
      const size = Number(head[2]);
      if (this.buf.length < nl + 1 + size + 1) return;
      const content = Buffer.from(this.buf.subarray(nl + 1, nl + 1 + size));
      this.buf = this.buf.subarray(nl + 1 + size + 1);
      this.waiting.shift();
      w.done({ type: head[1]!, content });
    }
    if (this.waiting.length === 0) this.hold(false);
  }

  /** Held while an answer is awaited, as ref-writer.ts holds a transaction; idle, it never keeps the server alive. */
  private hold(on: boolean): void {
    for (const h of [this.child.stdout, this.child] as unknown as ({ ref?: () => void; unref?: () => void } | null)[]) {
      if (on) h?.ref?.();
      else h?.unref?.();
    }
  }

  read(oid: string): Promise<RawObject | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.close();
        resolve(null);
      }, TIMEOUT_MS);
      this.waiting.push({
        oid,
        done: (o) => {
          clearTimeout(timer);
          resolve(o);
        },
      });
      this.hold(true);
      this.child.stdin!.write(`${oid}\n`);
    });
  }

  close(): void {
    this.dead = true;
    this.child.stdin!.end();
  }
}

const readers = new Map<string, CatFile>();

/** A loose object of `commonDir`'s own store, or null (absent, packed, unreadable). */
function readLoose(commonDir: string, oid: string): RawObject | null {
  let body: Buffer;
  try {
    body = inflateSync(readFileSync(path.join(commonDir, "objects", oid.slice(0, 2), oid.slice(2))));
  } catch {
    return null;
  }
  const nul = body.indexOf(0);
  const m = /^(blob|tree|commit|tag) (\d+)$/.exec(body.toString("latin1", 0, Math.max(nul, 0)));
  if (!m || body.length - nul - 1 !== Number(m[2])) return null;
  return { type: m[1]!, content: body.subarray(nul + 1) };
}

/** The object `oid` of the repository whose common directory is `commonDir`; throws when git has none. */
export async function readObjectRaw(commonDir: string, oid: string): Promise<RawObject> {
  if (!/^[0-9a-f]{40}$/.test(oid)) throw new Error(`not an object id: ${oid}`);
  const loose = readLoose(commonDir, oid);
  if (loose) return loose;
  let r = readers.get(commonDir);
  if (!r || r.dead) readers.set(commonDir, (r = new CatFile(commonDir)));
  const o = await r.read(oid);
  if (!o) throw new Error(`git has no object ${oid}`);
  return o;
}

/** The tree of a commit object's content. */
export function commitTreeOf(content: Buffer): string {
  const m = /^tree ([0-9a-f]{40})\n/.exec(content.toString("latin1", 0, 46));
  if (!m) throw new Error("a commit without a tree line");
  return m[1]!;
}
