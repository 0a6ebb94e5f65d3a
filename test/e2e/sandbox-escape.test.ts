/**
 * The sandbox is a boundary (issue 27): each attack through the real server and bubblewrap, each with a
 * control that shows the attack works when the protection is off, ending with the user's checkout, home
 * and `.git` unchanged, no marker anywhere, and the planted credentials absent from every tool output
 * and every git object.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Any, expectNoCanary, hostileServer, outsideWorld, repoOf, tmp } from "../helpers/hostile.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { checkoutState, g } from "../helpers/repo.js";

const hasBwrap = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0;
// In CI the sandbox tests must run: .ci/run installs bubblewrap, and a missing one is a failure there.
const sandboxTests = hasBwrap || process.env.CI === "true" ? describe : describe.skip;

const servers: net.Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

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
    const subSrc = path.join(tmp("trm-subsrc-"), "lib");
    mkdirSync(subSrc);
    g(subSrc, "init", "-q", "-b", "main");
    writeFileSync(path.join(subSrc, "lib.txt"), "library\n");
    g(subSrc, "add", "-A");
    g(subSrc, "commit", "-q", "-m", "lib");
    g(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", subSrc, "sub");
    g(repo, "commit", "-q", "-m", "submodule");
    // The repository's own config (through an include) defines drivers the user trusts: a command's
    // .gitattributes must not make the server run them on the command's files.
    writeFileSync(path.join(repo, ".git", "drivers.cfg"), `[filter "trap"]\n\tclean = "${trap(marker, "repo-filter")}"\n\tsmudge = "${trap(marker, "repo-smudge")}"\n[merge "trap"]\n\tdriver = "${trap(marker, "repo-merge")}"\n`);
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
    const s = await h.call("trm_start_session", { repoPath: repo, testCmd: cmd, sandbox: true, sandboxPaths: [path.join(w.home, ".colima"), w.outside], preflight: true });
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
    const t = await h.call("trm_start_session", { repoPath: repo, testCmd: `echo x > ${path.join(repo, "node_modules", "dep", "cache.json")}`, sandbox: true, preflight: true });
    expect(t.feedback).toMatch(/sandbox keeps everything outside the worktree read-only[^\n]*node_modules\/dep\/cache\.json/);
    // There, no cache setting helps: the worktree needs a node_modules of its own.
    expect(t.feedback).toMatch(/node_modules the worktree links from your checkout: give the worktree a node_modules of its own \(setupCmd "rm -rf node_modules && npm ci"/);
    expect(checkoutState(repo)).toEqual(before);
    rmSync(path.join(repo, "node_modules"), { recursive: true, force: true });
    await h.srv.close();
  });

  it("a folder a command made a repository with no commit gets an error that names it and the fix", async () => {
    const w = outsideWorld();
    const repo = repoOf();
    const before = checkoutState(repo);
    const h = await hostileServer({ home: w.home });
    const s = await h.call("trm_start_session", { repoPath: repo, testCmd: "test -d scratch/.git || git init -q scratch; node --test", sandbox: true, preflight: true });
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
