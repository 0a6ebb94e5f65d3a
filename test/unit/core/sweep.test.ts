import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { killMarked, sweepFloor } from "../../../src/evaluate/sweep.js";

/** A `sleep` carrying NAME=value in its environment, in a session of its own (as a setsid daemon). */
function marked(name: string, value: string): number {
  const c = spawn("sleep", ["30"], { env: { ...process.env, [name]: value }, detached: true, stdio: "ignore" });
  c.unref();
  return c.pid!;
}

const running = (pid: number) => {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
};

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe.runIf(process.platform === "linux")("the orphan sweep after a command", () => {
  it("reads only processes newer than the command when nothing can have wrapped, and all of them otherwise", async () => {
    const value = `t${process.pid}${Date.now()}`;
    const older = marked("TRM_SWEEP_TEST", value);
    // A later process: the command that the narrow sweep is told about started after `older`.
    const at = performance.now();
    const later = spawnSync("true").pid;
    expect(later).toBeGreaterThan(older);
    expect(sweepFloor({ pid: later, at })).toBe(later);
    expect(killMarked("TRM_SWEEP_TEST", value, { pid: later, at })).toBe(0);
    expect(running(older)).toBe(true);
    // A command that ran a second or more: a wrap of the pid counter is no longer ruled out.
    expect(sweepFloor({ pid: later, at: at - 1000 })).toBe(0);
    expect(killMarked("TRM_SWEEP_TEST", value, { pid: later, at: at - 1000 })).toBe(1);
    await until(() => !running(older));
    expect(running(older)).toBe(false);
  });

  it("kills a marked process the command started, and treats a pid above the last one handed out as a wrap", async () => {
    const value = `u${process.pid}${Date.now()}`;
    const at = performance.now();
    const first = spawnSync("true").pid;
    const child = marked("TRM_SWEEP_TEST", value);
    expect(killMarked("TRM_SWEEP_TEST", value, { pid: first, at })).toBe(1);
    await until(() => !running(child));
    expect(running(child)).toBe(false);
    // A command pid the counter has not reached means it came round since: everything is read.
    expect(sweepFloor({ pid: 2 ** 31, at: performance.now() })).toBe(0);
  });
});

describe.runIf(process.platform === "linux")("the orphan sweep's count", () => {
  it("counts a process once, though it is still readable in the next round while it dies", async () => {
    // SIGKILL is delivered asynchronously: the next round can read the same dying process again.
    for (let i = 0; i < 20; i++) {
      const value = `c${process.pid}${Date.now()}${i}`;
      const pid = marked("TRM_SWEEP_TEST", value);
      expect(killMarked("TRM_SWEEP_TEST", value)).toBe(1);
      await until(() => !running(pid));
      expect(running(pid)).toBe(false);
    }
  });
});
