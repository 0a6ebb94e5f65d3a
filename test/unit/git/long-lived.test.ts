import { readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { attributesOf } from "../../../src/git/attributes.js";
import { closeAllGitProcesses, closeGitProcesses, inTurn } from "../../../src/git/long-lived.js";
import { readObjectRaw } from "../../../src/git/object-read.js";
import { runRefTransaction } from "../../../src/git/ref-writer.js";
import { g, removeTmpDirs, tmpDir } from "../../helpers/repo.js";

afterAll(removeTmpDirs);

/** The git processes this process started in `dir`, by their subcommand (e.g. ["check-attr", "update-ref"]). */
function gitChildrenIn(dir: string): string[] {
  const found: string[] = [];
  for (const p of readdirSync("/proc")) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) !== process.pid || fields[0] === "Z" || readlinkSync(`/proc/${p}/cwd`) !== dir) continue;
      const argv = readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0");
      const sub = argv.find((a) => ["update-ref", "cat-file", "check-attr"].includes(a));
      if (sub) found.push(sub);
    } catch {
      // gone meanwhile
    }
  }
  return found.sort();
}

/** The pid of this process's git `sub` running in `dir` (exactly one). */
function pidIn(dir: string, sub: string): number {
  const found: number[] = [];
  for (const p of readdirSync("/proc")) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== process.pid || readlinkSync(`/proc/${p}/cwd`) !== dir) continue;
      if (readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").includes(sub)) found.push(Number(p));
    } catch {
      // gone meanwhile
    }
  }
  expect(found).toHaveLength(1);
  return found[0]!;
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 25));
}

function repo(): { dir: string; head: string } {
  const dir = tmpDir("trm-long-");
  g(dir, "init", "-q", "-b", "main");
  writeFileSync(path.join(dir, "a.txt"), "a\n");
  g(dir, "add", "-A");
  g(dir, "commit", "-q", "-m", "one");
  return { dir, head: g(dir, "rev-parse", "HEAD").trim() };
}

describe("the long-lived git processes (git/long-lived.ts)", () => {
  it("keeps one process per kind and worktree, ends them with the worktree, and starts anew at the next question", async () => {
    const { dir, head } = repo();
    await runRefTransaction(dir, [{ ref: "refs/trm/x/a", next: head, expected: null }], "test");
    expect(await attributesOf(dir, path.join(dir, ".git"), ["a.txt"])).not.toBeNull();
    await runRefTransaction(dir, [{ ref: "refs/trm/x/b", next: head, expected: null }], "test");
    expect(await attributesOf(dir, path.join(dir, ".git"), ["a.txt", "b.txt"])).not.toBeNull();
    // Reused: two questions of each kind, one process of each.
    expect(gitChildrenIn(dir)).toEqual(["check-attr", "update-ref"]);
    closeGitProcesses(dir);
    await until(() => gitChildrenIn(dir).length === 0);
    expect(gitChildrenIn(dir)).toEqual([]);
    await runRefTransaction(dir, [{ ref: "refs/trm/x/c", next: head, expected: null }], "test");
    expect(g(dir, "rev-parse", "refs/trm/x/c").trim()).toBe(head);
    expect(gitChildrenIn(dir)).toEqual(["update-ref"]);
    closeGitProcesses(dir);
    await until(() => gitChildrenIn(dir).length === 0);
  });

  it("ends every one at server exit, of every repository and kind", async () => {
    const a = repo();
    const b = repo();
    g(b.dir, "gc", "-q"); // packed: the read goes through cat-file
    await runRefTransaction(a.dir, [{ ref: "refs/trm/x/a", next: a.head, expected: null }], "test");
    expect((await readObjectRaw(path.join(b.dir, ".git"), b.head)).type).toBe("commit");
    expect(gitChildrenIn(a.dir)).toEqual(["update-ref"]);
    expect(gitChildrenIn(path.join(b.dir, ".git"))).toEqual(["cat-file"]);
    closeAllGitProcesses();
    await until(() => gitChildrenIn(a.dir).length + gitChildrenIn(path.join(b.dir, ".git")).length === 0);
    expect([...gitChildrenIn(a.dir), ...gitChildrenIn(path.join(b.dir, ".git"))]).toEqual([]);
  });

  it("moves the refs through a new update-ref when the one asked had been killed between transactions", async () => {
    const { dir, head } = repo();
    await runRefTransaction(dir, [{ ref: "refs/trm/x/a", next: head, expected: null }], "test");
    const pid = pidIn(dir, "update-ref");
    // A command of the session may kill it (as cat-file's, object-read.test.ts): its exit is not seen yet.
    process.kill(pid, "SIGKILL");
    await runRefTransaction(dir, [{ ref: "refs/trm/x/b", next: head, expected: null }], "test");
    expect(g(dir, "rev-parse", "refs/trm/x/b").trim()).toBe(head);
    closeGitProcesses(dir);
    await until(() => gitChildrenIn(dir).length === 0);
  });

  it("answers one question at a time per process, also after one failed", async () => {
    const order: string[] = [];
    const slow =
      (name: string, fail = false) =>
      async () => {
        order.push(`${name} start`);
        await new Promise((r) => setTimeout(r, 20));
        order.push(`${name} end`);
        if (fail) throw new Error(name);
        return name;
      };
    const first = inTurn("update-ref", "/nowhere", slow("one", true));
    const second = inTurn("update-ref", "/nowhere", slow("two"));
    await expect(first).rejects.toThrow("one");
    await expect(second).resolves.toBe("two");
    expect(order).toEqual(["one start", "one end", "two start", "two end"]);
  });
});
