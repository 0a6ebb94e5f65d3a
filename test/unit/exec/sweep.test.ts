import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { killMarked } from "../../../src/exec/sweep.js";

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
