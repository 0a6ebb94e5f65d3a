import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../../../src/exec/run.js";
import type { Sandbox } from "../../../src/exec/sandbox.js";
import { ROOT } from "../../helpers/repo.js";

/**
 * The sandbox hides folders by the path the kernel resolves, not by the path it was given: a home that is
 * a link (HOME=/home/alice -> /data/alice), a state folder reached through one (~/.local -> another disk,
 * CODE_TRM_STATE_DIR through a link) and a credential folder that links out of the home. Each was shown
 * whole or made every sandboxed command fail ("bwrap: Can't mkdir"). With real bubblewrap; the folders
 * are outside /tmp, which the sandbox hides anyway.
 */

const hasBwrap = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0;
const sandboxTests = hasBwrap || process.env.CI === "true" ? describe : describe.skip;

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
const outsideTmp = () => {
  mkdirSync(path.join(ROOT, ".tmp"), { recursive: true });
  const d = mkdtempSync(path.join(ROOT, ".tmp", "trm-links-"));
  made.push(d);
  return d;
};

let saved: { home?: string; state?: string };
beforeEach(() => {
  saved = { home: process.env.HOME, state: process.env.CODE_TRM_STATE_DIR };
});
afterEach(() => {
  process.env.HOME = saved.home;
  if (saved.state === undefined) delete process.env.CODE_TRM_STATE_DIR;
  else process.env.CODE_TRM_STATE_DIR = saved.state;
});

/** Runs `cmd` in `sb` and returns what it printed, with the exit code. */
async function inSandbox(sb: Sandbox, cmd: string): Promise<string> {
  const r = await runCommand(cmd, { cwd: sb.writable[0]!, timeoutMs: 30_000, sandbox: sb });
  return `${r.output.all}exit ${r.exitCode}`;
}

sandboxTests("sandbox: links on the way to what it hides", () => {
  it("a home that is a link is hidden, by either path", async () => {
    const root = outsideTmp();
    const realHome = path.join(root, "data", "alice");
    mkdirSync(realHome, { recursive: true });
    writeFileSync(path.join(realHome, "notes.txt"), "HOME-CANARY\n");
    const home = path.join(root, "alice");
    symlinkSync(realHome, home);
    process.env.HOME = home;
    const wt = path.join(root, "wt");
    mkdirSync(wt);
    const sb: Sandbox = { writable: [wt], readable: [], network: false, private: path.join(root, "priv") };
    const out = await inSandbox(sb, `cat ${home}/notes.txt ${realHome}/notes.txt; echo cached > ~/c && touch made && echo ran`);
    expect(out).not.toMatch(/CANARY/);
    expect(out).toMatch(/ran\n/);
    expect(out).toMatch(/exit 0$/);
    // With a credential folder in it too (its mask was made through the link: bwrap failed every command).
    mkdirSync(path.join(realHome, ".ssh"));
    writeFileSync(path.join(realHome, ".ssh", "id_ed25519"), "SSH-CANARY\n");
    const again = await inSandbox(sb, `cat ${home}/.ssh/id_ed25519 ${realHome}/.ssh/id_ed25519; cat ~/c && echo ran`);
    expect(again).not.toMatch(/CANARY/);
    expect(again).toMatch(/cached\nran\n/);
  });

  it("a credential folder of the home that links out of it is hidden where it really is", async () => {
    const root = outsideTmp();
    const home = path.join(root, "home");
    mkdirSync(home);
    // ~/.aws links to a folder outside the home (a dotfiles or keys disk): a `find /` found it.
    mkdirSync(path.join(root, "keys", "aws"), { recursive: true });
    writeFileSync(path.join(root, "keys", "aws", "credentials"), "AWS-CANARY\n");
    symlinkSync(path.join(root, "keys", "aws"), path.join(home, ".aws"));
    process.env.HOME = home;
    const wt = path.join(root, "wt");
    mkdirSync(wt);
    const sb: Sandbox = { writable: [wt], readable: [], network: false, private: path.join(root, "priv") };
    const out = await inSandbox(sb, `cat ${root}/keys/aws/credentials; touch made && echo ran`);
    expect(out).not.toMatch(/CANARY/);
    expect(out).toMatch(/ran\n/);
    expect(out).toMatch(/exit 0$/);
  });

  it("a state folder whose real path is out of the home is hidden: other sessions' worktrees stay unseen", async () => {
    const root = outsideTmp();
    const home = path.join(root, "home");
    mkdirSync(home);
    // ~/.local is a link to another disk: ~/.local/state/code-trm is really there.
    const disk = path.join(root, "disk");
    mkdirSync(disk);
    symlinkSync(disk, path.join(home, ".local"));
    process.env.HOME = home;
    const state = path.join(home, ".local", "state", "code-trm");
    const wt = path.join(state, "repos", "r", "worktrees", "trm-mine");
    const other = path.join(disk, "state", "code-trm", "repos", "r", "worktrees", "trm-other");
    mkdirSync(wt, { recursive: true });
    mkdirSync(other, { recursive: true });
    writeFileSync(path.join(other, "secret.txt"), "OTHER-CANARY\n");
    const sb: Sandbox = { writable: [wt], readable: [], network: false, private: path.join(state, "repos", "r", "sandbox", "trm-mine"), hidden: [state] };
    const out = await inSandbox(sb, `cat ${other}/secret.txt 2>/dev/null; ls ${path.dirname(other)} 2>/dev/null; touch made && echo ran`);
    expect(out).not.toMatch(/CANARY|trm-other/);
    expect(out).toMatch(/ran\n/);
    expect(out).toMatch(/exit 0$/);
  });

  it("a state folder given through a link (CODE_TRM_STATE_DIR) still runs the command, and hides the others", async () => {
    const root = outsideTmp();
    const home = path.join(root, "home");
    mkdirSync(home);
    process.env.HOME = home;
    const real = path.join(root, "big-disk", "trm");
    mkdirSync(real, { recursive: true });
    const state = path.join(root, "state-link");
    symlinkSync(real, state);
    const wt = path.join(state, "repos", "r", "review", "trm-review-1-head");
    mkdirSync(wt, { recursive: true });
    mkdirSync(path.join(real, "repos", "r", "review", "trm-review-1-base"));
    writeFileSync(path.join(real, "repos", "r", "review", "trm-review-1-base", "secret.txt"), "BASE-CANARY\n");
    const sb: Sandbox = { writable: [wt], readable: [], network: false, private: path.join(state, "repos", "r", "sandbox", "x"), hidden: [state] };
    const out = await inSandbox(
      sb,
      `cat ${real}/repos/r/review/trm-review-1-base/secret.txt ${state}/repos/r/review/trm-review-1-base/secret.txt; touch made && echo ran`,
    );
    expect(out).not.toMatch(/CANARY/);
    expect(out).toMatch(/ran\n/);
    expect(out).toMatch(/exit 0$/);
    // The worktree is where its path, as the server gives it to the command (coverage folders), leads.
    expect(await inSandbox(sb, `touch ${wt}/by-link && ls ${wt}`)).toBe("by-link\nmade\nexit 0");
  });
});
