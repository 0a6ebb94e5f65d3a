import os from "node:os";

/**
 * The seccomp program bwrap loads for every sandboxed command (`--seccomp <fd>`): the kernel's keyring
 * calls (add_key, request_key, keyctl) fail with EPERM, every other call is allowed. Keyrings have no
 * namespace: a command under bwrap reached the user's keyring (Kerberos tickets, `KRB5CCNAME=KEYRING:…`
 * by default on RHEL and Fedora, cached disk passphrases) and could print a key into its output. Docker's
 * and Flatpak's default filters deny the same three calls the same way.
 *
 * A classic BPF program over `struct seccomp_data` (nr at 0, arch at 4), in the machine's byte order. An
 * architecture not listed passes unfiltered, as without the filter.
 */

const LD_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const AND = 0x54; // BPF_ALU | BPF_AND | BPF_K
const RET = 0x06; // BPF_RET | BPF_K
const ALLOW = 0x7fff0000; // SECCOMP_RET_ALLOW
const DENY = 0x00050000 | 1; // SECCOMP_RET_ERRNO | EPERM
const X32_BIT = 0x40000000; // x86_64's x32 calls carry it; their keyring numbers are the 64-bit ones

/** add_key, request_key, keyctl per audit architecture (the kernel's syscall tables). */
const KEYRING_CALLS: readonly { arch: number; nrs: readonly number[]; x32?: boolean }[] = [
  { arch: 0xc000003e, nrs: [248, 249, 250], x32: true }, // x86_64 (and x32)
  { arch: 0x40000003, nrs: [286, 287, 288] }, // i386
  { arch: 0xc00000b7, nrs: [217, 218, 219] }, // aarch64
  { arch: 0xc00000f3, nrs: [217, 218, 219] }, // riscv64
  { arch: 0x40000028, nrs: [309, 310, 311] }, // arm (EABI)
  { arch: 0xc0000015, nrs: [269, 270, 271] }, // ppc64le
  { arch: 0x80000016, nrs: [278, 279, 280] }, // s390x
];

interface Insn {
  code: number;
  k: number;
  /** Jump targets (labels) when the condition holds or not; a jump that falls through is "next". */
  jt?: string;
  jf?: string;
  label?: string;
}

function program(): Insn[] {
  const p: Insn[] = [{ code: LD_ABS, k: 4 }];
  KEYRING_CALLS.forEach((a, i) => p.push({ code: JEQ, k: a.arch, jt: `arch${i}`, jf: "next" }));
  p.push({ code: RET, k: ALLOW });
  KEYRING_CALLS.forEach((a, i) => {
    p.push({ code: LD_ABS, k: 0, label: `arch${i}` });
    if (a.x32) p.push({ code: AND, k: ~X32_BIT >>> 0 });
    for (const nr of a.nrs) p.push({ code: JEQ, k: nr, jt: "deny", jf: "next" });
    p.push({ code: RET, k: ALLOW });
  });
  p.push({ code: RET, k: DENY, label: "deny" });
  return p;
}

/** The program as bwrap reads it: 8 bytes per instruction (u16 code, u8 jt, u8 jf, u32 k). */
export function keyringFilter(endian: "LE" | "BE" = os.endianness()): Buffer {
  const insns = program();
  const at = new Map(insns.flatMap((ins, i) => (ins.label ? [[ins.label, i] as const] : [])));
  const offset = (from: number, label: string | undefined) => {
    if (label === undefined || label === "next") return 0;
    const to = at.get(label);
    if (to === undefined || to <= from || to - from - 1 > 255) throw new Error(`seccomp: bad jump to ${label}`);
    return to - from - 1;
  };
  const buf = Buffer.alloc(insns.length * 8);
  insns.forEach((ins, i) => {
    const o = i * 8;
    if (endian === "LE") {
      buf.writeUInt16LE(ins.code, o);
      buf.writeUInt32LE(ins.k >>> 0, o + 4);
    } else {
      buf.writeUInt16BE(ins.code, o);
      buf.writeUInt32BE(ins.k >>> 0, o + 4);
    }
    buf.writeUInt8(offset(i, ins.jt), o + 2);
    buf.writeUInt8(offset(i, ins.jf), o + 3);
  });
  return buf;
}
