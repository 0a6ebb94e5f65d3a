/**
 * Hostile repositories, as an attacker would commit them: symlinks whose text goes through `..` after
 * another link (the kernel follows the link first), links to the user's SSH key and git hooks, and
 * requests, outputs and crashes meant to break the server. Every scenario ends with the user's checkout
 * byte-identical, nothing changed outside the repository and the worktree, and the server answering.
 */
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, textOf } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { checkoutState, g, makeRepo } from "../helpers/repo.js";

/** Dead includes zombie: a killed server may not be reaped yet. */
function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

type Any = Record<string, any>;
let srv: TestServer;
let parent: string;
let repo: string;
let sessionId: string;
let worktree: string;
let before: ReturnType<typeof checkoutState>;
let outsideBefore: Record<string, string>;
const SSH_KEY = "-----BEGIN OPENSSH PRIVATE KEY----- canary-7f3a9 -----END-----\n";

/** Every entry under `dir` with its bytes (or link text), following no link. */
function hashAll(dir: string, skip: (rel: string) => boolean = () => false, rel = ""): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(path.join(dir, rel))) return out;
  for (const name of readdirSync(path.join(dir, rel))) {
    const r = rel ? `${rel}/${name}` : name;
    if (skip(r)) continue;
    const p = path.join(dir, r);
    const st = lstatSync(p);
    if (st.isSymbolicLink()) out[r] = `link:${readlinkSync(p)}`;
    else if (st.isDirectory()) Object.assign(out, { [r]: "dir" }, hashAll(dir, skip, r));
    else out[r] = `${st.mode.toString(8)}:${createHash("sha1").update(readFileSync(p)).digest("hex")}`;
  }
  return out;
}

/**
 * Everything outside the worktree that an escape could change: the folder around the repository (a fake
 * home with an SSH key, a canary folder) and the user's .git minus what sessions legitimately write
 * (objects, refs, logs, the worktree registry, code-trm's own folder).
 */
function outsideState() {
  const name = path.basename(repo);
  const sessionOwned = new RegExp(`^${name}/\\.git/(objects|refs|logs|worktrees|trm|packed-refs|ORIG_HEAD)(/|$)`);
  // The checkout's own files are compared by checkoutState.
  return hashAll(parent, (r) => sessionOwned.test(r) || (r.startsWith(`${name}/`) && !r.startsWith(`${name}/.git`)));
}

async function expectRefused(name: string, args: Any, re: RegExp = /leaves the worktree|into \.git|inside \.git|symbolic link/) {
  const r = await srv.raw(name, args);
  const invalid = name === "trm_validate_candidate" && (r.structuredContent as Any | undefined)?.valid === false;
  expect(r.isError || invalid, `${name} ${JSON.stringify(args).slice(0, 200)} should be refused: ${textOf(r).slice(0, 300)}`).toBe(true);
  expect(textOf(r)).toMatch(re);
  expect(textOf(r)).not.toContain("canary-7f3a9");
  expect(textOf(r)).not.toContain("[core]");
  return textOf(r);
}

beforeAll(async () => {
  srv = await startServer();
  repo = makeRepo("js-stats");
  parent = path.dirname(repo);
  // Outside the repository: a home with a key, and a canary folder whose parent a link leads to.
  mkdirSync(path.join(parent, "home", ".ssh"), { recursive: true });
  writeFileSync(path.join(parent, "home", ".ssh", "id_rsa"), SSH_KEY);
  mkdirSync(path.join(parent, "canary", "sub"), { recursive: true });
  // The worktree lives outside the repository (in the state folder): links name the user's .git and
  // the folder around it by absolute path.
  const links: [string, string][] = [
    ["d", path.join(repo, ".git", "objects")],
    ["x", "d/../config"],
    ["g", "d/.."],
    ["deeplink", path.join(parent, "canary", "sub")],
    ["lexw", "deeplink/../OUT"],
    ["ssh", path.join(parent, "home", ".ssh", "id_rsa")],
    ["sshabs", path.join(parent, "home", ".ssh", "id_rsa")],
    ["hooks", "d/../hooks"],
    ["nested/dir/h", path.join(repo, ".git", "hooks")],
    ["dang", "d/../new-config"],
    ["inner", "src"],
  ];
  for (const [at, text] of links) {
    mkdirSync(path.dirname(path.join(repo, at)), { recursive: true });
    symlinkSync(text, path.join(repo, at));
  }
  g(repo, "add", "-A");
  g(repo, "commit", "-q", "-m", "hostile links");
  mkdirSync(path.join(repo, ".git", "hooks"), { recursive: true });
  before = checkoutState(repo);
  const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
  sessionId = s.sessionId;
  worktree = s.worktreePath;
  outsideBefore = outsideState();
});

afterAll(async () => {
  // The server still answers, the user's checkout is byte-identical, nothing outside changed.
  await expect(srv.client.ping()).resolves.toBeDefined();
  await srv.close();
  expect(checkoutState(repo)).toEqual(before);
  expect(outsideState()).toEqual(outsideBefore);
  expect(existsSync(path.join(parent, "canary", "OUT"))).toBe(false);
  expect(existsSync(path.join(repo, ".git", "new-config"))).toBe(false);
});

describe("links whose text goes up after another link", () => {
  it("a modify or a whole-file write of x (-> d/../config) cannot reach the user's .git/config", async () => {
    await expectRefused("trm_submit_candidate", {
      sessionId,
      rationale: "r",
      candidate: {
        mode: "modify",
        changes: [{ file: "x", edits: [{ type: "replace", oldText: "[core]", newText: "[core]\n\tfsmonitor = touch /tmp/pwned" }] }],
      },
    });
    await expectRefused("trm_submit_candidate", { sessionId, rationale: "r", candidate: filesCandidate("x", "[core]\n\tfsmonitor = touch /tmp/pwned\n") });
    await expectRefused("trm_validate_candidate", { sessionId, candidate: filesCandidate("x", "[core]\n") });
  });

  it("reads through g (-> d/..) and x cannot see .git/config, HEAD or index, now or at a past point", async () => {
    for (const p of ["g/config", "g/HEAD", "g/index", "x", "d/../config"]) {
      const r = await srv.raw("trm_read_files", { sessionId, paths: [p] });
      expect(textOf(r)).not.toContain("[core]");
      expect(textOf(r)).not.toContain("refs/heads");
      if (!p.includes("..")) expect(r.isError, p).toBe(true);
    }
    await expectRefused("trm_read_lines", { sessionId, file: "x", startLine: 1, endLine: 5 });
    await expectRefused("trm_read_lines", { sessionId, file: "g/config", startLine: 1, endLine: 5 });
    // A past point reads git objects: g/config is no path of the tree (g is a link blob), never the file.
    const past = await srv.raw("trm_read_files", { sessionId, paths: ["g/config", "x"], at: "baseline" });
    expect(textOf(past)).not.toContain("[core]");
    const files = (past.structuredContent as Any | undefined)?.files as Any[] | undefined;
    if (files) expect(files.find((f) => f.path === "x")?.content ?? "").toBe("d/../config");
  });

  it("the user's SSH key cannot be read through a relative or an absolute link", async () => {
    await expectRefused("trm_read_files", { sessionId, paths: ["ssh"] });
    await expectRefused("trm_read_files", { sessionId, paths: ["sshabs"] });
    await expectRefused("trm_read_lines", { sessionId, file: "sshabs", startLine: 1, endLine: 1 });
    // Nor brought into the session by a patch that copies or renames the link.
    const copy = "diff --git a/ssh b/stolen.txt\nsimilarity index 100%\ncopy from ssh\ncopy to stolen.txt\n";
    await expectRefused("trm_submit_candidate", { sessionId, rationale: "r", candidate: { mode: "patch", patch: copy } });
    const rename = "diff --git a/x b/cfg.txt\nsimilarity index 100%\nrename from x\nrename to cfg.txt\n";
    await expectRefused("trm_submit_candidate", { sessionId, rationale: "r", candidate: { mode: "patch", patch: rename } });
    const log = g(repo, "log", "--all", "-p", "--notes=*");
    expect(log).not.toContain("canary-7f3a9");
    expect(log).not.toContain("repositoryformatversion");
  });

  it("lexw (-> deeplink/../OUT) writes nothing outside, and the failed step leaves nothing behind", async () => {
    await expectRefused("trm_submit_candidate", { sessionId, rationale: "r", candidate: filesCandidate("lexw", "escaped\n") });
    // Several files, the bad one last: the good ones written first are rolled back too.
    await expectRefused("trm_submit_candidate", {
      sessionId,
      rationale: "r",
      candidate: {
        mode: "files",
        files: [
          { path: "ok/new.txt", content: "fine\n" },
          { path: "lexw", content: "escaped\n" },
        ],
      },
    });
    expect(existsSync(path.join(worktree, "ok"))).toBe(false);
    expect(existsSync(path.join(parent, "canary", "OUT"))).toBe(false);
  });

  it("git hooks cannot be planted through a link, also from a nested folder", async () => {
    await expectRefused("trm_submit_candidate", { sessionId, rationale: "r", candidate: filesCandidate("hooks/pre-commit", "#!/bin/sh\ntouch /tmp/pwned\n") });
    await expectRefused("trm_submit_candidate", { sessionId, rationale: "r", candidate: filesCandidate("nested/dir/h/post-checkout", "#!/bin/sh\n") });
    await expectRefused("trm_submit_candidate", {
      sessionId,
      rationale: "r",
      candidate: { mode: "create", files: [{ path: "nested/dir/h/pre-push", content: "#!/bin/sh\n" }] },
    });
  });

  it("a dangling link cannot create a file in .git; deletes through links are refused", async () => {
    await expectRefused("trm_submit_candidate", { sessionId, rationale: "r", candidate: filesCandidate("dang", "[core]\n") });
    await expectRefused("trm_submit_candidate", { sessionId, rationale: "r", candidate: { mode: "delete", paths: ["g/index"] } });
    await expectRefused("trm_submit_candidate", { sessionId, rationale: "r", candidate: { mode: "delete", paths: ["g/config"] } });
  });

  it("spellings of .git and of a path are all refused or normalised", async () => {
    for (const p of [".GIT/config", "src/.Git/hooks/x", ".git", "./.git/config", "x/", "./x", "x/.", "src/../x", "g//config"]) {
      await expectRefused("trm_submit_candidate", { sessionId, rationale: "r", candidate: filesCandidate(p, "[core]\n") }, /.+/);
    }
  });

  it("a link that stays inside still works (control): inner/x.js lands in src", async () => {
    const r = await srv.call<Any>("trm_submit_candidate", {
      sessionId,
      rationale: "via a link inside",
      candidate: filesCandidate("inner/extra.js", "export const x = 1;\n"),
    });
    expect(r.step).toBe(1);
    expect(readFileSync(path.join(worktree, "src", "extra.js"), "utf8")).toBe("export const x = 1;\n");
  });

  it("testReport g/index never deletes or reads the user's .git/index", async () => {
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test", testReport: "g/index" });
    const r = await srv.raw("trm_submit_candidate", { sessionId: s.sessionId, rationale: "r", candidate: filesCandidate("src/y.js", "export const y = 2;\n") });
    expect(textOf(r)).toMatch(/leaves the worktree|symbolic link/);
    expect(existsSync(path.join(repo, ".git", "index"))).toBe(true);
    await srv.call("trm_end_session", { sessionId: s.sessionId, discard: true });
  });
});

describe("deleting the links themselves", () => {
  it("a delete removes a committed link as itself, wherever it points, and touches nothing it points at", async () => {
    // Its own session: the other tests need the links in place.
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
    const paths = ["inner", "x", "g", "dang", "ssh", "sshabs", "nested/dir/h"];
    const v = await srv.call<Any>("trm_validate_candidate", { sessionId: s.sessionId, candidate: { mode: "delete", paths } });
    expect(v.valid).toBe(true);
    expect(v.preview.filesAffected).toEqual(paths);
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, rationale: "drop the links", candidate: { mode: "delete", paths } });
    expect(r.step).toBe(1);
    const tree = g(repo, "ls-tree", "-r", "--name-only", r.commit).split("\n");
    for (const p of paths) {
      expect(tree, p).not.toContain(p);
      expect(existsSync(path.join(s.worktreePath, p)) || lstatSync(path.join(s.worktreePath, p), { throwIfNoEntry: false }) !== undefined, p).toBe(false);
    }
    // inner pointed at src: the folder and its files are still there, in the worktree and the commit.
    expect(tree).toContain("src/stats.js");
    expect(existsSync(path.join(s.worktreePath, "src", "stats.js"))).toBe(true);
    // The rest (the key, the user's .git, the canary) is checked after all tests (afterAll).
    expect(readFileSync(path.join(parent, "home", ".ssh", "id_rsa"), "utf8")).toBe(SSH_KEY);
    await srv.call("trm_end_session", { sessionId: s.sessionId, discard: true });
  });

  it("a delete below a link that leaves the worktree or enters .git is still refused", async () => {
    for (const p of ["g/config", "g/index", "d/HEAD", "deeplink/x", "nested/dir/h/pre-commit"]) {
      await expectRefused("trm_submit_candidate", { sessionId, rationale: "r", candidate: { mode: "delete", paths: [p] } }, /.+/);
    }
  });
});

describe("hostile output, large requests, crashes", () => {
  it("a flood of escapes neither stalls another session nor breaks a timeout", async () => {
    // ESC[ and 60,000 ';' again and again, and never an end: the former ANSI pattern took 45 s per flood.
    const script = "const f='\\x1b['+';'.repeat(60000);process.stdout.write(f+'\\n');setInterval(()=>process.stdout.write(f),20)";
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: `node -e "${script}"`, timeoutSec: 3 });
    const t0 = Date.now();
    const submit = srv.raw("trm_submit_candidate", { sessionId: s.sessionId, rationale: "flood", candidate: filesCandidate("src/flood.js", "export {};\n") });
    let worstPing = 0;
    let done = false;
    void submit.finally(() => (done = true));
    while (!done) {
      const p0 = Date.now();
      await srv.call("trm_get_state", { sessionId });
      worstPing = Math.max(worstPing, Date.now() - p0);
      await new Promise((r) => setTimeout(r, 100));
    }
    const r = await submit;
    const took = Date.now() - t0;
    expect(r.isError, textOf(r)).toBeFalsy();
    expect((r.structuredContent as Any).score).toBe(0);
    expect(textOf(r)).toMatch(/timed out|timeout/i);
    // Generous bounds for a loaded machine: the flood used to hold the event loop for minutes.
    expect(took).toBeLessThan(30_000);
    expect(worstPing).toBeLessThan(3_000);
    await srv.call("trm_end_session", { sessionId: s.sessionId, discard: true });
  });

  it("three 3.5 MiB files are accepted; a request past the transport's limit gets an error for id null and the server stays up", async () => {
    const big = (c: string) => `${c.repeat(99)}\n`.repeat(Math.ceil((3.5 * 1024 * 1024) / 100));
    const files = ["a", "b", "c"].map((c) => ({ path: `big/${c}.txt`, content: big(c) }));
    const r = await srv.call<Any>("trm_submit_candidate", { sessionId, rationale: "three large files", candidate: { mode: "files", files } });
    expect(r.step).toBeGreaterThan(1);
    expect(readFileSync(path.join(worktree, "big", "c.txt"), "utf8")).toBe(files[2]!.content);
    // 122 MiB of content: past LIMITS.maxRequestBytes (121 MiB) as sent.
    const huge = "x".repeat(122 * 1024 * 1024);
    // Its id is not read: the answer has id null, which the SDK's client reports as an error of its own and
    // matches to no request (the call is then given up), and the client goes on reading.
    const errors: Error[] = [];
    srv.client.onerror = (e) => errors.push(e);
    const stop = new AbortController();
    const call = srv.client.callTool(
      { name: "trm_submit_candidate", arguments: { sessionId, rationale: "too big", candidate: filesCandidate("huge.txt", huge) } },
      undefined,
      { signal: stop.signal, timeout: 120_000 },
    );
    for (let i = 0; i < 1200 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(errors).toHaveLength(1);
    stop.abort();
    await expect(call).rejects.toThrow(/abort/i);
    await expect(srv.client.ping()).resolves.toBeDefined();
    await expect(srv.call<Any>("trm_get_state", { sessionId })).resolves.toMatchObject({ step: r.step });
  });

  it("a server killed while a candidate was written: the next one puts the worktree at the session tip", async () => {
    // The session's own server is killed outright: a live owner's worktree is never reset by another server.
    const owner = await startServer({ stateDir: srv.stateDir });
    const s = await owner.call<Any>("trm_start_session", { repoPath: repo, testCmd: "node --test" });
    const wt: string = s.worktreePath;
    process.kill(owner.pid!, "SIGKILL");
    for (let i = 0; i < 100 && alive(owner.pid!); i++) await new Promise((r) => setTimeout(r, 50));
    // What a server killed between writing and committing leaves: its record of the write, a new file in
    // a new folder, a tracked file changed, a file a command left in node_modules: all go, for the next
    // step starts from the tip and what the session keeps (leftovers.ts).
    const journal = path.join(repo, ".git", "trm", "run", `${s.sessionId}.writing`);
    mkdirSync(path.dirname(journal), { recursive: true });
    writeFileSync(journal, JSON.stringify({ v: 1, paths: ["crash/deep/new.js", "src/stats.js"] }));
    mkdirSync(path.join(wt, "crash", "deep"), { recursive: true });
    writeFileSync(path.join(wt, "crash", "deep", "new.js"), "half written");
    const tracked = readFileSync(path.join(wt, "src", "stats.js"), "utf8");
    writeFileSync(path.join(wt, "src", "stats.js"), "half written");
    mkdirSync(path.join(wt, "node_modules", "dep"), { recursive: true });
    writeFileSync(path.join(wt, "node_modules", "dep", "index.js"), "module.exports = 1;\n");
    const fresh = await startServer({ stateDir: srv.stateDir });
    try {
      await fresh.call("trm_get_state", { sessionId: s.sessionId });
      expect(existsSync(path.join(wt, "crash"))).toBe(false);
      expect(readFileSync(path.join(wt, "src", "stats.js"), "utf8")).toBe(tracked);
      expect(existsSync(path.join(wt, "node_modules"))).toBe(false);
      expect(existsSync(journal)).toBe(false);
      expect(g(wt, "status", "--porcelain")).toBe("");
    } finally {
      await fresh.close();
    }
    await srv.call("trm_end_session", { sessionId: s.sessionId, discard: true });
  });
});
