/**
 * The sandbox is a boundary (issue 27): each attack through the real server and bubblewrap, each with a
 * control that shows the attack works when the protection is off, ending with the user's checkout, home
 * and `.git` unchanged, no marker anywhere, and the planted credentials absent from every tool output
 * and every git object.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { shellQuote } from "../../src/util/text.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { type Any, expectNoCanary, hostileServer, outsideWorld, repoOf, tmp } from "../helpers/hostile.js";
import { checkoutState, g, makeRepo, ROOT } from "../helpers/repo.js";

const hasBwrap = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0;
// In CI the sandbox tests must run: .ci/run installs bubblewrap, and a missing one is a failure there.
const sandboxTests = hasBwrap || process.env.CI === "true" ? describe : describe.skip;

const servers: net.Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

/** A one-commit repository added to `repo` as submodule `sub`, committed. */
function addSubmodule(repo: string): void {
  const subSrc = path.join(tmp("trm-subsrc-"), "lib");
  mkdirSync(subSrc);
  g(subSrc, "init", "-q", "-b", "main");
  writeFileSync(path.join(subSrc, "lib.txt"), "library\n");
  g(subSrc, "add", "-A");
  g(subSrc, "commit", "-q", "-m", "lib");
  g(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", subSrc, "sub");
  g(repo, "commit", "-q", "-m", "submodule");
}

/** A program that, if it ever runs, leaves its name in `marker` (outside the sandbox's reach). */
const trap = (marker: string, name: string) => `sh -c 'echo ${name} >> ${marker}; cat'`;

/** Every config key that names a program, for `git config` in a repository the command controls. */
function plantAll(marker: string): string {
  const keys: [string, string][] = [
    ["filter.x.clean", trap(marker, "filter-clean")],
    ["filter.x.smudge", trap(marker, "filter-smudge")],
    ["filter.x.process", trap(marker, "filter-process")],
    ["diff.x.textconv", trap(marker, "textconv")],
    ["diff.x.command", trap(marker, "diff-command")],
    ["diff.external", trap(marker, "diff-external")],
    ["merge.x.driver", trap(marker, "merge-driver")],
    ["core.fsmonitor", trap(marker, "fsmonitor")],
    ["core.pager", trap(marker, "pager")],
    ["core.sshCommand", trap(marker, "ssh")],
    ["core.editor", trap(marker, "editor")],
    ["core.askPass", trap(marker, "askpass")],
    ["credential.helper", `!${trap(marker, "credential")}`],
    ["core.hooksPath", "hooks-of-mine"],
  ];
  return keys.map(([k, v]) => `git config ${k} "${v.replace(/"/g, '\\"')}"`).join(" && ");
}

async function socketAt(p: string): Promise<void> {
  mkdirSync(path.dirname(p), { recursive: true });
  const s = net.createServer((c) => c.end("answered\n")).listen(p);
  servers.push(s);
  await new Promise((r) => s.once("listening", r));
}

/** A node one-liner that tries to connect to `p` and prints reached-NAME or blocked-NAME. */
const probe = (p: string, name: string) =>
  `node -e 'const c=require("net").connect(${JSON.stringify(p)});c.on("data",()=>{console.log("reached"+"-${name}");process.exit(0)});c.on("error",()=>console.log("blocked"+"-${name}"))'`;

sandboxTests("the sandbox is a boundary (bubblewrap)", () => {
  it("no git call of the server runs a program a command planted: submodule .git, nested repository, attributes", async () => {
    expect(hasBwrap, "bwrap is missing: apt-get install -y bubblewrap").toBe(true);
    const w = outsideWorld();
    const marker = path.join(w.outside, "PWNED");
    const repo = repoOf();
    // A submodule, initialised in the worktree at start.
    addSubmodule(repo);
    // The repository's own config (through an include) defines drivers the user trusts: a command's
    // .gitattributes must not make the server run them on the command's files.
    writeFileSync(
      path.join(repo, ".git", "drivers.cfg"),
      `[filter "trap"]\n\tclean = "${trap(marker, "repo-filter")}"\n\tsmudge = "${trap(marker, "repo-smudge")}"\n[merge "trap"]\n\tdriver = "${trap(marker, "repo-merge")}"\n`,
    );
    g(repo, "config", "include.path", "drivers.cfg");
    const before = checkoutState(repo);
    const outsideBefore = w.snap();
    const attack = [
      // 1. sub/.git replaced by a repository of the command's own, every program key set, a file
      //    rewritten at the same size so that a status would have to read it again.
      `rm -rf sub/.git && git init -q sub && (cd sub && ${plantAll(marker)} && echo '* filter=x diff=x merge=x' > .gitattributes && git add -A && git -c user.name=a -c user.email=b -c core.hooksPath=/dev/null commit -qm mine >/dev/null && sleep 1.1 && echo LIBRARY > lib.txt)`,
      // 2. a nested repository (not a submodule) with the same keys, committed.
      `git init -q nested && (cd nested && ${plantAll(marker)} && echo '* filter=x' > .gitattributes && echo n > n.txt && git add -A && git -c user.name=a -c user.email=b -c core.hooksPath=/dev/null commit -qm n >/dev/null)`,
      // 3. the worktree's own attributes name the repository's drivers.
      `printf '* filter=trap merge=trap\\n' >> .gitattributes && echo '// changed' >> src/stats.js`,
      "node --test",
    ].join(" ; ");
    const h = await hostileServer({ home: w.home });
    const s = await h.call("trm_start_session", { repoPath: repo, testCmd: attack, sandbox: true, preflight: true });
    expect(s.sandbox).toBe(true);
    // A step: the server stages, commits, checks and resets the worktree the command changed.
    const step = await h.call("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("notes.txt", "a step\n") });
    expect(step.step).toBe(1);
    await h.call("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("notes.txt", "another step\n") });
    await h.call("trm_undo", { sessionId: s.sessionId }).catch(() => undefined);
    expect(existsSync(marker) ? readFileSync(marker, "utf8") : "").toBe("");
    expect(checkoutState(repo)).toEqual(before);
    expect(w.snap()).toBe(outsideBefore);
    // Control: the same worktree under plain git runs the planted programs.
    const wt = s.worktreePath as string;
    writeFileSync(path.join(wt, "sub", "lib.txt"), "LIBRARY\n".replace("L", "l"));
    writeFileSync(path.join(wt, ".gitattributes"), "* filter=trap\n");
    writeFileSync(path.join(wt, "src", "stats.js"), `${readFileSync(path.join(wt, "src", "stats.js"), "utf8")}// control\n`);
    spawnSync("git", ["status"], { cwd: wt, env: { ...process.env, HOME: w.home } });
    spawnSync("git", ["add", "-A", "--", "src/stats.js"], { cwd: wt, env: { ...process.env, HOME: w.home } });
    const ran = existsSync(marker) ? readFileSync(marker, "utf8") : "";
    expect(ran).toMatch(/fsmonitor|filter-/);
    expect(ran).toContain("repo-filter");
    await h.srv.close();
  });

  it("network: false reaches no unix socket: in the home, in the checkout, anywhere else, even when shown by sandboxPaths", async () => {
    const w = outsideWorld();
    const repo = repoOf();
    const inHome = path.join(w.home, ".colima", "docker.sock");
    const inCheckout = path.join(repo, "dev.sock");
    const elsewhere = path.join(w.outside, "run", "agent.sock");
    const before = checkoutState(repo);
    for (const p of [inHome, inCheckout, elsewhere]) await socketAt(p);
    const cmd = [probe(inHome, "home"), probe(inCheckout, "checkout"), probe(elsewhere, "outside"), "node --test"].join(" ; ");
    // Control: without the sandbox, every socket answers.
    const h = await hostileServer({ home: w.home });
    const open = await h.call("trm_start_session", { repoPath: repo, testCmd: cmd, preflight: true });
    const openLog = (await h.call("trm_read_log", { sessionId: open.sessionId, at: "baseline", command: "test" })).content as string;
    for (const n of ["home", "checkout", "outside"]) expect(openLog).toContain(`reached-${n}`);
    const s = await h.call("trm_start_session", {
      repoPath: repo,
      testCmd: cmd,
      sandbox: true,
      sandboxPaths: [path.join(w.home, ".colima"), w.outside],
      preflight: true,
    });
    const log = (await h.call("trm_read_log", { sessionId: s.sessionId, at: "baseline", command: "test" })).content as string;
    for (const n of ["home", "checkout", "outside"]) expect(log).toContain(`blocked-${n}`);
    expect(log).not.toContain("reached-");
    for (const srv of servers.splice(0)) await new Promise((r) => srv.close(r));
    expect(checkoutState(repo)).toEqual(before);
    await h.srv.close();
  });

  it("credentials in the home and in the repository's config are neither readable in the sandbox nor shown", async () => {
    const w = outsideWorld();
    const repo = repoOf();
    const copilot = "ghu_copilotCANARYcanary7Qx2LmN0pRsTuVwXyZ";
    const yarn = "npm_yarnCANARYcanary7Qx2LmN0pRsTuVwXyZ";
    const remote = "ghp_remoteURLcanary7Qx2LmN0pRsTuVwXyZ";
    mkdirSync(path.join(w.home, ".config", "github-copilot"), { recursive: true });
    writeFileSync(path.join(w.home, ".config", "github-copilot", "hosts.json"), JSON.stringify({ "github.com": { oauth_token: copilot } }));
    writeFileSync(path.join(w.home, ".yarnrc"), `//registry.yarnpkg.com/:_authToken ${yarn}\n`);
    g(repo, "remote", "add", "origin", `https://x-access-token:${remote}@git.example.invalid/o/r.git`);
    const before = checkoutState(repo);
    const outsideBefore = w.snap();
    const cmd = [
      "cat ~/.config/github-copilot/hosts.json ~/.yarnrc 2>&1",
      `cat ${path.join(repo, ".git", "config")} 2>&1`,
      "git remote -v; git config --list 2>&1 | grep -i url",
      "ls -a ~",
      "node --test",
    ].join(" ; ");
    const h = await hostileServer({ home: w.home });
    const s = await h.call("trm_start_session", { repoPath: repo, testCmd: cmd, sandbox: true, preflight: true });
    const log = (await h.call("trm_read_log", { sessionId: s.sessionId, at: "baseline", command: "test" })).content as string;
    expect(log).toContain("No such file");
    expect(log).toContain("repositoryformatversion");
    expect(log).not.toContain("git.example.invalid");
    // Without the sandbox the command can read them all: the token in the remote URL is still redacted.
    const open = await h.call("trm_start_session", { repoPath: repo, testCmd: "git remote -v; node --test", preflight: true });
    const openLog = (await h.call("trm_read_log", { sessionId: open.sessionId, at: "baseline", command: "test" })).content as string;
    expect(openLog).toContain("git.example.invalid");
    expect(openLog).toContain("[redacted]");
    const all = [...h.seen, g(repo, "log", "--all", "-p", "--notes=*")].join("\n");
    for (const t of [copilot, yarn, remote]) expect(all).not.toContain(t);
    expectNoCanary(repo, h.seen);
    expect(checkoutState(repo)).toEqual(before);
    expect(w.snap()).toBe(outsideBefore);
    await h.srv.close();
  });

  it("no submodule's config is readable either: the checkout's (.git/modules) and the worktree's own clones", async () => {
    const w = outsideWorld();
    const repo = repoOf();
    addSubmodule(repo);
    // The session clones it into its worktree from this local path (the user's global config allows it).
    writeFileSync(path.join(w.home, ".gitconfig"), '[protocol "file"]\n\tallow = always\n');
    // A token in the submodule's remote URL, in its repository's config (where `git submodule` copies it).
    const token = "ghp_submoduleCanary7Qx2LmN0pRsTuVwXyZ012";
    g(path.join(repo, "sub"), "config", "remote.origin.url", `https://x-access-token:${token}@git.example.invalid/o/lib.git`);
    const before = checkoutState(repo);
    const cmd = [
      `grep -rq x-access-token ${path.join(repo, ".git", "modules")} && echo leaked-checkout-submodule`,
      `grep -rq x-access-token ${path.join(repo, ".git", "worktrees")} && echo leaked-worktree-submodule`,
      "cat sub/lib.txt && git -C sub rev-parse --verify -q HEAD >/dev/null && echo submodule-usable",
      "node --test",
    ].join(" ; ");
    const h = await hostileServer({ home: w.home });
    const s = await h.call("trm_start_session", { repoPath: repo, testCmd: cmd, sandbox: true, preflight: true });
    const log = (await h.call("trm_read_log", { sessionId: s.sessionId, at: "baseline", command: "test" })).content as string;
    // The worktree's clone copied its URL from the user's `submodule.sub.url`, which may hold one as well.
    g(path.join(s.worktreePath as string, "sub"), "config", "remote.origin.url", `https://x-access-token:${token}@git.example.invalid/o/lib.git`);
    await h.call("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("notes.txt", "a step\n") });
    const again = (await h.call("trm_read_log", { sessionId: s.sessionId, at: "1", command: "test" })).content as string;
    for (const l of [log, again]) {
      expect(l).toContain("library");
      expect(l).toContain("submodule-usable");
      expect(l).not.toContain("leaked-");
    }
    expect(h.seen.join("\n")).not.toContain(token);
    expect(checkoutState(repo)).toEqual(before);
    await h.srv.close();
  });

  it("a link left in the private home cannot move a mask away from what it masks (the repository's config, a socket)", async () => {
    const w = outsideWorld();
    // The usual layout: the state folder and the checkout in the home, the checkout below a folder of its own.
    const repo = path.join(w.home, "src", "proj");
    mkdirSync(path.dirname(repo));
    renameSync(repoOf(), repo);
    const token = "ghp_linkMoveCanary7Qx2LmN0pRsTuVwXyZ01";
    g(repo, "remote", "add", "origin", `https://x-access-token:${token}@git.example.invalid/o/r.git`);
    const before = checkoutState(repo);
    await socketAt(path.join(repo, "dev.sock"));
    // The build leaves links in its home: ~/src leads through the worktree's mount point, where the
    // worktree's own `link` sends later paths elsewhere, so that the next command's masks land in `decoy`
    // while the checkout is mounted, unmasked, in `seen`.
    const plant = [
      'W=$PWD; R=$(dirname "$W"); ID=$(basename "$W"); REL=${R#$HOME/}',
      "ln -sfn ../decoy link",
      'mv "$HOME/.local" "$HOME/.local.old"',
      'mkdir -p "$HOME/$REL/$ID" "$HOME/$REL/seen" "$HOME/$REL/decoy/proj/.git"',
      'ln -s ../seen "$HOME/$REL/$ID/link"',
      'mv "$HOME/src" "$HOME/src.old"',
      'ln -s "$REL/$ID/link" "$HOME/src"',
    ].join(" ; ");
    const read = [
      `grep -q x-access-token "$(dirname "$PWD")/seen/proj/.git/config" && echo leaked-config`,
      // Relative: the full path is longer than a socket address may be.
      `(cd "$(dirname "$PWD")/seen/proj" && ${probe("dev.sock", "moved")})`,
      "node --test test/stats.test.js",
    ].join(" ; ");
    const h = await hostileServer({ home: w.home, stateDir: path.join(w.home, ".local", "state", "code-trm") });
    const s = await h.call("trm_start_session", { repoPath: repo, buildCmd: plant, testCmd: read, sandbox: true, preflight: true });
    const logs = [(await h.call("trm_read_log", { sessionId: s.sessionId, at: "baseline", command: "test" })).content as string];
    // The same links, as a command that won a race with a concurrent one's setup would leave them.
    const wt = s.worktreePath as string;
    const rel = path.relative(w.home, path.dirname(wt));
    const privateHome = path.join(path.dirname(wt), "..", "sandbox", path.basename(wt), "home");
    rmSync(path.join(privateHome, ".local"), { recursive: true, force: true });
    mkdirSync(path.join(privateHome, rel, path.basename(wt)), { recursive: true });
    for (const d of ["seen", "decoy/proj/.git"]) mkdirSync(path.join(privateHome, rel, d), { recursive: true });
    symlinkSync("../seen", path.join(privateHome, rel, path.basename(wt), "link"));
    rmSync(path.join(privateHome, "src"), { recursive: true, force: true });
    symlinkSync(path.join(rel, path.basename(wt), "link"), path.join(privateHome, "src"));
    await h.call("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("notes.txt", "a step\n") });
    logs.push((await h.call("trm_read_log", { sessionId: s.sessionId, at: "1", command: "test" })).content as string);
    // A file where the fresh folder goes would fail every command (bwrap cannot mount a folder on it).
    rmSync(path.join(privateHome, "src"), { recursive: true, force: true });
    writeFileSync(path.join(privateHome, "src"), "in the way\n");
    await h.call("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("notes.txt", "another step\n") });
    logs.push((await h.call("trm_read_log", { sessionId: s.sessionId, at: "2", command: "test" })).content as string);
    for (const log of logs) {
      expect(log).toContain("tests 4");
      expect(log).not.toContain("leaked-config");
      expect(log).not.toContain("reached-moved");
    }
    for (const srv of servers.splice(0)) await new Promise((r) => srv.close(r));
    expect(checkoutState(repo)).toEqual(before);
    await h.srv.close();
  });

  it("no System V shared memory segment of the machine is readable (an IPC namespace of its own)", async () => {
    const w = outsideWorld();
    const repo = repoOf();
    const key = 0x7e000000 + Math.floor(Math.random() * 0xffff);
    // Python's ctypes reaches shmget/shmat, which node has no call for. Run on the host: a segment of
    // this user's, as a browser, an X server or a database keeps one.
    const shm = (op: "put" | "get" | "drop") =>
      `python3 -c 'import ctypes,sys;l=ctypes.CDLL(None);l.shmat.restype=ctypes.c_void_p;op=sys.argv[1];i=l.shmget(${key},4096 if op=="put" else 0,0o1600 if op=="put" else 0)
if i<0: print("no-segment")
elif op=="put": ctypes.memmove(l.shmat(i,None,0),b"shm-"+b"canary\\0",11)
elif op=="drop": l.shmctl(i,0,None)
else: print("read-"+ctypes.string_at(l.shmat(i,None,0o10000)).decode())' ${op}`;
    execFileSync("sh", ["-c", shm("put")]);
    try {
      expect(execFileSync("sh", ["-c", shm("get")]).toString()).toContain("read-shm-canary");
      const h = await hostileServer({ home: w.home });
      const s = await h.call("trm_start_session", { repoPath: repo, testCmd: `${shm("get")} ; node --test`, sandbox: true, preflight: true });
      const log = (await h.call("trm_read_log", { sessionId: s.sessionId, at: "baseline", command: "test" })).content as string;
      expect(log).toContain("no-segment");
      expect(log).not.toContain("shm-canary");
      await h.srv.close();
    } finally {
      execFileSync("sh", ["-c", shm("drop")]);
    }
  });

  it("the server never loads code a sandboxed command can write: the worktree's typescript for trm_suggest_fix", async () => {
    const w = outsideWorld();
    const repo = makeRepo("ts-fixable");
    const marker = path.join(w.outside, "PWNED");
    const realTs = path.join(ROOT, "node_modules", "typescript");
    // A typescript of the command's own in the worktree: it passes for the real one, and writes where
    // only a process outside the sandbox can.
    const fake = `require("fs").writeFileSync(${JSON.stringify(marker)}, "loaded by the server"); module.exports = require(${JSON.stringify(realTs)});`;
    const plant = `mkdir -p node_modules/typescript && echo '{"name":"typescript","version":"9.9.9","main":"index.js"}' > node_modules/typescript/package.json && echo ${shellQuote(fake)} > node_modules/typescript/index.js`;
    const tsc = `node ${path.join(realTs, "bin", "tsc")} -p .`;
    const before = checkoutState(repo);
    const h = await hostileServer({ home: w.home });
    const s = await h.call("trm_start_session", { repoPath: repo, buildCmd: `${plant} && ${tsc}`, sandbox: true });
    const step = await h.call("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("NOTES.md", "notes\n") });
    expect(step.okBuild).toBe(false);
    expect(existsSync(path.join(s.worktreePath as string, "node_modules", "typescript", "index.js"))).toBe(true);
    const fix = await h.call("trm_suggest_fix", { sessionId: s.sessionId });
    expect(fix.suggestions.length).toBeGreaterThanOrEqual(1);
    expect(existsSync(marker)).toBe(false);
    expect(checkoutState(repo)).toEqual(before);
    await h.srv.close();
    rmSync(path.dirname(repo), { recursive: true, force: true });
  });

  it("tools write their caches beside the dependencies in the worktree's own layer; other writes are named as the sandbox's doing", async () => {
    const w = outsideWorld();
    const repo = repoOf();
    mkdirSync(path.join(repo, "node_modules", "dep"), { recursive: true });
    writeFileSync(path.join(repo, "node_modules", "dep", "index.js"), "module.exports = 41;\n");
    const before = checkoutState(repo);
    const cmd = [
      // vite's config bundling and babel's cache: beside the dependencies.
      "mkdir -p node_modules/.vite-temp node_modules/.cache/babel && echo t > node_modules/.vite-temp/vitest.config.mjs && echo c > node_modules/.cache/babel/x && echo cache-ok",
      `node -e 'console.log("dep=" + (require("dep") + 1))'`,
      "node --test",
    ].join(" && ");
    const h = await hostileServer({ home: w.home });
    const s = await h.call("trm_start_session", { repoPath: repo, testCmd: cmd, sandbox: true, preflight: true });
    const log = (await h.call("trm_read_log", { sessionId: s.sessionId, at: "baseline", command: "test" })).content as string;
    expect(log).toContain("cache-ok");
    expect(log).toContain("dep=42");
    expect(s.preflight.tests.failed).toBeGreaterThan(0);
    expect(existsSync(path.join(repo, "node_modules", ".vite-temp"))).toBe(false);
    // A write into the checkout is refused by the sandbox, and the feedback says so.
    const t = await h.call("trm_start_session", {
      repoPath: repo,
      testCmd: `echo x > ${path.join(repo, "node_modules", "dep", "cache.json")}`,
      sandbox: true,
      preflight: true,
    });
    expect(t.feedback).toMatch(/sandbox keeps everything outside the worktree read-only[^\n]*node_modules\/dep\/cache\.json/);
    // There, no cache setting helps: the worktree needs a node_modules of its own.
    expect(t.feedback).toMatch(
      /node_modules the worktree links from your checkout: give the worktree a node_modules of its own \(setupCmd "rm -rf node_modules && npm ci"/,
    );
    expect(checkoutState(repo)).toEqual(before);
    rmSync(path.join(repo, "node_modules"), { recursive: true, force: true });
    await h.srv.close();
  });

  it("a folder a command made a repository with no commit gets an error that names it and the fix", async () => {
    const w = outsideWorld();
    const repo = repoOf();
    const before = checkoutState(repo);
    const h = await hostileServer({ home: w.home });
    const s = await h.call("trm_start_session", {
      repoPath: repo,
      // Made by setupCmd, which the session keeps from step to step: what a step's own commands make is
      // removed before the next step (leftovers.ts), a repository too.
      setupCmd: "git init -q scratch",
      testCmd: "node --test",
      sandbox: true,
      preflight: true,
    });
    // Other candidates work.
    expect((await h.call("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("notes.txt", "x\n") })).step).toBe(1);
    const r = await h.raw("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesCandidate("scratch/notes.txt", "x\n") });
    expect(r.isError).toBe(true);
    const text = (r.content as Any[]).map((c) => c.text).join("\n");
    expect(text).toMatch(/scratch in the worktree is a git repository of its own[\s\S]*scratch\/notes\.txt cannot be part of a step/);
    expect(text).toMatch(/Delete scratch\/\.git/);
    expect(text).not.toMatch(/Unexpected error/);
    expect(checkoutState(repo)).toEqual(before);
    execFileSync("true");
    await h.srv.close();
  });
});
