/**
 * What a fixer left in its scratch copy is read only where it is a regular file reached through no link: the
 * repository's own code runs in the fixer (an ESLint config) and left a link to the user's key, which the
 * unconfined server read and offered as a fix (h30), or a FIFO, which would hang the read.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { rewritesOf } from "../../../src/suggest/fixers/scratch.js";
import { tmpDir } from "../../helpers/repo.js";

describe("rewritesOf", () => {
  it("takes a regular file the fixer changed, and nothing through a link, a linked folder or a FIFO", async () => {
    const root = tmpDir("trm-scratch-");
    const [wt, scratch, secret] = ["wt", "scratch", "secret"].map((d) => path.join(root, d));
    for (const d of [wt, scratch, secret]) mkdirSync(path.join(d, "src"), { recursive: true });
    for (const f of ["a.js", "b.js", "c.js", "d.js"]) writeFileSync(path.join(wt, "src", f), "var x = 1;\n");
    writeFileSync(path.join(secret, "id_rsa"), "-----BEGIN FAKE KEY-----\n");
    mkdirSync(path.join(secret, "keys"));
    writeFileSync(path.join(secret, "keys", "d.js"), "-----BEGIN FAKE KEY-----\n");
    writeFileSync(path.join(scratch, "src", "a.js"), "const x = 1;\n");
    symlinkSync(path.join(secret, "id_rsa"), path.join(scratch, "src", "b.js"));
    execFileSync("mkfifo", [path.join(scratch, "src", "c.js")]);
    mkdirSync(path.join(wt, "lib"));
    writeFileSync(path.join(wt, "lib", "d.js"), "var x = 1;\n");
    symlinkSync(path.join(secret, "keys"), path.join(scratch, "lib"));
    const out = await rewritesOf(wt, scratch, ["src/a.js", "src/b.js", "src/c.js", "lib/d.js"]);
    expect(out).toEqual([{ path: "src/a.js", before: "var x = 1;\n", after: "const x = 1;\n" }]);
  });
});
