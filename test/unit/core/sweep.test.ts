import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { killMarked, lastPid, sweepRange, sweepStart } from "../../../src/evaluate/sweep.js";
import { runCommand } from "../../../src/evaluate/run.js";
import { tmpDir } from "../../helpers/repo.js";

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

// The narrow sweep needs /proc to be this process's pid namespace (not so in some containers).
describe.runIf(process.platform === "linux" && lastPid() !== null)("the orphan sweep after a command", () => {
  it("reads only processes newer than the command when nothing can have wrapped, and all of them otherwise", async () => {
    const value = `t${process.pid}${Date.now()}`;
    const older = marked("TRM_SWEEP_TEST", value);
    // A later process: the command that the narrow sweep is told about started after `older`.
    const start = sweepStart();
    const later = spawnSync("true").pid;
    expect(later).toBeGreaterThan(older);
    expect(sweepRange({ pid: later, ...start })?.from).toBe(later);
    expect(sweepRange({ pid: later, ...start })!.to).toBeGreaterThanOrEqual(later);
    expect(killMarked("TRM_SWEEP_TEST", value, { pid: later, ...start })).toBe(0);
    expect(running(older)).toBe(true);
    // Enough processes created since the start to go round the pid counter: a wrap is not ruled out.
    expect(sweepRange({ pid: later, ...start, created: start.created! - 2 ** 22 })).toBe(null);
    // A command that ran a second or more: a wrap of the pid counter is no longer ruled out.
    expect(sweepRange({ pid: later, ...start, at: start.at - 1000 })).toBe(null);
    expect(killMarked("TRM_SWEEP_TEST", value, { pid: later, ...start, at: start.at - 1000 })).toBe(1);
    await until(() => !running(older));
    expect(running(older)).toBe(false);
  });

  it("kills a marked process the command started, and treats a pid above the last one handed out as a wrap", async () => {
    const value = `u${process.pid}${Date.now()}`;
    const start = sweepStart();
    const first = spawnSync("true").pid;
    const child = marked("TRM_SWEEP_TEST", value);
    expect(killMarked("TRM_SWEEP_TEST", value, { pid: first, ...start })).toBe(1);
    await until(() => !running(child));
    expect(running(child)).toBe(false);
    // A command pid the counter has not reached means it came round since: everything is read.
    expect(sweepRange({ pid: 2 ** 31, ...sweepStart() })).toBe(null);
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

/**
 * A command that wraps the pid counter and comes back past its own pid: with pid_max at 32768 (Linux's
 * default below 32 CPUs) that is ~32,500 pid allocations, which short-lived threads make in about half a
 * second. A daemon started while the counter was below the command's pid outlived the narrow sweep.
 */
const WRAP_C = `
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
static volatile int stop;
static void *f(void *a) { return a; }
static void *burn(void *a) { while (!stop) { pthread_t t; if (pthread_create(&t, 0, f, 0) == 0) pthread_join(t, 0); } return a; }
static long last(void) { char b[32] = {0}; int fd = open("/proc/sys/kernel/ns_last_pid", O_RDONLY); if (read(fd, b, 31) < 0) exit(2); close(fd); return atol(b); }
static void nap(void) { struct timespec t = {0, 200000}; nanosleep(&t, 0); }
int main(int argc, char **argv) {
  long self = atol(argv[1]);
  pthread_t w[2];
  for (int i = 0; i < 2; i++) pthread_create(&w[i], 0, burn, 0);
  while (last() >= self) nap();
  pid_t d = fork();
  if (d == 0) { setsid(); int fd = open("/dev/null", O_RDWR); dup2(fd, 0); dup2(fd, 1); dup2(fd, 2); execl("/bin/sleep", "sleep", "60", (char *)0); execl("/usr/bin/sleep", "sleep", "60", (char *)0); _exit(1); }
  while (last() < self + 2) nap();
  stop = 1;
  for (int i = 0; i < 2; i++) pthread_join(w[i], 0);
  FILE *o = fopen(argv[2], "w"); fprintf(o, "%d\\n", d); fclose(o);
  return 0;
}
`;
const smallPidMax = (() => {
  try {
    return Number(readFileSync("/proc/sys/kernel/pid_max", "utf8")) <= 65_536;
  } catch {
    return false;
  }
})();
const hasCc = process.platform === "linux" && spawnSync("cc", ["--version"]).status === 0;

describe.runIf(hasCc && smallPidMax)("the orphan sweep after a command that wrapped the pid counter", () => {
  it("kills a daemon the command started with a pid below its own after the counter wrapped and came back", async () => {
    const dir = tmpDir("trm-sweep-wrap-");
    const bin = path.join(dir, "wrap");
    writeFileSync(`${bin}.c`, WRAP_C);
    expect(spawnSync("cc", ["-O2", "-pthread", `${bin}.c`, "-o", bin]).status).toBe(0);
    const daemons: number[] = [];
    try {
      // Up to three tries: the wrap has to fit in the narrow sweep's time bound to reach it at all.
      for (let i = 0; i < 3; i++) {
        const pidFile = path.join(dir, `daemon${i}`);
        const r = await runCommand(`${bin} $$ ${pidFile}`, { cwd: dir, timeoutMs: 30_000 });
        expect(r.exitCode).toBe(0);
        const daemon = Number(readFileSync(pidFile, "utf8"));
        daemons.push(daemon);
        await until(() => !running(daemon));
        expect(running(daemon)).toBe(false);
        if (r.durationMs < 800) break;
      }
    } finally {
      for (const d of daemons) {
        try {
          process.kill(d, "SIGKILL");
        } catch {
          // gone
        }
      }
    }
  });
});
