import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { reapRecorded } from "../../../src/exec/orphans.js";
import { runCommand } from "../../../src/exec/run.js";
import { tmpDir } from "../../helpers/repo.js";
import { srcModule, TS_IMPORT } from "../../helpers/ts-import.js";

const cwd = tmpDir("trm-run-");

/**
 * A killed orphan is reparented to PID 1; where PID 1 does not reap (some containers), it stays a
 * zombie: dead, but still answering kill(pid, 0). So read its state instead.
 */
function alive(pid: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return !/^State:\s+Z/m.test(status);
  } catch {
    return false;
  }
}

describe("runCommand", () => {
  it("runs through the shell as typed: pipes, &&, VAR=x", async () => {
    const r = await runCommand("X=hello sh -c 'echo $X' | tr a-z A-Z && echo done >&2", { cwd, timeoutMs: 10_000 });
    expect(r.exitCode).toBe(0);
    expect(r.output.stdout.trim()).toBe("HELLO");
    expect(r.output.stderr.trim()).toBe("done");
  });

  it("keeps stdout and stderr in arrival order in the combined output while secrets are redacted", async () => {
    // A known secret makes every stream hold back a possible secret's start between chunks; the combined
    // output must still read in the order the command wrote (chain markers are cut from it).
    process.env.TRM_ORDER_TEST_API_KEY = "s3cr3t-value-for-order-test";
    try {
      const r = await runCommand("for i in 1 2 3; do echo out$i; sleep 0.05; echo err$i >&2; sleep 0.05; done; echo $TRM_ORDER_TEST_API_KEY", {
        cwd,
        timeoutMs: 10_000,
      });
      expect(r.output.all).toBe("out1\nerr1\nout2\nerr2\nout3\nerr3\n\n");
    } finally {
      delete process.env.TRM_ORDER_TEST_API_KEY;
    }
  });

  it("has a recorded command's run marker on disk before the command runs, so that a later server finds it whatever happens", async () => {
    // A server killed between the spawn and the pid's record left a command that no later server could find.
    const groupFile = path.join(cwd, "gate", "group");
    for (let i = 0; i < 20; i++) {
      const r = await runCommand(`cat ${groupFile} && echo "[$TRM_RUN]"`, { cwd, timeoutMs: 10_000, groupFile });
      expect(r.exitCode).toBe(0);
      const [record, marker] = r.output.stdout.split("\n");
      expect(marker).toMatch(/^\[[0-9a-f]{16}\]$/);
      expect(record!.split(" ").at(-1)).toBe(marker!.slice(1, -1));
    }
    expect(existsSync(groupFile)).toBe(false);
  });

  it("a later server kills a recorded command by its marker alone (no pid recorded yet), background children too", async () => {
    const groupFile = path.join(cwd, "marker-only", "group");
    const pidFile = path.join(cwd, "marker-only.pid");
    const pending = runCommand(`sleep 300 & echo $! > ${pidFile}; wait`, { cwd, timeoutMs: 60_000, groupFile });
    for (let i = 0; i < 200 && !existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 25));
    const child = Number(readFileSync(pidFile, "utf8"));
    // As if the server died before writing the pid: only the marker is on disk.
    const marker = readFileSync(groupFile, "utf8").trim().split(" ").at(-1)!;
    writeFileSync(groupFile, `0 - ${marker}\n`);
    expect(await reapRecorded(groupFile)).toBe(true);
    await pending;
    await new Promise((r) => setTimeout(r, 100));
    expect(alive(child)).toBe(false);
  });

  it("reports a failing exit code without throwing", async () => {
    const r = await runCommand("exit 3", { cwd, timeoutMs: 10_000 });
    expect(r.exitCode).toBe(3);
    expect(r.timedOut).toBe(false);
  });

  it("kills the whole process tree on timeout, grandchildren included", async () => {
    const pidFile = path.join(cwd, "grandchild.pid");
    // A grandchild that ignores nothing and would outlive a plain kill of the shell.
    const r = await runCommand(`sh -c 'sleep 300 & echo $! > ${pidFile}; wait'`, { cwd, timeoutMs: 500, killGraceMs: 200 });
    expect(r.timedOut).toBe(true);
    const pid = Number(readFileSync(pidFile, "utf8"));
    await new Promise((res) => setTimeout(res, 300));
    expect(alive(pid)).toBe(false);
    expect(r.durationMs).toBeLessThan(5000);
  });

  it("kills a tree that ignores SIGTERM after the grace period", async () => {
    const r = await runCommand(`trap '' TERM; sleep 300`, { cwd, timeoutMs: 300, killGraceMs: 300 });
    expect(r.timedOut).toBe(true);
    expect(r.durationMs).toBeLessThan(5000);
  });

  it("stops on abort and reports it as cancelled", async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const r = await runCommand("sleep 300", { cwd, timeoutMs: 60_000, signal: ac.signal, killGraceMs: 200 });
    expect(r.cancelled).toBe(true);
    expect(r.durationMs).toBeLessThan(5000);
  });

  it("reaps background processes left behind by a command that exited", async () => {
    const pidFile = path.join(cwd, "bg.pid");
    const r = await runCommand(`(sleep 300 & echo $! > ${pidFile}) ; echo started`, { cwd, timeoutMs: 10_000 });
    expect(r.exitCode).toBe(0);
    await new Promise((res) => setTimeout(res, 200));
    expect(alive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });

  it("caps huge output keeping head and tail, and strips ANSI colours", async () => {
    const r = await runCommand(`printf '\\033[31mFIRST\\033[0m\\n'; yes middle | head -n 2000000; echo LAST`, { cwd, timeoutMs: 30_000 });
    expect(r.truncated).toBe(true);
    expect(r.output.stdout.startsWith("FIRST\n")).toBe(true);
    expect(r.output.stdout.trimEnd().endsWith("LAST")).toBe(true);
    expect(r.output.stdout.length).toBeLessThan(9 * 1024 * 1024);
  });

  it("does not leak GIT_DIR or GIT_INDEX_FILE into commands", async () => {
    process.env.GIT_INDEX_FILE = "/tmp/should-not-leak";
    try {
      const r = await runCommand('echo "[${GIT_INDEX_FILE:-unset}]"', { cwd, timeoutMs: 10_000 });
      expect(r.output.stdout.trim()).toBe("[unset]");
    } finally {
      delete process.env.GIT_INDEX_FILE;
    }
  });

  it("runs in the environment a CI job gives: CI=true, no terminal, no colour switch of ours; the user's own passes through", async () => {
    // A project's colour tests (commander's, chalk's) pass in its CI and must pass here too (issue 22).
    const saved = { NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR };
    delete process.env.NO_COLOR;
    delete process.env.FORCE_COLOR;
    const probe = `echo "CI=$CI NO_COLOR=\${NO_COLOR-unset} FORCE_COLOR=\${FORCE_COLOR-unset}"; [ -t 0 ] || [ -t 1 ] || [ -t 2 ] && echo tty || echo no-tty`;
    try {
      const r = await runCommand(probe, { cwd, timeoutMs: 10_000 });
      expect(r.output.stdout.trim().split("\n")).toEqual(["CI=true NO_COLOR=unset FORCE_COLOR=unset", "no-tty"]);
      // The user's choice in the server's environment is theirs, kept as for any variable.
      process.env.NO_COLOR = "1";
      const mine = await runCommand(probe, { cwd, timeoutMs: 10_000 });
      expect(mine.output.stdout.trim().split("\n")[0]).toBe("CI=true NO_COLOR=1 FORCE_COLOR=unset");
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it("reports a missing working directory as a spawn error, not a crash", async () => {
    const r = await runCommand("true", { cwd: path.join(cwd, "missing"), timeoutMs: 10_000 });
    expect(r.exitCode).not.toBe(0);
    expect(existsSync(path.join(cwd, "missing"))).toBe(false);
  });
});

describe("runCommand and processes that leave the group", () => {
  it("does not wait for a child that escaped with setsid and holds the output open", async () => {
    const t0 = Date.now();
    const r = await runCommand("setsid sleep 30 & echo started", { cwd, timeoutMs: 20_000 });
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.exitCode).toBe(0);
    expect(r.timedOut).toBe(false);
    expect(r.output.stdout).toContain("started");
  });
});

describe("runCommand output decoding and start failures", () => {
  it("joins a character whose bytes arrive in two reads", async () => {
    // "é" is two bytes: the first is written and flushed, the second 200 ms later, so they are two reads.
    const script = "process.stdout.write(Buffer.from([0x61, 0xc3])); setTimeout(() => process.stdout.write(Buffer.from([0xa9, 0x62, 0x0a])), 200);";
    const r = await runCommand(`node -e '${script}'`, { cwd, timeoutMs: 10_000 });
    expect(r.exitCode).toBe(0);
    expect(r.output.stdout).toBe("aéb\n");
  });

  it("says that the working folder is missing when the command cannot start there", async () => {
    const r = await runCommand("true", { cwd: path.join(cwd, "no-such-folder"), timeoutMs: 10_000 });
    expect(r.exitCode).toBe(null);
    expect(r.spawnError).toContain("does not exist");
    expect(r.spawnError).toContain("no-such-folder");
  });
});

describe("runCommand when the command cannot start", () => {
  // node's spawn throws for some start failures (only ENOENT, EACCES, EAGAIN, EMFILE and ENFILE come as an
  // 'error' event): a command whose working folder was replaced by a file, or whose {files} expansion is
  // longer than the kernel takes, threw out of runCommand (and the step) instead of being reported.
  it("reports a working folder that is a file, recorded nowhere afterwards", async () => {
    const file = path.join(cwd, "not-a-folder");
    writeFileSync(file, "x");
    const groupFile = path.join(cwd, "start-fail", "group");
    const r = await runCommand("true", { cwd: file, timeoutMs: 10_000, groupFile });
    expect(r.exitCode).toBe(null);
    expect(r.spawnError).toContain("ENOTDIR");
    expect(r.spawnError).toContain("not a folder");
    expect(existsSync(groupFile)).toBe(false);
  });

  it("reports a command line longer than the kernel takes", async () => {
    const r = await runCommand(`echo ${"a".repeat(200_000)}`, { cwd, timeoutMs: 10_000 });
    expect(r.exitCode).toBe(null);
    expect(r.spawnError).toContain("E2BIG");
  });

  it("reports a server out of file descriptors (no pipes for the output)", () => {
    // In a process of its own with 64 descriptors: exhausting this test worker's (up to a million) would
    // be slow and starve the tests beside it.
    const probe = `
      import { openSync, closeSync } from "node:fs";
      const { runCommand } = await import(${JSON.stringify(srcModule("exec/run.js"))});
      const fds = [];
      try { for (;;) fds.push(openSync("/dev/null", "r")); } catch { /* EMFILE: the limit is reached */ }
      // Two free: not enough for the command's pipes.
      for (let i = 0; i < 2 && fds.length > 0; i++) closeSync(fds.pop());
      const r = await runCommand("echo hi", { cwd: ${JSON.stringify(cwd)}, timeoutMs: 10000 });
      for (const fd of fds) closeSync(fd);
      console.log(JSON.stringify({ exitCode: r.exitCode, spawnError: r.spawnError ?? null }));`;
    const out = execFileSync("bash", ["-c", 'ulimit -n 64 && exec "$0" "$1" "$2" --input-type=module -e "$3"', process.execPath, ...TS_IMPORT, probe], {
      encoding: "utf8",
    });
    const r = JSON.parse(out.trim().split("\n").at(-1)!) as { exitCode: number | null; spawnError: string | null };
    expect(r.exitCode).toBe(null);
    expect(r.spawnError).toMatch(/EMFILE|ENFILE/);
  });
});
