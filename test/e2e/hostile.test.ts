import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { textOf, tmpEnv } from "../helpers/client.js";
import { filesCandidate, MEDIAN_RIGHT, statsWith } from "../helpers/fixtures.js";
/**
 * Hostile commands and hostile timing (issue 9, items 2, 6, 7, 8 and the sandbox). Every scenario ends
 * with the user's checkout byte-identical, nothing changed outside the repository and the worktree,
 * the canary credentials absent from every tool output and every git object, and the server answering.
 */
import { type Any, BIN, expectNoCanary, hostileServer, outsideWorld, repoOf, SECRETS, tmp, until } from "../helpers/hostile.js";
import { checkoutState, g, makeMessy } from "../helpers/repo.js";

function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

function cli(cwd: string, stateDir: string, home: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...tmpEnv(), PATH: process.env.PATH ?? "", HOME: home, CODE_TRM_STATE_DIR: stateDir, GIT_CONFIG_NOSYSTEM: "1" },
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("credentials", () => {
  it("a test that prints the environment, the tokens and their base64 shows none of them, anywhere", async () => {
    const w = outsideWorld();
    const repo = repoOf();
    makeMessy(repo, "src/stats.js");
    const before = checkoutState(repo);
    const outsideBefore = w.snap();
    const h = await hostileServer({ home: w.home });
    const s = await h.call("trm_start_session", {
      repoPath: repo,
      testCmd: 'env; echo "t=$GITHUB_TOKEN g=$GH_TOKEN n=$NPM_TOKEN"; printf %s "$GITHUB_TOKEN" | base64; cat ~/.git-credentials 2>/dev/null; node --test',
      setupCmd: "env",
      preflight: true,
    });
    expect(s.setup.output).toContain("PATH=");
    expect(s.setup.output).not.toContain("GITHUB_TOKEN");
    const r = await h.call("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)),
      rationale: "fix median",
    });
    expect(r.tests.failed).toBe(0);
    const log = await h.call("trm_read_log", { sessionId: s.sessionId, command: "test" });
    expect(log.content).toContain("PATH=");
    expect(log.content).toContain("t= g= n=");
    await h.call("trm_get_state", { sessionId: s.sessionId });
    await h.call("trm_end_session", { sessionId: s.sessionId });
    expectNoCanary(repo, h.seen);
    expect(checkoutState(repo)).toEqual(before);
    expect(w.snap()).toBe(outsideBefore);
    await h.srv.close();
  });

  it("passEnv: the command may use the token but nothing stores it, and a file holding it is not committed", async () => {
    const w = outsideWorld();
    const repo = repoOf();
    const before = checkoutState(repo);
    const outsideBefore = w.snap();
    const h = await hostileServer({ home: w.home });
    // Printed whole, in two pieces with a pause, with a colour code inside, in base64; written to a file.
    const testCmd = [
      // Compared through a hash: the command text itself is shown in results and must not hold the value.
      `test "$(printf %s "$DEPLOY_TOKEN" | sha256sum | cut -c1-32)" = ${createHash("sha256").update(SECRETS.DEPLOY_TOKEN!).digest("hex").slice(0, 32)} && echo token-usable`,
      `printf '%s' "$DEPLOY_TOKEN" | head -c 12; sleep 0.2; printf '%s\\n' "$DEPLOY_TOKEN" | tail -c +13`,
      `printf 'ghp_\\033[1m%s\\n' "\${DEPLOY_TOKEN#ghp_}"`,
      `printf %s "$DEPLOY_TOKEN" | base64 -w0; echo`,
      "node --test",
    ].join("; ");
    // Written by setupCmd, which the session keeps (a step's own commands' files are removed before the next step).
    const setupCmd = `echo "$DEPLOY_TOKEN" > leak.txt`;
    const s = await h.call("trm_start_session", { repoPath: repo, testCmd, setupCmd, passEnv: "DEPLOY_TOKEN", preflight: true });
    const log = await h.call("trm_read_log", { sessionId: s.sessionId, at: "baseline", command: "test" });
    expect(log.content).toContain("token-usable");
    expect(log.content).toContain("[redacted]");
    // The file the setup wrote is in the worktree but was not committed; a candidate that keeps it is refused.
    expect(readFileSync(path.join(s.worktreePath, "leak.txt"), "utf8")).toContain("canary7Qx2");
    const refused = await h.raw("trm_submit_candidate", {
      sessionId: s.sessionId,
      candidate: { mode: "modify", changes: [{ file: "leak.txt", edits: [{ type: "insertAfter", line: 1, content: "more" }] }] },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/leak\.txt contains the value of a credential[\s\S]*Remove the value/);
    const r = await h.call("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)) });
    expect(r.step).toBe(1);
    await h.call("trm_end_session", { sessionId: s.sessionId });
    expectNoCanary(repo, h.seen);
    expect(checkoutState(repo)).toEqual(before);
    expect(w.snap()).toBe(outsideBefore);
    await h.srv.close();
  });
});

describe("processes a command leaves behind", () => {
  it("a setsid daemon writing into the worktree is gone when its step ends", async () => {
    const w = outsideWorld();
    const repo = repoOf();
    const before = checkoutState(repo);
    const h = await hostileServer({ home: w.home });
    // Its files outside the worktree: what a step's commands leave in the worktree is removed after the step.
    const out = tmp("trm-daemon-");
    const daemon = `setsid sh -c 'echo $$ > ${out}/daemon.pid; while :; do date >> ${out}/daemon.log; sleep 0.05; done' </dev/null >/dev/null 2>&1 &`;
    const s = await h.call("trm_start_session", { repoPath: repo, testCmd: `${daemon} sleep 0.3; node --test` });
    await h.call("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)) });
    const pid = Number(readFileSync(path.join(out, "daemon.pid"), "utf8"));
    await until(() => !alive(pid), 3000);
    const size = statSync(path.join(out, "daemon.log")).size;
    await new Promise((r) => setTimeout(r, 300));
    expect(statSync(path.join(out, "daemon.log")).size).toBe(size);
    await h.call("trm_end_session", { sessionId: s.sessionId });
    expect(checkoutState(repo)).toEqual(before);
    expectNoCanary(repo, h.seen);
    await h.srv.close();
  });
});

describe("two servers, one session", () => {
  it("the second is told the session is in use and never kills the first one's test; a dead owner is taken over", async () => {
    const w = outsideWorld();
    const repo = repoOf();
    const before = checkoutState(repo);
    const stateDir = tmp("trm-state-");
    const flag = path.join(w.outside, "slow");
    const a = await hostileServer({ home: w.home, stateDir });
    const s = await a.call("trm_start_session", { repoPath: repo, testCmd: `while test -f ${flag}; do sleep 0.05; done; node --test` });
    writeFileSync(flag, "");
    const pending = a.call("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)) });
    await until(() => existsSync(path.join(repo, ".git", "trm", "run", `${s.sessionId}.pgid`)));
    const b = await hostileServer({ home: w.home, stateDir });
    const busy = await b.raw("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("a.txt", "a\n") });
    expect(busy.isError).toBe(true);
    expect(textOf(busy)).toContain(`in use by process ${a.srv.pid}`);
    expect(textOf(busy)).toMatch(/Stop that server|wait/);
    rmSync(flag);
    const done = await pending;
    expect(done.tests.failed).toBe(0);
    expect(done.score).toBe(1);
    // The owner dies without ending the session: the next server takes it over.
    process.kill(a.srv.pid!, "SIGKILL");
    await until(() => !alive(a.srv.pid!));
    const r = await b.call("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("a.txt", "a\n") });
    expect(r.step).toBe(2);
    expect(checkoutState(repo)).toEqual(before);
    expectNoCanary(repo, [...a.seen, ...b.seen]);
    await b.srv.close();
  });
});

describe("the session index", () => {
  it("keeps every entry of 8 parallel starts in one server and 3 in each of four servers", async () => {
    const w = outsideWorld();
    const stateDir = tmp("trm-state-");
    const repo = repoOf();
    const before = checkoutState(repo);
    const one = await hostileServer({ home: w.home, stateDir });
    const four = await Promise.all([0, 1, 2, 3].map(() => hostileServer({ home: w.home, stateDir })));
    const start = (h: typeof one) => h.call("trm_start_session", { repoPath: repo, testCmd: "node --test" }).then((x) => x.sessionId as string);
    const ids = (await Promise.all([...Array.from({ length: 8 }, () => start(one)), ...four.flatMap((h) => [start(h), start(h), start(h)])])).flat();
    expect(new Set(ids).size).toBe(20);
    for (const h of [one, ...four]) await h.srv.close();
    const index = JSON.parse(readFileSync(path.join(stateDir, "sessions.json"), "utf8")) as Record<string, string>;
    expect(Object.keys(index).sort()).toEqual([...ids].sort());
    // No temporary or lock file of the index is left (repos/ holds the worktrees).
    expect(readdirSync(stateDir).filter((n) => n !== "sessions.json" && n !== "repos")).toEqual([]);
    const fresh = await hostileServer({ home: w.home, stateDir });
    for (const id of ids) expect((await fresh.call("trm_get_state", { sessionId: id })).step).toBe(0);
    expect(checkoutState(repo)).toEqual(before);
    await fresh.srv.close();
  });
});

describe("prune and interrupted starts", () => {
  it("prune --older-than 0 leaves a session whose test is running alone", async () => {
    const w = outsideWorld();
    const stateDir = tmp("trm-state-");
    const repo = repoOf();
    const before = checkoutState(repo);
    const flag = path.join(w.outside, "slow");
    const h = await hostileServer({ home: w.home, stateDir });
    const s = await h.call("trm_start_session", { repoPath: repo, testCmd: `while test -f ${flag}; do sleep 0.05; done; node --test` });
    writeFileSync(flag, "");
    const pending = h.call("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("src/stats.js", statsWith(repo, MEDIAN_RIGHT)) });
    await until(() => existsSync(path.join(repo, ".git", "trm", "run", `${s.sessionId}.pgid`)));
    const p = cli(repo, stateDir, w.home, "prune", "--older-than", "0", "--delete-branches");
    expect(p.code).toBe(0);
    expect(p.out).toContain(`session ${s.sessionId}`);
    expect(p.out).toContain(`in use by process ${h.srv.pid}`);
    expect(existsSync(s.worktreePath)).toBe(true);
    rmSync(flag);
    expect((await pending).step).toBe(1);
    expect(checkoutState(repo)).toEqual(before);
    await h.srv.close();
  });

  it("a server killed during a start leaves nothing that prune does not remove, and prune says so", async () => {
    const w = outsideWorld();
    const stateDir = tmp("trm-state-");
    const repo = repoOf();
    const before = checkoutState(repo);
    const h = await hostileServer({ home: w.home, stateDir });
    const started = path.join(w.outside, "setup-started");
    const pending = h.call("trm_start_session", { repoPath: repo, testCmd: "node --test", setupCmd: `touch ${started}; sleep 60` }).catch((e: Error) => e);
    await until(() => existsSync(started));
    process.kill(h.srv.pid!, "SIGKILL");
    expect(await pending).toBeInstanceOf(Error);
    rmSync(started);
    const id = readdirSync(path.join(repo, ".git", "trm", "run"))
      .find((n) => n.endsWith(".starting"))!
      .replace(/\.starting$/, "");
    expect(g(repo, "for-each-ref", "refs/heads/trm/")).toContain(id);
    const [root] = readdirSync(path.join(stateDir, "repos")).map((n) => path.join(stateDir, "repos", n));
    expect(readdirSync(path.join(root!, "worktrees"))).toContain(`trm-${id}`);
    const p = cli(repo, stateDir, w.home, "prune");
    expect(p.code).toBe(0);
    expect(p.out).toMatch(new RegExp(`session ${id} \\(left behind by a start that was killed`));
    expect(g(repo, "for-each-ref", "refs/heads/trm/", "refs/tags/trm/", "refs/notes/", "refs/trm/")).toBe("");
    expect(readdirSync(path.join(repo, ".git", "trm", "run"))).toEqual([]);
    // code-trm's folder of the repository (worktrees, tmp), in the state folder: the worktree is gone.
    expect(readdirSync(path.join(root!, "tmp")).filter((n) => n.startsWith("index-"))).toEqual([]);
    expect(readdirSync(path.join(root!, "worktrees"))).not.toContain(`trm-${id}`);
    expect(readdirSync(stateDir).filter((n) => n.endsWith(".tmp") || n.endsWith(".lock"))).toEqual([]);
    expect(checkoutState(repo)).toEqual(before);
  });
});

const hasBwrap = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0;
// In CI the sandbox tests must run: .ci/run installs bubblewrap, and a missing one is a failure there.
const sandboxTests = hasBwrap || process.env.CI === "true" ? describe : describe.skip;

sandboxTests("sandbox: true (bubblewrap)", () => {
  it("keeps writes in the worktree, hides ~/.ssh, cuts the network and ends every process of the command", async () => {
    expect(hasBwrap, "bwrap is missing: apt-get install -y bubblewrap").toBe(true);
    const w = outsideWorld();
    const repo = repoOf();
    makeMessy(repo, "src/stats.js");
    const before = checkoutState(repo);
    const outsideBefore = w.snap();
    const server = http.createServer((_q, res) => res.end("reached")).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const port = (server.address() as { port: number }).port;
    const h = await hostileServer({ home: w.home });
    const attacks = [
      `echo pwned >> ${path.join(repo, "src", "stats.js")} || echo blocked""-checkout`,
      `echo '[core] fsmonitor = touch /tmp/x' >> ${path.join(repo, ".git", "config")} || echo blocked""-gitconfig`,
      `touch ${path.join(w.outside, "pwned")} || echo blocked""-outside`,
      `touch ${path.join(w.home, "pwned")} || echo blocked""-home`,
      `cat ~/.ssh/id_ed25519 || echo blocked""-ssh`,
      `node -e 'fetch("http://127.0.0.1:${port}").then(r=>r.text()).then(t=>console.log("net-"+t),()=>console.log("blocked"+"-net"))'`,
      `env -i /usr/bin/setsid sh -c 'while :; do date >> escaped.log; sleep 0.05; done' </dev/null >/dev/null 2>&1 &`,
      "echo pri''vate > /tmp/mine && cat /tmp/mine",
      "echo wrote''-worktree > written-in-worktree.txt && cat written-in-worktree.txt",
      // The server's git calls find the repository through the worktree's .git file (a smudge filter
      // of the command's own would run outside the sandbox).
      `echo 'gitdir: .evil' > .git || echo blocked""-pointer`,
      `test -z "$SSH_AUTH_SOCK$DBUS_SESSION_BUS_ADDRESS" && ! ls /run/* >/dev/null 2>&1 && echo hidden""-sockets`,
      "sleep 0.3; node --test",
    ].join("\n");
    const s = await h.call("trm_start_session", { repoPath: repo, testCmd: attacks, sandbox: true, preflight: true });
    expect(s.sandbox).toBe(true);
    const log = (await h.call("trm_read_log", { sessionId: s.sessionId, at: "baseline", command: "test" })).content as string;
    // $HOME lives in /tmp here, so its write lands in the private /tmp (checked by the snapshot below).
    for (const b of ["blocked-checkout", "blocked-gitconfig", "blocked-outside", "blocked-ssh", "blocked-net", "blocked-pointer", "hidden-sockets"])
      expect(log).toContain(b);
    expect(readFileSync(path.join(s.worktreePath, ".git"), "utf8")).toMatch(/^gitdir: \//);
    expect(log).toContain("private");
    expect(log).toContain("wrote-worktree");
    // The daemon with an emptied environment escaped the marker, not the pid namespace: once the step's
    // leftovers are removed (settled by the next call), nothing writes its log again.
    await h.call("trm_get_state", { sessionId: s.sessionId });
    expect(existsSync(path.join(s.worktreePath, "written-in-worktree.txt"))).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(path.join(s.worktreePath, "escaped.log"))).toBe(false);
    // network: true lets the same command through.
    const n = await h.call("trm_start_session", {
      repoPath: repo,
      testCmd: `node -e 'fetch("http://127.0.0.1:${port}").then(r=>r.text()).then(t=>console.log("net-"+t),()=>console.log("blocked-net"))'`,
      sandbox: true,
      network: true,
      preflight: true,
    });
    expect((await h.call("trm_read_log", { sessionId: n.sessionId, at: "baseline", command: "test" })).content).toContain("net-reached");
    server.close();
    expectNoCanary(repo, h.seen);
    expect(checkoutState(repo)).toEqual(before);
    expect(w.snap()).toBe(outsideBefore);
    await h.call("trm_list_sessions", { repoPath: repo });
    await h.srv.close();
  });

  it("a read-only .git is named as the cause, with what to do (server run with .git mounted read-only)", async () => {
    const w = outsideWorld();
    const repo = repoOf();
    const before = checkoutState(repo);
    const transport = new StdioClientTransport({
      command: "bwrap",
      args: [
        "--bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--ro-bind",
        path.join(repo, ".git"),
        path.join(repo, ".git"),
        "--die-with-parent",
        process.execPath,
        BIN,
      ],
      env: { ...tmpEnv(), PATH: process.env.PATH ?? "", HOME: w.home, CODE_TRM_STATE_DIR: tmp("trm-state-"), GIT_CONFIG_NOSYSTEM: "1" },
      stderr: "pipe",
    });
    const client = new Client({ name: "trm-e2e", version: "0.0.0" });
    await client.connect(transport);
    const r = (await client.callTool({ name: "trm_start_session", arguments: { repoPath: repo, testCmd: "true" } })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/cannot write.*read-only file system[\s\S]*What to do: .*writable clone/);
    expect(textOf(r)).not.toMatch(/Unexpected error/);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    expect(checkoutState(repo)).toEqual(before);
  });

  it("without bwrap the start fails with the install command and creates nothing", async () => {
    const w = outsideWorld();
    const repo = repoOf();
    const before = checkoutState(repo);
    const bin = tmp("trm-bin-");
    for (const t of ["git", "sh", "bash"])
      execFileSync("ln", [
        "-s",
        execFileSync("sh", ["-c", `command -v ${t}`])
          .toString()
          .trim(),
        path.join(bin, t),
      ]);
    const h = await hostileServer({ home: w.home, path: bin });
    const r = await h.raw("trm_start_session", { repoPath: repo, testCmd: "true", sandbox: true });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/bubblewrap[\s\S]*apt-get install -y bubblewrap/);
    expect(g(repo, "for-each-ref", "refs/heads/trm/")).toBe("");
    expect(checkoutState(repo)).toEqual(before);
    await h.srv.close();
  });
});

describe("errors that say what happened and what to do", () => {
  it("nested repository without commits, a branch or tag named trm, another owner, a long name, a 5 MB sessionId, a failed submodule", async () => {
    const w = outsideWorld();
    const h = await hostileServer({ home: w.home });
    const err = async (name: string, args: Any) => {
      const r = await h.raw(name, args);
      expect(r.isError, textOf(r)).toBe(true);
      expect(textOf(r)).not.toMatch(/Unexpected error/);
      expect(textOf(r)).toMatch(/What to do: /);
      return textOf(r);
    };
    // A folder with `git init` and no commit, inside another repository: it works (baseline = its files).
    const outer = repoOf();
    const nested = path.join(outer, "nested");
    mkdirSync(nested);
    g(nested, "init", "-q");
    writeFileSync(path.join(nested, "a.txt"), "x\n");
    const nestedBefore = checkoutState(nested);
    const ns = await h.call("trm_start_session", { repoPath: nested, buildCmd: "test -f a.txt", preflight: true });
    expect(ns.preflight.score).toBe(1);
    expect(checkoutState(nested)).toEqual(nestedBefore);

    for (const [kind, make, fix] of [
      ["branch", (r: string) => g(r, "branch", "trm"), /git branch -m trm <new-name>/],
      ["tag", (r: string) => g(r, "tag", "trm"), /git tag <new-name> trm && git tag -d trm/],
    ] as const) {
      const repo = repoOf();
      make(repo);
      const before = checkoutState(repo);
      const text = await err("trm_start_session", { repoPath: repo, testCmd: "true" });
      expect(text).toContain(`Your ${kind} \`trm\``);
      expect(text).toMatch(fix);
      expect(g(repo, "for-each-ref", "refs/heads/trm/", "refs/tags/trm/", "refs/notes/")).toBe("");
      expect(checkoutState(repo)).toEqual(before);
    }

    if (process.getuid?.() === 0) {
      const repo = repoOf();
      execFileSync("chown", ["-R", "65534:65534", repo]);
      const text = await err("trm_start_session", { repoPath: repo, testCmd: "true" });
      expect(text).toContain("owned by another user");
      expect(text).toContain(`git config --global --add safe.directory '${repo}'`);
    }

    const long = path.join(w.outside, "x".repeat(300));
    expect(await err("trm_start_session", { repoPath: long, testCmd: "true" })).toMatch(/ENAMETOOLONG/);

    const huge = "x".repeat(5 * 1024 * 1024);
    const text = await err("trm_get_state", { sessionId: huge });
    expect(text.length).toBeLessThan(1000);
    expect(text).toMatch(/Malformed sessionId: "x{60}" \(5242880 characters, shown truncated\)/);

    // A submodule whose source is gone: the cause (git's fatal line) is shown, not only "failed".
    const sub = repoOf();
    const main = repoOf();
    g(main, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "lib");
    g(main, "commit", "-q", "-m", "add lib");
    rmSync(sub, { recursive: true, force: true });
    const s = await h.call("trm_start_session", { repoPath: main, testCmd: "true" });
    expect(s.submodules.ok).toBe(false);
    expect(s.submodules.message).toMatch(/fatal: .*(does not exist|not found|No such file)/i);
    await h.call("trm_list_sessions", { repoPath: main });
    expectNoCanary(main, h.seen);
    await h.srv.close();
  });
});
