import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../../../src/exec/run.js";
import type { Sandbox } from "../../../src/exec/sandbox.js";
import { ROOT } from "../../helpers/repo.js";

/**
 * The machine's shared temporary folders are not the command's: /var/tmp (what other programs and users
 * leave there) and the server's own TMPDIR when it is not under /tmp (`TMPDIR=/scratch/tmp`) were readable
 * from the sandbox. Each command gets empty ones instead, which it may write. With real bubblewrap; the
 * control runs the same probe unconfined, where it reads both canaries.
 */

const hasBwrap = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0;
const sandboxTests = hasBwrap || process.env.CI === "true" ? describe : describe.skip;

const CANARY = `TMP-CANARY-${randomBytes(6).toString("hex")}`;
const tag = randomBytes(4).toString("hex");
const inVarTmp = `/var/tmp/trm-shared-${tag}`;
const written = `/var/tmp/trm-written-${tag}`;
let root = "";
let saved: string | undefined;
beforeEach(() => {
  mkdirSync(path.join(ROOT, ".tmp"), { recursive: true });
  root = mkdtempSync(path.join(ROOT, ".tmp", "trm-shared-tmp-"));
  saved = process.env.TMPDIR;
});
afterEach(() => {
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
  rmSync(root, { recursive: true, force: true });
});
afterAll(() => {
  for (const f of [inVarTmp, written]) rmSync(f, { force: true });
});

sandboxTests("sandbox: the machine's shared temporary folders", () => {
  it("/var/tmp and the server's TMPDIR outside /tmp are empty and private to the command", async () => {
    writeFileSync(inVarTmp, `${CANARY}\n`);
    // The server's TMPDIR on another disk (outside /tmp and the home), with a file of another program's in it.
    const tmpdir = path.join(root, "scratch-tmp");
    mkdirSync(tmpdir);
    writeFileSync(path.join(tmpdir, "other-program.txt"), `${CANARY}\n`);
    process.env.TMPDIR = tmpdir;
    const wt = path.join(root, "wt");
    mkdirSync(wt);
    const sb: Sandbox = { writable: [wt], readable: [], network: false, private: path.join(root, "priv") };
    const probe = `cat ${inVarTmp} ${tmpdir}/other-program.txt 2>/dev/null; ls -A ${tmpdir} /var/tmp; echo mine > ${written} && cat ${written} && echo "tmp=$TMPDIR"`;
    const open = await runCommand(probe, { cwd: wt, timeoutMs: 30_000 });
    expect(open.output.stdout.split(CANARY).length - 1).toBe(2);
    rmSync(written, { force: true });

    const r = await runCommand(probe, { cwd: wt, timeoutMs: 30_000, sandbox: sb });
    expect(r.output.stdout).not.toContain(CANARY);
    expect(r.output.stdout).not.toContain(`trm-shared-${tag}`);
    expect(r.output.stdout).not.toContain("other-program");
    // Writable, and gone with the command: the machine's /var/tmp is untouched.
    expect(r.output.stdout).toContain("mine\ntmp=/tmp\n");
    expect(existsSync(written)).toBe(false);
    expect(r.exitCode).toBe(0);
  });
});
