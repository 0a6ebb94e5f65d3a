import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { alive, until, waitingShellsIn } from "../../helpers/processes.js";
import { tmpDir } from "../../helpers/repo.js";
import { commandEnv, runCommand, type RunResult } from "../../../src/evaluate/run.js";
import { RUN_MARKER } from "../../../src/evaluate/sweep.js";
import { endWarm, evaluating, warmCount, warmUp } from "../../../src/evaluate/warm-shells.js";

const ROOT = path.resolve(import.meta.dirname, "../../..");

/** Waiting shells of `cwd` with this environment, as the evaluation after a step starts them. */
function warm(cwd: string, env: Record<string, string>, count = 1): void {
  warmUp(cwd, commandEnv(env), RUN_MARKER, count);
}

async function warmed(cwd: string, count: number): Promise<void> {
  await until(() => warmCount(cwd) >= count);
  expect(warmCount(cwd)).toBe(count);
}

/** What a command run both ways must agree on (the pid and the marker differ by design). */
const same = (r: RunResult) => ({ exitCode: r.exitCode, signal: r.signal, stdout: r.output.stdout.replace(/^pid \d+$/m, "pid"), stderr: r.output.stderr, spawnError: r.spawnError });

afterEach(() => endWarm());

describe.runIf(process.platform === "linux")("commands run in a shell started ahead", () => {
  it("run exactly as a fresh spawn: environment, arguments, folder, open files, exit code, signal, output", async () => {
    const cwd = tmpDir("trm-warm-");
    const env = { TRM_STEP: "1", c: "kept", k: "kept too", FOO: "bar" };
    // Its open files listed by a simple command: in a pipeline, the shell holds the pipes while it starts
    // the parts, and ls sees them or not.
    const probes = [
      `env | grep -v '^${RUN_MARKER}=' | sort; echo "args $0 $# [$*]"; pwd; ls /proc/$$/fd > fds.txt; sort -n fds.txt | tr '\\n' ' '; echo; echo "pid $$"; echo to-stderr >&2`,
      "exit 3",
      "kill -9 $$",
      "printf 'a\\0b' | od -c | head -1; echo \"$c|$k\"",
      "set -e; false; echo not-reached",
    ];
    for (const cmd of probes) {
      const fresh = await runCommand(cmd, { cwd, timeoutMs: 10_000, env });
      warm(cwd, env);
      await warmed(cwd, 1);
      const ahead = await runCommand(cmd, { cwd, timeoutMs: 10_000, env, warm: true });
      // The waiting shell was used (taken), not a new spawn.
      expect(warmCount(cwd)).toBe(0);
      expect(same(ahead)).toEqual(same(fresh));
    }
  });

  it("are kept, not started again, when the next step's environment differs only in values they can be sent", async () => {
    const cwd = tmpDir("trm-warm-");
    warm(cwd, { TRM_STEP: "1" }, 2);
    await warmed(cwd, 2);
    const first = waitingShellsIn(cwd).sort();
    // A second chain for the same folder (the next step's) while nothing was used.
    warm(cwd, { TRM_STEP: "2" }, 2);
    await new Promise((r) => setTimeout(r, 100));
    expect(warmCount(cwd)).toBe(2);
    expect(waitingShellsIn(cwd).sort()).toEqual(first);
  });

  it("sets a variable whose value changed since the shell started, and runs in it with the new value", async () => {
    const cwd = tmpDir("trm-warm-");
    warm(cwd, { TRM_STEP: "4" });
    await warmed(cwd, 1);
    const r = await runCommand('echo "step $TRM_STEP"', { cwd, timeoutMs: 10_000, env: { TRM_STEP: "5" }, warm: true });
    expect(warmCount(cwd)).toBe(0);
    expect(r.output.stdout).toBe("step 5\n");
  });

  it("is not used for another set of variables, another folder at the same path, or once killed: those commands are spawned", async () => {
    const cwd = tmpDir("trm-warm-");
    warm(cwd, { A: "1" });
    await warmed(cwd, 1);
    expect((await runCommand('echo "$A-$B"', { cwd, timeoutMs: 10_000, env: { A: "1", B: "2" }, warm: true })).output.stdout).toBe("1-2\n");
    expect(warmCount(cwd)).toBe(0);

    // The folder removed and made again: the waiting shell's folder is the old one.
    const dir = path.join(cwd, "wt");
    mkdirSync(dir);
    warm(dir, {});
    await warmed(dir, 1);
    rmSync(dir, { recursive: true });
    mkdirSync(dir);
    writeFileSync(path.join(dir, "here.txt"), "new folder\n");
    expect((await runCommand("cat here.txt", { cwd: dir, timeoutMs: 10_000, warm: true })).output.stdout).toBe("new folder\n");

    // Killed while waiting (by anyone): the command still runs.
    warm(cwd, {});
    await warmed(cwd, 1);
    const [pid] = waitingShellsIn(cwd);
    process.kill(pid!, "SIGKILL");
    await until(() => !alive(pid));
    expect((await runCommand("echo ran", { cwd, timeoutMs: 10_000, warm: true })).output.stdout).toBe("ran\n");
  });

  it("is not used once stopped (SIGSTOP by an earlier command): the command is spawned and runs", async () => {
    const cwd = tmpDir("trm-warm-");
    warm(cwd, {});
    await warmed(cwd, 1);
    const [pid] = waitingShellsIn(cwd);
    process.kill(pid!, "SIGSTOP");
    await until(() => /^State:\s+T/m.test(readFileSync(`/proc/${pid}/status`, "utf8")));
    const r = await runCommand("echo ran", { cwd, timeoutMs: 5_000, warm: true, killGraceMs: 100 });
    expect([r.timedOut, r.exitCode, r.output.stdout]).toEqual([false, 0, "ran\n"]);
    // Ended, not left stopped.
    await until(() => !alive(pid!));
    expect(alive(pid!)).toBe(false);
  });

  it("is not used once another process changed its limits or priority (prlimit, renice): the command gets the server's, as a fresh spawn", async () => {
    const cwd = tmpDir("trm-warm-");
    const cmd = "ulimit -n; nice";
    const fresh = await runCommand(cmd, { cwd, timeoutMs: 10_000 });
    for (const tamper of [(pid: number) => execFileSync("prlimit", ["--pid", String(pid), "--nofile=64:64"]), (pid: number) => execFileSync("renice", ["-n", "5", "-p", String(pid)])]) {
      warm(cwd, {});
      await warmed(cwd, 1);
      const [pid] = waitingShellsIn(cwd);
      tamper(pid!);
      const r = await runCommand(cmd, { cwd, timeoutMs: 10_000, warm: true });
      expect(r.output.stdout).toBe(fresh.output.stdout);
      await until(() => !alive(pid!));
      expect(alive(pid!)).toBe(false);
    }
    // One left alone is used.
    warm(cwd, {});
    await warmed(cwd, 1);
    const [pid] = waitingShellsIn(cwd);
    expect((await runCommand("echo $$", { cwd, timeoutMs: 10_000, warm: true })).output.stdout).toBe(`${pid}\n`);
  });

  it("end without running anything when their server goes away, or when the session ends", async () => {
    const cwd = tmpDir("trm-warm-");
    const flag = path.join(cwd, "ran");
    // A server that starts two shells and dies without a word.
    const server = `
      const { warmUp, warmCount } = await import(${JSON.stringify(path.join(ROOT, "dist/evaluate/warm-shells.js"))});
      warmUp(${JSON.stringify(cwd)}, { PATH: process.env.PATH }, "TRM_RUN", 2);
      const wait = () => (warmCount(${JSON.stringify(cwd)}) >= 2 ? process.exit(0) : setTimeout(wait, 10));
      wait();`;
    execFileSync(process.execPath, ["--input-type=module", "-e", server]);
    const pids = waitingShellsIn(cwd);
    await until(() => pids.every((p) => !alive(p)));
    expect(pids.filter(alive)).toEqual([]);
    expect(() => readFileSync(flag)).toThrow();

    warm(cwd, {}, 2);
    await warmed(cwd, 2);
    const mine = waitingShellsIn(cwd);
    expect(mine).toHaveLength(2);
    endWarm(cwd);
    expect(warmCount(cwd)).toBe(0);
    await until(() => mine.every((p) => !alive(p)));
    expect(mine.filter(alive)).toEqual([]);
  });

  it("a cancellation that comes while the shell's group is being recorded ends the command, as for a fresh spawn", async () => {
    const cwd = tmpDir("trm-warm-");
    const flag = path.join(cwd, "ran");
    for (const warmRun of [false, true]) {
      warm(cwd, {});
      await warmed(cwd, 1);
      const ac = new AbortController();
      const run = runCommand(`sleep 3; echo ran > ${flag}`, { cwd, timeoutMs: 20_000, env: {}, warm: warmRun, signal: ac.signal, groupFile: path.join(cwd, "group"), killGraceMs: 100 });
      // runCommand returns at its first wait: for a warm shell, the record of its group.
      ac.abort();
      const r = await run;
      expect({ warmRun, cancelled: r.cancelled, exitCode: r.exitCode }).toEqual({ warmRun, cancelled: true, exitCode: null });
      // The shell left unused goes; the folder opens again as for the session's next evaluation.
      endWarm();
      evaluating(cwd)();
    }
    await new Promise((r) => setTimeout(r, 3500));
    expect(() => readFileSync(flag)).toThrow();
  });

  it("keep waiting past a TMOUT in the environment, and run the command sent, not an empty one", async () => {
    const cwd = tmpDir("trm-warm-");
    const env = { TMOUT: "0.2", TRM_STEP: "1" };
    warm(cwd, env);
    await warmed(cwd, 1);
    // Several of its timeouts later.
    await new Promise((r) => setTimeout(r, 1000));
    expect(warmCount(cwd)).toBe(1);
    const r = await runCommand('echo "ran $TRM_STEP $TMOUT"', { cwd, timeoutMs: 10_000, env: { ...env, TRM_STEP: "2" }, warm: true });
    expect(warmCount(cwd)).toBe(0);
    expect([r.exitCode, r.output.stdout]).toEqual([0, "ran 2 0.2\n"]);
  });

  it("with variables bash acts on as it starts (BASH_ENV, SHELLOPTS, functions named like builtins), run exactly as a fresh spawn", async () => {
    const cwd = tmpDir("trm-warm-");
    const sourced = path.join(cwd, "sourced");
    writeFileSync(path.join(cwd, "bash-env.sh"), `echo sourced >&2; echo x >> ${sourced}\n`);
    const envs: Record<string, string>[] = [
      { BASH_ENV: path.join(cwd, "bash-env.sh") },
      { SHELLOPTS: "xtrace" },
      { SHELLOPTS: "allexport" },
      { "BASH_FUNC_read%%": "() { echo hijacked; builtin read \"$@\"; }" },
      { BASH_ARGV0: "named" },
    ];
    // No pipeline: xtrace prints its parts in any order.
    const cmd = 'echo "$0"; env > env.txt; grep -c __trm_ env.txt';
    for (const env of envs) {
      rmSync(sourced, { force: true });
      const fresh = await runCommand(cmd, { cwd, timeoutMs: 10_000, env });
      const sourcedFresh = readFileSync(sourced, { encoding: "utf8", flag: "a+" });
      rmSync(sourced, { force: true });
      warm(cwd, env);
      await new Promise((r) => setTimeout(r, 200));
      const ahead = await runCommand(cmd, { cwd, timeoutMs: 10_000, env, warm: true });
      expect(same(ahead)).toEqual(same(fresh));
      // Nothing of the user's ran between the commands.
      expect(readFileSync(sourced, { encoding: "utf8", flag: "a+" })).toBe(sourcedFresh);
      endWarm();
    }
  });

  it("with a locale that is not installed, the command's output has the shell's one warning, as from a fresh spawn", async () => {
    const cwd = tmpDir("trm-warm-");
    // A container's LC_ALL without the locale generated; LANG as well, and a step's changed number.
    const env = { LC_ALL: "xx_YY.UTF-8", LANG: "yy_ZZ.UTF-8", TRM_STEP: "1" };
    const next = { ...env, TRM_STEP: "2" };
    const cmd = 'echo "$LC_ALL $LANG $TRM_STEP"';
    const fresh = await runCommand(cmd, { cwd, timeoutMs: 10_000, env: next });
    expect(fresh.output.stderr).toContain("xx_YY.UTF-8");
    warm(cwd, env);
    await warmed(cwd, 1);
    const ahead = await runCommand(cmd, { cwd, timeoutMs: 10_000, env: next, warm: true });
    expect(warmCount(cwd)).toBe(0);
    expect(same(ahead)).toEqual(same(fresh));
  });

  it("start none in a folder whose session ended, even from a warm-up already under way; an evaluation there opens it again", async () => {
    const cwd = tmpDir("trm-warm-");
    // A warm-up of three (one shell per timer turn), ended at once, as a session ended right after a step.
    warm(cwd, {}, 3);
    endWarm(cwd);
    await new Promise((r) => setTimeout(r, 150));
    expect(waitingShellsIn(cwd)).toEqual([]);
    warm(cwd, {}, 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(warmCount(cwd)).toBe(0);
    evaluating(cwd)();
    warm(cwd, {}, 1);
    await warmed(cwd, 1);
  });

  it("start none while an evaluation runs in the folder", async () => {
    const cwd = tmpDir("trm-warm-");
    const done = evaluating(cwd);
    warm(cwd, {}, 2);
    await new Promise((r) => setTimeout(r, 100));
    expect(warmCount(cwd)).toBe(0);
    done();
    warm(cwd, {}, 2);
    await warmed(cwd, 2);
  });
});
