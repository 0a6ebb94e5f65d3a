import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliCommand } from "../../../src/util/cli-name.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "trm-cli-name-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("cliCommand", () => {
  it("is code-trm when that name is on PATH, else node with the absolute path of the CLI", () => {
    expect(cliCommand({ PATH: "/nonexistent" })).toMatch(/^node \/.*\/cli\/main\.js$/);
    writeFileSync(path.join(dir, "code-trm"), "#!/bin/sh\n");
    chmodSync(path.join(dir, "code-trm"), 0o755);
    expect(cliCommand({ PATH: `/nonexistent${path.delimiter}${dir}` })).toBe("code-trm");
  });
});
