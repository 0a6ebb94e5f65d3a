import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../../../src/exec/run.js";
import type { Sandbox } from "../../../src/exec/sandbox.js";
import { ROOT } from "../../helpers/repo.js";

/**
 * bubblewrap started by root keeps root's capabilities in the sandbox unless told otherwise: a server run
 * as root (a container, a CI job) gave its commands CAP_SYS_ADMIN, and with it `umount` of the mask over
 * the home, `mount -o remount,rw` of the checkout, the host's /proc under the sandbox's. With real bubblewrap;
 * as another user the capabilities are none anyway, and the attacks fail alike.
 */

const hasBwrap = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0;
const sandboxTests = hasBwrap || process.env.CI === "true" ? describe : describe.skip;

let root = "";
let savedHome: string | undefined;
beforeEach(() => {
  mkdirSync(path.join(ROOT, ".tmp"), { recursive: true });
  root = mkdtempSync(path.join(ROOT, ".tmp", "trm-caps-"));
  savedHome = process.env.HOME;
});
afterEach(() => {
  process.env.HOME = savedHome;
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

sandboxTests("sandbox: no capability, whoever starts it", () => {
  it("the command has no capability: it cannot unmount the home's mask nor remount the checkout writable", async () => {
    const home = path.join(root, "home");
    mkdirSync(home);
    writeFileSync(path.join(home, "secret.txt"), "HOME-CANARY\n");
    process.env.HOME = home;
    const checkout = path.join(root, "checkout");
    mkdirSync(checkout);
    const wt = path.join(root, "wt");
    mkdirSync(wt);
    const sb: Sandbox = { writable: [wt], readable: [checkout], network: false, private: path.join(root, "priv") };
    const r = await runCommand(
      [
        "grep ^CapEff /proc/self/status",
        `umount -l ${home} 2>/dev/null; cat ${home}/secret.txt 2>/dev/null`,
        `mount -o remount,rw,bind ${checkout} 2>/dev/null; echo x > ${checkout}/PWNED 2>/dev/null`,
        "umount -l /proc 2>/dev/null; ls /proc | grep -c '^[0-9]'",
        "echo ran",
      ].join("; "),
      { cwd: wt, timeoutMs: 30_000, sandbox: sb },
    );
    expect(r.output.stdout).toMatch(/^CapEff:\s+0+\n/);
    expect(r.output.stdout).not.toMatch(/CANARY/);
    expect(existsSync(path.join(checkout, "PWNED"))).toBe(false);
    // Only the sandbox's own processes: the shell, ls and grep.
    expect(Number(/\n(\d+)\nran\n$/.exec(r.output.stdout)?.[1])).toBeLessThanOrEqual(4);
  });
});
