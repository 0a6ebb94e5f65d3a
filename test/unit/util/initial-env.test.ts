import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { commandEnv } from "../../../src/exec/run.js";
import { credentialEntries } from "../../../src/util/initial-env.js";
import { heldCredential, holdCredentials, secretValues, serverEnv } from "../../../src/util/secrets.js";
import { srcModule, TS_IMPORT } from "../../helpers/ts-import.js";

const TOKEN = "ghp_heldcanary0123456789abcdef";

describe("the environment block", () => {
  it("finds NAME=value entries only at an entry start, every occurrence, and nothing inside a value", () => {
    const block = Buffer.from("A=1\0GITHUB_TOKEN=ghp_x\0B=GITHUB_TOKEN=no\0GITHUB_TOKEN=dup\0NPM_TOKEN=\0PATH=/bin", "latin1");
    const found = credentialEntries(block, new Set(["GITHUB_TOKEN", "NPM_TOKEN"]));
    expect(found.map((e) => block.toString("latin1", e.offset, e.offset + e.length))).toEqual(["GITHUB_TOKEN=ghp_x", "GITHUB_TOKEN=dup", "NPM_TOKEN="]);
  });

  it("is blanked in place by the built server's entry point, which keeps the values for itself", () => {
    // A process of its own: the scrub changes the process it runs in.
    const script = `
      import { holdAndScrubCredentials } from ${JSON.stringify(srcModule("util/initial-env.js"))};
      import { heldCredential } from ${JSON.stringify(srcModule("util/secrets.js"))};
      import { readFileSync } from "node:fs";
      const o = holdAndScrubCredentials();
      const block = readFileSync("/proc/self/environ", "latin1");
      console.log(JSON.stringify({ o, inBlock: block.includes(process.argv[1]), inEnv: process.env.GITHUB_TOKEN ?? null, held: heldCredential("GITHUB_TOKEN") === process.argv[1], path: block.includes("PATH=") }));`;
    const out = execFileSync(process.execPath, [...TS_IMPORT, "--input-type=module", "-e", script, TOKEN], {
      env: { PATH: process.env.PATH ?? "", GITHUB_TOKEN: TOKEN },
      encoding: "utf8",
    });
    expect(JSON.parse(out)).toEqual({ o: { held: ["GITHUB_TOKEN"], scrubbed: ["GITHUB_TOKEN"] }, inBlock: false, inEnv: null, held: true, path: true });
  });
});

describe("held credentials", () => {
  it("leave process.env but stay known: redaction, the server's view and passEnv read them", () => {
    const env: NodeJS.ProcessEnv = { GITHUB_TOKEN: TOKEN, DEPLOY_TOKEN: `${TOKEN}_d`, HOME: "/h" };
    expect([...holdCredentials(env).keys()]).toEqual(["GITHUB_TOKEN", "DEPLOY_TOKEN"]);
    expect(env).toEqual({ HOME: "/h" });
    expect(heldCredential("GITHUB_TOKEN")).toBe(TOKEN);
    expect(serverEnv().GITHUB_TOKEN).toBe(TOKEN);
    expect(secretValues()).toContain(TOKEN);
    const cmd = commandEnv(undefined, ["DEPLOY_TOKEN"]);
    expect(cmd.DEPLOY_TOKEN).toBe(`${TOKEN}_d`);
    expect(cmd.GITHUB_TOKEN).toBeUndefined();
  });
});
