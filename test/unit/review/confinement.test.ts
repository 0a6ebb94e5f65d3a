import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../../../src/exec/run.js";
import type { Sandbox } from "../../../src/exec/sandbox.js";
import { workRoot } from "../../../src/git/refs.js";
import { addWorktree, removeWorktree } from "../../../src/git/worktrees.js";
import { confinement } from "../../../src/review/confinement.js";
import { g, ROOT, repoFromFiles, tmpDir } from "../../helpers/repo.js";

/**
 * The sandbox around a head's code in a review (ESLint and tsc with trustPr, mutate's tests, evaluate's
 * commands) hides what the session's hides: run with real bubblewrap, a head's commands try to read the
 * repository's config (a token in a remote URL and a header), its hooks, another worktree's folder, the
 * home, through GIT_DIR, a `.git` file and committed links, to write outside their checkout, and to leave
 * a daemon behind. Each probe is run unconfined too, where it succeeds: the probes would see a leak.
 */

const hasBwrap = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0;
const sandboxTests = hasBwrap || process.env.CI === "true" ? describe : describe.skip;

const TOKEN = `ghp_reviewCanary${randomBytes(8).toString("hex")}`;
let savedHome: string | undefined;
let home = "";

beforeEach(() => {
  // The sandbox hides os.homedir(): a home of the test's own, with a canary, stands in for the user's.
  savedHome = process.env.HOME;
  home = tmpDir("trm-home-");
  writeFileSync(path.join(home, "secret.txt"), `home-${TOKEN}\n`);
  process.env.HOME = home;
});
afterEach(() => {
  process.env.HOME = savedHome;
});

/** A user's clone with credentials in its git directory, another worktree, and a head with links out. */
async function fixture() {
  const repo = repoFromFiles({ "a.txt": "a\n" });
  const common = path.join(repo, ".git");
  g(repo, "remote", "add", "backup", `https://x-access-token:${TOKEN}@git.example.invalid/o/r.git`);
  g(repo, "config", "http.extraHeader", `AUTHORIZATION: bearer ${TOKEN}`);
  writeFileSync(path.join(common, "hooks", "pre-push"), `#!/bin/sh\n# hook-${TOKEN}\n`, { mode: 0o755 });
  const other = path.join(tmpDir("trm-other-"), "other");
  g(repo, "worktree", "add", "-q", "-b", "other", other);
  writeFileSync(path.join(common, "worktrees", "other", "NOTES"), `other-${TOKEN}\n`);
  // The head commits links to the git directory and to the home.
  g(repo, "checkout", "-q", "-b", "pr");
  spawnSync("ln", ["-s", path.join(common, "config"), path.join(repo, "cfg")]);
  spawnSync("ln", ["-s", home, path.join(repo, "home")]);
  g(repo, "add", "-A");
  g(repo, "commit", "-q", "-m", "head");
  const head = g(repo, "rev-parse", "HEAD").trim();
  g(repo, "checkout", "-q", "main");
  const wt = path.join(workRoot(common), "review", `trm-review-${randomBytes(4).toString("hex")}-head`);
  await addWorktree(repo, wt, head, "review-test");
  return { repo, common, other, wt };
}

/** Each probe prints a word only when the attack worked. */
function probes(f: { repo: string; common: string; other: string }): Record<string, string> {
  const leaks = (cmd: string) => `${cmd} 2>/dev/null | grep -q ${TOKEN.slice(0, 20)}`;
  return {
    config: leaks(`cat ${f.common}/config`),
    gitConfig: leaks("git config --list"),
    gitDirEnv: leaks(`GIT_DIR=${f.common} git config --list`),
    dotGitFile: `mkdir -p sub && echo 'gitdir: ${f.common}' > sub/.git && ${leaks("git -C sub config --list")}`,
    linkToConfig: leaks("cat cfg"),
    hooks: leaks(`cat ${f.common}/hooks/pre-push`),
    otherWorktree: leaks(`cat ${f.common}/worktrees/other/NOTES`),
    home: leaks(`cat ${home}/secret.txt`),
    linkToHome: leaks("cat home/secret.txt"),
    writeCheckout: `touch ${f.repo}/PWNED`,
    writeGitDir: `touch ${f.common}/hooks/post-checkout`,
    writeOther: `touch ${f.other}/PWNED`,
  };
}

/** A daemon: a process that leaves the command's group, with a unique command line to find it by. */
async function leaveDaemon(wt: string, sandbox: Sandbox | undefined): Promise<string> {
  const needle = `3${randomBytes(2).readUInt16BE()}.5`;
  const cmd = `setsid sh -c 'exec sleep ${needle}' </dev/null >/dev/null 2>&1 & sleep 0.5`;
  await runCommand(cmd, { cwd: wt, timeoutMs: 30_000, ...(sandbox ? { sandbox } : {}) });
  return needle;
}

/** The probes that worked, all in one command (each in a subshell of its own). */
async function attack(wt: string, cmds: Record<string, string>, sandbox: Sandbox | undefined): Promise<string[]> {
  const line = Object.entries(cmds)
    .map(([name, cmd]) => `(${cmd}) && echo WORKED-${name}`)
    .join("; ");
  const r = await runCommand(line, { cwd: wt, timeoutMs: 60_000, ...(sandbox ? { sandbox } : {}) });
  return [...r.output.stdout.matchAll(/^WORKED-(\w+)$/gm)].map((m) => m[1]!);
}

/**
 * Processes whose command line holds `needle` (the daemon's unique sleep), once a killed one has had up to
 * 3 s to die: the sweep's SIGKILL is sent before the command's run returns, but on a loaded machine the
 * process may still be listed for a moment (a daemon that was not killed lives for hours).
 */
async function aliveAfterKill(needle: string): Promise<number[]> {
  for (let i = 0; i < 30 && alive(needle).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  return alive(needle);
}

/** Processes whose command line holds `needle`. */
function alive(needle: string): number[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").includes(needle);
      } catch {
        return false;
      }
    })
    .map(Number);
}

sandboxTests("the review's sandbox (bubblewrap)", () => {
  it("hides the git directory's config, hooks and other worktrees, the home, and every write outside the head", async () => {
    const f = await fixture();
    try {
      const sb = confinement({ top: f.repo, commonDir: f.common }, f.wt);
      expect(sb, "bwrap is missing: apt-get install -y bubblewrap").not.toBeNull();
      expect(await attack(f.wt, probes(f), sb!)).toEqual([]);
      expect(await aliveAfterKill(await leaveDaemon(f.wt, sb!))).toEqual([]);
      expect(existsSync(path.join(f.repo, "PWNED")) || existsSync(path.join(f.other, "PWNED"))).toBe(false);
      expect(existsSync(path.join(f.common, "hooks", "post-checkout"))).toBe(false);
      // The review still works: git reads the head, the config's format keys are there, the head is writable.
      const ok = await runCommand("git log --format=%s -1 && git config core.repositoryformatversion && touch made && git status --short made", {
        cwd: f.wt,
        timeoutMs: 30_000,
        sandbox: sb!,
      });
      expect(ok.output.stdout.split("\n").filter(Boolean)).toEqual(["head", "0", "?? made"]);
    } finally {
      await removeWorktree(f.repo, f.wt);
    }
  });

  it("control: unconfined, the same probes see every leak, and the exec layer still kills the daemon", async () => {
    const f = await fixture();
    try {
      expect(await attack(f.wt, probes(f), undefined)).toEqual(Object.keys(probes(f)));
      // A daemon that left the process group is found by its run marker (exec/sweep.ts) and killed.
      expect(await aliveAfterKill(await leaveDaemon(f.wt, undefined))).toEqual([]);
    } finally {
      await removeWorktree(f.repo, f.wt);
    }
  });

  it("hides code-trm's state folder (other sessions' worktrees and homes) where /tmp and the home do not", async () => {
    // A state folder outside /tmp and the home (CODE_TRM_STATE_DIR on a data disk): the repository's .tmp/.
    const saved = process.env.CODE_TRM_STATE_DIR;
    // A clean clone has no .tmp/ until vitest writes its report at the end.
    mkdirSync(path.join(ROOT, ".tmp"), { recursive: true });
    const state = mkdtempSync(path.join(ROOT, ".tmp", "trm-state-"));
    process.env.CODE_TRM_STATE_DIR = state;
    try {
      const f = await fixture();
      try {
        const other = path.join(workRoot(f.common), "sandbox", "trm-other", "home");
        mkdirSync(other, { recursive: true });
        writeFileSync(path.join(other, "notes"), `state-${TOKEN}\n`);
        const sb = confinement({ top: f.repo, commonDir: f.common }, f.wt);
        const probes = { otherSession: `grep -q ${TOKEN.slice(0, 20)} ${path.join(other, "notes")}` };
        expect(await attack(f.wt, probes, undefined)).toEqual(["otherSession"]);
        expect(await attack(f.wt, probes, sb!)).toEqual([]);
        // A write there lands in the sandbox's empty folder, not in the state folder.
        await runCommand(`touch ${state}/PWNED`, { cwd: f.wt, timeoutMs: 30_000, sandbox: sb! });
        expect(existsSync(path.join(state, "PWNED"))).toBe(false);
        expect((await runCommand("touch made && git status --short made", { cwd: f.wt, timeoutMs: 30_000, sandbox: sb! })).output.stdout).toBe("?? made\n");
      } finally {
        await removeWorktree(f.repo, f.wt);
      }
    } finally {
      process.env.CODE_TRM_STATE_DIR = saved;
      rmSync(state, { recursive: true, force: true });
    }
  });

  it("shows no linked package that holds the checkout (a node_modules link to a folder above it): its .env stays hidden", async () => {
    // Outside /tmp and the home, which hide it already: the repository's .tmp/.
    mkdirSync(path.join(ROOT, ".tmp"), { recursive: true });
    const mono = mkdtempSync(path.join(ROOT, ".tmp", "trm-mono-"));
    try {
      const repo = path.join(mono, "app");
      mkdirSync(path.join(repo, "node_modules", "dep"), { recursive: true });
      writeFileSync(path.join(repo, ".gitignore"), "node_modules/\n.env\n");
      writeFileSync(path.join(repo, "a.txt"), "a\n");
      g(repo, "init", "-q", "-b", "main");
      g(repo, "add", "-A");
      g(repo, "commit", "-q", "-m", "a");
      writeFileSync(path.join(repo, ".env"), `API_KEY=${TOKEN}\n`);
      writeFileSync(path.join(repo, "node_modules", "dep", "index.js"), "module.exports = 1;\n");
      // A dependency on the folder that holds the project (`"mono": "file:.."`): npm links it.
      spawnSync("ln", ["-s", "../..", path.join(repo, "node_modules", "mono")]);
      const common = path.join(repo, ".git");
      const wt = path.join(workRoot(common), "review", `trm-review-${randomBytes(4).toString("hex")}-head`);
      await addWorktree(repo, wt, "HEAD", "review-test");
      try {
        const sb = confinement({ top: repo, commonDir: common }, wt);
        const probes = { dotenv: `grep -q ${TOKEN.slice(0, 20)} ${repo}/.env`, viaLink: `grep -q ${TOKEN.slice(0, 20)} ${mono}/app/.env` };
        expect(await attack(wt, probes, undefined)).toEqual(["dotenv", "viaLink"]);
        expect(await attack(wt, probes, sb!)).toEqual([]);
        // What the head needs of the checkout is still there.
        const r = await runCommand(`cat ${repo}/node_modules/dep/index.js`, { cwd: wt, timeoutMs: 30_000, sandbox: sb! });
        expect(`${r.exitCode} ${r.output.all}`).toBe("0 module.exports = 1;\n");
      } finally {
        await removeWorktree(repo, wt);
      }
    } finally {
      rmSync(mono, { recursive: true, force: true });
    }
  });

  it("its private folder goes with the worktree", async () => {
    const f = await fixture();
    const sb = confinement({ top: f.repo, commonDir: f.common }, f.wt);
    await runCommand("true", { cwd: f.wt, timeoutMs: 30_000, sandbox: sb! });
    expect(existsSync(sb!.private!)).toBe(true);
    await removeWorktree(f.repo, f.wt);
    expect(existsSync(sb!.private!)).toBe(false);
    expect(() => confinement({ top: f.repo, commonDir: f.common }, f.repo)).toThrow(/not one of code-trm's worktrees/);
  });
});
