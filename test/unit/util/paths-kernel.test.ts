/**
 * Property: the containment check agrees with the kernel. Over generated link graphs (relative and
 * absolute links, chains, `..` inside link text, dangling links, loops) laid out as code-trm lays a
 * session out (the worktree inside the user's `.git`), for every path a client could name:
 * - where the kernel lands (`realpath`, or the file an actual `open(O_CREAT)` creates) outside the
 *   worktree or inside a `.git` means the check refused;
 * - when the check accepts, its `real` is where the kernel lands and its `entry` is the entry the
 *   kernel's lstat sees; a loop the kernel refuses (ELOOP) is refused;
 * - a real write and delete through applyPlan touch only that file (and the folders it creates), and
 *   its rollback leaves every byte of the sandbox as it was.
 * The oracle is realpath, and a real write wherever that predicts a landing inside the case's folder.
 */
import {
  existsSync,
  realpathSync as jsRealpathSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { applyPlan } from "../../../src/candidate/write.js";
import { isInside, resolveInside, resolveLinks } from "../../../src/util/paths.js";

// The oracle must be the kernel's realpath(3). Node's JS realpathSync applies `..` in a link's text
// before following the link (`a -> c/..` becomes `a -> .`), the very mistake under test: with it the
// oracle predicted a landing the kernel does not reach (seed 1937508023).
const realpathSync = jsRealpathSync.native;

const tmpBase = existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir();
const top = realpathSync(mkdtempSync(path.join(tmpBase, "trm-kernel-")));
// A few folders of margin above the cases, should a probe land higher than predicted.
const deep = path.join(top, ...Array<string>(6).fill("u"));
mkdirSync(deep, { recursive: true });
afterAll(() => rmSync(top, { recursive: true, force: true }));

const NAMES = ["a", "b", "c"] as const;
const LINK_SEGS = ["..", "..", "..", ".", "a", "b", "c", "objects", "config", ".git", "secret.txt", "checkout", "x"] as const;

type Entry = { at: string[]; kind: "dir" } | { at: string[]; kind: "file" } | { at: string[]; kind: "link"; abs: number | null; segs: string[] };

const entryArb: fc.Arbitrary<Entry> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ at: fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 2 }), kind: fc.constant("dir" as const) }) },
  { weight: 1, arbitrary: fc.record({ at: fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 2 }), kind: fc.constant("file" as const) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      at: fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 2 }),
      kind: fc.constant("link" as const),
      // null: relative text; else the index of an absolute prefix (see `anchors`).
      abs: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 3 }),
      segs: fc.array(fc.constantFrom(...LINK_SEGS), { minLength: 1, maxLength: 5 }),
    }),
  },
  // Links whose text climbs out of the worktree and back through `objects` (`d -> ../../../objects`).
  {
    weight: 2,
    arbitrary: fc.record({
      at: fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 1 }),
      kind: fc.constant("link" as const),
      abs: fc.constant(null),
      segs: fc.constantFrom(["..", "..", "..", "objects"], ["..", "..", "..", "..", "secret.txt"], ["..", "..", "..", "..", "new.txt"], ["..", "w", "a"]),
    }),
  },
);

const queryArb = fc
  .tuple(fc.constantFrom(...NAMES), fc.array(fc.constantFrom(...NAMES, "x", "config", "HEAD", "index", "secret.txt", "objects"), { maxLength: 2 }))
  .map(([first, rest]) => [first, ...rest]);

/** Every entry under `dir`: its kind and bytes (file content or link text). */
function snapshot(dir: string, out = new Map<string, string>()): Map<string, string> {
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, d.name);
    if (d.isSymbolicLink()) out.set(p, `link:${readlinkSync(p)}`);
    else if (d.isDirectory()) {
      out.set(p, "dir");
      snapshot(p, out);
    } else out.set(p, `file:${readFileSync(p, "hex")}`);
  }
  return out;
}

function changed(before: Map<string, string>, after: Map<string, string>): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((k) => before.get(k) !== after.get(k));
}

/**
 * Where the kernel lands for `abs`: its realpath; or, for a name that does not exist yet, where an
 * open(O_CREAT) creates it: the folder by realpath, then the last component's links followed one by
 * one as the kernel does for a trailing link. The prediction is then checked by a real write whenever
 * it lies inside the case's folder.
 */
function kernelLanding(abs: string, c: string): { landing: string } | { error: string } {
  const predicted = createTarget(abs, 0);
  if ("error" in predicted || !isInside(c, predicted.landing) || lstatQuiet(predicted.landing)) return predicted;
  try {
    writeFileSync(abs, "probe", { flag: "a" });
  } catch (err) {
    return { error: `probe ${(err as NodeJS.ErrnoException).code}` };
  }
  const landing = realpathSync(abs);
  unlinkSync(landing);
  return { landing };
}

function createTarget(abs: string, links: number): { landing: string } | { error: string } {
  try {
    return { landing: realpathSync(abs) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code!;
    if (code !== "ENOENT") return { error: code };
  }
  const name = path.basename(abs);
  if (name === ".." || name === "." || abs.endsWith("/")) return { error: "ENOENT" };
  let parent: string;
  try {
    parent = realpathSync(path.dirname(abs));
  } catch (err) {
    return { error: (err as NodeJS.ErrnoException).code! };
  }
  if (!lstatQuiet(parent)?.isDirectory()) return { error: "ENOTDIR" };
  const p = path.join(parent, name);
  const l = lstatQuiet(p);
  if (!l?.isSymbolicLink()) return { landing: p };
  if (links >= 40) return { error: "ELOOP" };
  const text = readlinkSync(p);
  return createTarget(text.startsWith("/") ? text : `${parent}/${text}`, links + 1);
}

function lstatQuiet(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

const inGit = (root: string, p: string) =>
  path
    .relative(root, p)
    .split(path.sep)
    .some((s) => s.toLowerCase() === ".git");

let caseNo = 0;
// Each run checks up to 6 paths on its graph: 1,000 runs are about 3,500 verdicts compared with the kernel.
const runs = Number(process.env.TRM_PROP_RUNS ?? 1000);
const stats = { accepted: 0, refused: 0, escapesRefused: 0, loops: 0, written: 0 };

describe("resolveInside agrees with the kernel", () => {
  it("on thousands of generated link graphs", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entryArb, { minLength: 1, maxLength: 8 }), fc.array(queryArb, { minLength: 1, maxLength: 6 }), async (entries, queries) => {
        const c = path.join(deep, `c${caseNo++}`);
        const checkout = path.join(c, "checkout");
        const dotgit = path.join(checkout, ".git");
        const root = path.join(dotgit, "trm", "worktrees", "w");
        mkdirSync(path.join(dotgit, "objects"), { recursive: true });
        mkdirSync(root, { recursive: true });
        writeFileSync(path.join(dotgit, "config"), "[core]\n");
        writeFileSync(path.join(dotgit, "HEAD"), "ref: refs/heads/main\n");
        writeFileSync(path.join(checkout, "secret.txt"), "secret");
        writeFileSync(path.join(root, ".git"), `gitdir: ${dotgit}\n`);
        const anchors = [root, checkout, dotgit, c];
        for (const e of entries) {
          const p = path.join(root, ...e.at);
          if (!lstatSync(path.dirname(p), { throwIfNoEntry: false })) mkdirSync(path.dirname(p));
          if (lstatSync(path.dirname(p), { throwIfNoEntry: false })?.isDirectory() !== true) continue;
          if (lstatSync(p, { throwIfNoEntry: false })) continue;
          if (e.kind === "dir") mkdirSync(p);
          else if (e.kind === "file") writeFileSync(p, "inside");
          // Joined by hand: path.join would normalise the `..` in the text, which is the very bug.
          else symlinkSync(e.abs === null ? e.segs.join("/") : `${anchors[e.abs]!}/${e.segs.join("/")}`, p);
        }
        // Only the case's folder is compared: any landing outside it fails the checks below before a write.
        const before = snapshot(c);
        try {
          for (const q of queries) {
            const rel = q.join("/");
            const abs = path.join(root, ...q);
            const verdict = await resolveInside(root, rel).then(
              (r) => ({ ok: true as const, ...r }),
              (err: Error) => ({ ok: false as const, why: err.message }),
            );
            const k = kernelLanding(abs, c);
            expect(changed(before, snapshot(c)), "the oracle's probe cleaned up").toEqual([]);
            if ("landing" in k && (!isInside(root, k.landing) || inGit(root, k.landing))) {
              expect(verdict.ok, `${rel} lands at ${k.landing}, the check must refuse`).toBe(false);
              stats.escapesRefused++;
            }
            if ("error" in k && k.error === "ELOOP") {
              expect(verdict.ok, `${rel} is a loop`).toBe(false);
              stats.loops++;
            }
            if (!verdict.ok) {
              stats.refused++;
              continue;
            }
            stats.accepted++;
            if ("landing" in k) expect(verdict.real, `${rel}: where the kernel lands`).toBe(k.landing);
            else {
              // The kernel cannot create it (a folder on the way is missing or a file): neither exists here.
              expect(["ENOENT", "ENOTDIR"]).toContain(k.error);
              const parent = lstatQuiet(path.dirname(verdict.real));
              expect(parent?.isDirectory() ?? false, `${rel}: ${k.error}, so ${path.dirname(verdict.real)} is not a folder`).toBe(false);
            }
            const l = lstatQuiet(abs);
            if (l) expect(lstatSync(verdict.entry).ino, `${rel}: the entry itself`).toBe(l.ino);
            // A real write, then a rollback: only the landing file (and folders inside) change, then nothing.
            if (lstatQuiet(verdict.real)?.isDirectory()) continue;
            const applied = await applyPlan(root, [{ op: "write", path: rel, content: Buffer.from("written"), create: false }]).catch(() => null);
            if (applied) {
              stats.written++;
              expect(readFileSync(verdict.real, "utf8")).toBe("written");
              for (const p of changed(before, snapshot(c))) {
                expect(isInside(root, p) && !inGit(root, p), `${rel}: the write changed ${p}`).toBe(true);
              }
              await applied.rollback();
            }
            expect(changed(before, snapshot(c)), `${rel}: rollback`).toEqual([]);
          }
        } finally {
          rmSync(c, { recursive: true, force: true });
        }
      }),
      {
        numRuns: runs,
        // Graphs that once broke the oracle or the check, replayed on every run.
        examples: [
          [
            [
              { at: ["c"], kind: "link", abs: null, segs: [".."] },
              { at: ["a"], kind: "link", abs: null, segs: ["c", ".."] },
            ],
            [["a", "secret.txt"], ["a"]],
          ],
        ],
      },
    );
    // The generator must reach every branch, or the property proves little.
    expect(stats.escapesRefused).toBeGreaterThan(runs / 10);
    expect(stats.accepted).toBeGreaterThan(runs);
    expect(stats.loops).toBeGreaterThan(runs / 50);
    expect(stats.written).toBeGreaterThan(runs / 2);
  }, 240_000);

  it("resolves the issue's links as the kernel does, not lexically", async () => {
    const c = path.join(deep, "issue");
    const dotgit = path.join(c, ".git");
    const root = path.join(dotgit, "trm", "worktrees", "w");
    mkdirSync(path.join(dotgit, "objects"), { recursive: true });
    mkdirSync(root, { recursive: true });
    writeFileSync(path.join(dotgit, "config"), "[core]\n");
    writeFileSync(path.join(root, "config"), "decoy\n");
    symlinkSync("../../../objects", path.join(root, "d"));
    symlinkSync("d/../config", path.join(root, "x"));
    symlinkSync("d/..", path.join(root, "g"));
    expect(await resolveLinks(path.join(root, "x"))).toBe(path.join(dotgit, "config"));
    expect(await resolveLinks(path.join(root, "g", "index"))).toBe(path.join(dotgit, "index"));
    await expect(resolveInside(root, "x")).rejects.toThrow(/leaves the worktree/);
    await expect(resolveInside(root, "g/index")).rejects.toThrow(/leaves the worktree/);
    rmSync(c, { recursive: true, force: true });
  });
});
