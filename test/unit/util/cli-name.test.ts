import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliCommand as cliCommandOf } from "../../../src/util/cli-name.js";
import { ROOT } from "../../helpers/repo.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "trm-cli-name-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// A CLI entry point of its own, which must exist for a link to be followed to it.
const main = path.join(dir, "pkg", "dist", "cli", "main.js");
mkdirSync(path.dirname(main), { recursive: true });
writeFileSync(main, "#!/usr/bin/env node\n");
const cliCommand = (env: NodeJS.ProcessEnv) => cliCommandOf(env, main);

function binIn(folder: string, target: string | null): string {
  mkdirSync(folder, { recursive: true });
  const bin = path.join(folder, "code-trm");
  if (target) symlinkSync(target, bin);
  else {
    writeFileSync(bin, "#!/bin/sh\n");
    chmodSync(bin, 0o755);
  }
  return folder;
}

describe("cliCommand", () => {
  it("names the CLI beside the module: src/cli/main.js here, dist/cli/main.js once built", () => {
    expect(cliCommandOf({ PATH: "/nonexistent" })).toBe(`node ${path.join(ROOT, "src", "cli", "main.js")}`);
  });

  it("is code-trm when that name on PATH is this code-trm (npm link, npm install -g), else node with the absolute path of the CLI", () => {
    chmodSync(main, 0o755); // as npm link and npm install -g leave it
    const linked = binIn(path.join(dir, "global", "bin"), main);
    expect(cliCommand({ PATH: "/nonexistent" })).toBe(`node ${main}`);
    expect(cliCommand({ PATH: `/nonexistent${path.delimiter}${linked}` })).toBe("code-trm");
  });

  it("is not fooled by another program of that name, or by the folders npx and npm run put on the server's PATH", () => {
    const other = binIn(path.join(dir, "other", "bin"), null);
    expect(cliCommand({ PATH: other })).toBe(`node ${main}`);
    // The shell runs the first one: another program ahead of this code-trm wins.
    chmodSync(main, 0o755);
    const ours = binIn(path.join(dir, "ours", "bin"), main);
    expect(cliCommand({ PATH: `${other}${path.delimiter}${ours}` })).toBe(`node ${main}`);
    expect(cliCommand({ PATH: `${ours}${path.delimiter}${other}` })).toBe("code-trm");
    const npx = binIn(path.join(dir, ".npm", "_npx", "0a1b2c", "node_modules", ".bin"), main);
    expect(cliCommand({ PATH: npx })).toBe(`node ${main}`);
    const local = binIn(path.join(dir, "project", "node_modules", ".bin"), main);
    expect(cliCommand({ PATH: local })).toBe(`node ${main}`);
  });
});
