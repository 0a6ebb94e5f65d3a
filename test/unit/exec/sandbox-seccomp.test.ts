import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../../src/exec/run.js";
import type { Sandbox } from "../../../src/exec/sandbox.js";
import { keyringFilter } from "../../../src/exec/sandbox-seccomp.js";
import { ROOT } from "../../helpers/repo.js";

/** Runs a classic BPF seccomp program as the kernel would, over one call (little-endian bytes). */
function verdict(prog: Buffer, arch: number, nr: number): number {
  let a = 0;
  for (let pc = 0; pc * 8 < prog.length; pc++) {
    const o = pc * 8;
    const [code, jt, jf, k] = [prog.readUInt16LE(o), prog.readUInt8(o + 2), prog.readUInt8(o + 3), prog.readUInt32LE(o + 4)];
    if (code === 0x20) a = k === 0 ? nr >>> 0 : k === 4 ? arch : Number.NaN;
    else if (code === 0x54) a = (a & k) >>> 0;
    else if (code === 0x15) pc += a === k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unknown instruction ${code}`);
  }
  throw new Error("the program ran off its end");
}

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;

describe("the keyring filter's program", () => {
  const prog = keyringFilter("LE");
  it("denies add_key, request_key and keyctl with EPERM on each architecture, and nothing else", () => {
    const cases: [number, number[], number[]][] = [
      [0xc000003e, [248, 249, 250], [0, 39, 247, 251, 288]], // x86_64
      [0x40000003, [286, 287, 288], [248, 250, 20]], // i386
      [0xc00000b7, [217, 218, 219], [250, 216, 220]], // aarch64
      [0x40000028, [309, 310, 311], [219, 250]], // arm
      [0x80000016, [278, 279, 280], [250]], // s390x
    ];
    for (const [arch, denied, allowed] of cases) {
      for (const nr of denied) expect(verdict(prog, arch, nr), `${arch.toString(16)}:${nr}`).toBe(EPERM);
      for (const nr of allowed) expect(verdict(prog, arch, nr), `${arch.toString(16)}:${nr}`).toBe(ALLOW);
    }
  });
  it("denies x32's calls (the x32 bit set) and lets an unknown architecture through", () => {
    expect(verdict(prog, 0xc000003e, 0x40000000 + 250)).toBe(EPERM);
    expect(verdict(prog, 0xc000003e, 0x40000000 + 39)).toBe(ALLOW);
    expect(verdict(prog, 0x12345678, 250)).toBe(ALLOW);
  });
  it("is the same program in either byte order", () => {
    const be = keyringFilter("BE");
    expect(be.length).toBe(prog.length);
    for (let o = 0; o < prog.length; o += 8) {
      expect(be.readUInt16BE(o)).toBe(prog.readUInt16LE(o));
      expect(be.readUInt32BE(o + 4)).toBe(prog.readUInt32LE(o + 4));
    }
  });
});

const hasBwrap = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0;
const hasPython = spawnSync("python3", ["-c", "pass"]).status === 0;
const KEYCTL = ({ x64: 250, arm64: 219 } as Record<string, number>)[process.arch];
const realTests = (hasBwrap || process.env.CI === "true") && hasPython && KEYCTL ? describe : describe.skip;

let root = "";
beforeAll(() => {
  mkdirSync(path.join(ROOT, ".tmp"), { recursive: true });
  root = mkdtempSync(path.join(ROOT, ".tmp", "trm-seccomp-"));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

realTests("sandbox: the kernel keyring is out of reach", () => {
  // keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, create): the user's keyring, from which a command
  // searched and read a key the user had put there (a Kerberos ticket); the errno when it fails.
  const probe = `python3 -c "import ctypes; l = ctypes.CDLL(None, use_errno=True); r = l.syscall(${KEYCTL}, 0, -4, 1); print('keyring', r, ctypes.get_errno())"`;
  it("keyctl fails with EPERM in the sandbox and works outside it; other calls and the descriptors are as before", async () => {
    const wt = path.join(root, "wt");
    mkdirSync(wt, { recursive: true });
    const cmd = `${probe}; ls /proc/self/fd | tr '\\n' ' '; echo; echo "listed $(cat /proc/keys /proc/key-users 2>/dev/null | wc -c)"; echo ran`;
    const outside = await runCommand(cmd, { cwd: wt, timeoutMs: 30_000 });
    expect(outside.output.stdout).toMatch(/^keyring [1-9]\d* 0$/m);
    const sb: Sandbox = { writable: [wt], readable: [], network: false, private: path.join(root, "priv") };
    const inside = await runCommand(cmd, { cwd: wt, timeoutMs: 30_000, sandbox: sb });
    expect(inside.exitCode).toBe(0);
    expect(inside.output.stdout).toMatch(/^keyring -1 1$/m);
    // bwrap closed the descriptor it read the program from: the command holds the same ones as outside.
    // The keyring's listings are empty: outside they hold at least the user's own keyring.
    expect(outside.output.stdout).toMatch(/^listed [1-9]\d*$/m);
    expect(inside.output.stdout).toMatch(/^listed 0$/m);
    const fds = (out: string) => out.split("\n")[1];
    expect(fds(inside.output.stdout)).toBe(fds(outside.output.stdout));
    expect(inside.output.stdout).toMatch(/\nran\n$/);
  });
});
