import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../../../src/exec/run.js";
import type { Sandbox } from "../../../src/exec/sandbox.js";
import { ROOT } from "../../helpers/repo.js";

/**
 * The server's environment may point git at a config outside the home (GIT_CONFIG_GLOBAL,
 * GIT_CONFIG_SYSTEM, XDG_CONFIG_HOME), or other tools at their credentials (NPM_CONFIG_USERCONFIG, gh's
 * hosts.yml under XDG_CONFIG_HOME): a sandboxed command got the variables, and git in it read the URL
 * with a token and the credential helper, from files the read-only root showed. Now what they name is
 * hidden and they are unset (git reads the private home's config); GIT_CONFIG_COUNT / _KEY_n / _VALUE_n
 * and GIT_CONFIG_PARAMETERS were never passed (exec/env.ts). With real bubblewrap; the control runs the
 * same probe unconfined, where every canary shows.
 */

const hasBwrap = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0;
const sandboxTests = hasBwrap || process.env.CI === "true" ? describe : describe.skip;

const CANARY = `cfg-canary-${randomBytes(6).toString("hex")}`;
const VARS = [
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "XDG_CONFIG_HOME",
  "NPM_CONFIG_USERCONFIG",
  "GIT_CONFIG_COUNT",
  "GIT_CONFIG_KEY_0",
  "GIT_CONFIG_VALUE_0",
  "GIT_CONFIG_PARAMETERS",
  "CARGO_HOME",
  "GRADLE_USER_HOME",
  "PGPASSFILE",
  "TF_CLI_CONFIG_FILE",
  "REGISTRY_AUTH_FILE",
];
let root = "";
let saved: Record<string, string | undefined> = {};
beforeEach(() => {
  mkdirSync(path.join(ROOT, ".tmp"), { recursive: true });
  root = mkdtempSync(path.join(ROOT, ".tmp", "trm-cfg-vars-"));
  saved = Object.fromEntries(["HOME", ...VARS].map((v) => [v, process.env[v]]));
});
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(root, { recursive: true, force: true });
});

sandboxTests("sandbox: variables that name a configuration or a credential outside it", () => {
  it("git reads no config the server's environment names, and the files they name are hidden", async () => {
    const home = path.join(root, "home");
    mkdirSync(home);
    process.env.HOME = home;
    // Outside the home and /tmp (a CI's config folder, a shared disk): the read-only root showed it.
    const etc = path.join(root, "etc");
    mkdirSync(path.join(etc, "xdg", "git"), { recursive: true });
    mkdirSync(path.join(etc, "xdg", "gh"));
    writeFileSync(
      path.join(etc, "global.cfg"),
      `[url "https://x:${CANARY}-global@github.com/"]\n\tinsteadOf = https://github.com/\n[include]\n\tpath = more.cfg\n`,
    );
    writeFileSync(path.join(etc, "more.cfg"), `[http]\n\textraHeader = bearer ${CANARY}-include\n`);
    writeFileSync(path.join(etc, "system.cfg"), `[credential]\n\thelper = store --file ${etc}/${CANARY}-creds\n`);
    writeFileSync(path.join(etc, "xdg", "git", "config"), `[user]\n\temail = ${CANARY}-xdg@example.com\n`);
    writeFileSync(path.join(etc, "xdg", "gh", "hosts.yml"), `github.com:\n    oauth_token: gho_${CANARY}\n`);
    writeFileSync(path.join(etc, "npmrc"), `//registry.npmjs.org/:_authToken=${CANARY}-npm\n`);
    process.env.GIT_CONFIG_GLOBAL = path.join(etc, "global.cfg");
    process.env.GIT_CONFIG_SYSTEM = path.join(etc, "system.cfg");
    process.env.XDG_CONFIG_HOME = path.join(etc, "xdg");
    process.env.NPM_CONFIG_USERCONFIG = path.join(etc, "npmrc");
    process.env.GIT_CONFIG_COUNT = "1";
    process.env.GIT_CONFIG_KEY_0 = "user.name";
    process.env.GIT_CONFIG_VALUE_0 = `${CANARY}-count`;
    process.env.GIT_CONFIG_PARAMETERS = `'user.name'='${CANARY}-params'`;
    const wt = path.join(root, "wt");
    mkdirSync(wt);
    const sb: Sandbox = { writable: [wt], readable: [], network: false, private: path.join(root, "priv") };
    const probe = [
      "env | grep -E '^(GIT_CONFIG|XDG_CONFIG_HOME|NPM_CONFIG)'",
      "git config --list --show-origin",
      `cat ${etc}/global.cfg ${etc}/more.cfg ${etc}/system.cfg ${etc}/xdg/git/config ${etc}/xdg/gh/hosts.yml ${etc}/npmrc`,
      // git still works, with the private home's config.
      "git config --global user.name sandboxed && git config user.name && echo ok",
    ]
      .map((c) => `(${c}) 2>&1`)
      .join("; ");
    const open = await runCommand(probe, { cwd: wt, timeoutMs: 30_000 });
    for (const what of ["global", "include", "creds", "xdg", "gho_", "npm"])
      expect(open.output.stdout).toMatch(new RegExp(`${what}[^\\n]*${CANARY}|${CANARY}-${what}`));

    const r = await runCommand(probe, { cwd: wt, timeoutMs: 30_000, sandbox: sb });
    expect(r.output.stdout).not.toContain(CANARY);
    expect(r.output.stdout).not.toMatch(/^(GIT_CONFIG|XDG_CONFIG_HOME|NPM_CONFIG)/m);
    expect(r.output.stdout).toMatch(/\nsandboxed\nok\n$/);
    // A variable the session passes by name (passEnv) keeps what it names.
    const passed = await runCommand(`cat "$NPM_CONFIG_USERCONFIG"`, { cwd: wt, timeoutMs: 30_000, sandbox: sb, passEnv: ["NPM_CONFIG_USERCONFIG"] });
    expect(passed.output.stdout).toContain(`${CANARY}-npm`);
  });

  it("nor the credentials a tool keeps where its variable says (CARGO_HOME, GRADLE_USER_HOME, PGPASSFILE, ...); the tool's folder stays", async () => {
    const home = path.join(root, "home");
    mkdirSync(home);
    process.env.HOME = home;
    // The official rust image's CARGO_HOME=/usr/local/cargo: `cargo login` writes credentials.toml there.
    const opt = path.join(root, "opt");
    mkdirSync(path.join(opt, "cargo", "bin"), { recursive: true });
    mkdirSync(path.join(opt, "gradle"));
    writeFileSync(path.join(opt, "cargo", "credentials.toml"), `[registry]\ntoken = "${CANARY}-cargo"\n`);
    writeFileSync(path.join(opt, "cargo", "credentials"), `[registry]\ntoken = "${CANARY}-cargo-old"\n`);
    writeFileSync(path.join(opt, "cargo", "bin", "tool"), "#!/bin/sh\n");
    writeFileSync(path.join(opt, "gradle", "gradle.properties"), `mavenPassword=${CANARY}-gradle\n`);
    writeFileSync(path.join(opt, "pgpass"), `db:5432:app:app:${CANARY}-pg\n`);
    writeFileSync(path.join(opt, "terraformrc"), `credentials "app.terraform.io" {\n  token = "${CANARY}-tf"\n}\n`);
    writeFileSync(path.join(opt, "auth.json"), `{"auths":{"ghcr.io":{"auth":"${CANARY}-registry"}}}\n`);
    process.env.CARGO_HOME = path.join(opt, "cargo");
    process.env.GRADLE_USER_HOME = path.join(opt, "gradle");
    process.env.PGPASSFILE = path.join(opt, "pgpass");
    process.env.TF_CLI_CONFIG_FILE = path.join(opt, "terraformrc");
    process.env.REGISTRY_AUTH_FILE = path.join(opt, "auth.json");
    const wt = path.join(root, "wt");
    mkdirSync(wt);
    const sb: Sandbox = { writable: [wt], readable: [], network: false, private: path.join(root, "priv") };
    const probe = `cat ${opt}/cargo/credentials.toml ${opt}/cargo/credentials ${opt}/gradle/gradle.properties ${opt}/pgpass ${opt}/terraformrc ${opt}/auth.json 2>&1; test -e "$CARGO_HOME/bin/tool" && echo cargo-home-shown`;
    const open = await runCommand(probe, { cwd: wt, timeoutMs: 30_000 });
    for (const what of ["cargo", "cargo-old", "gradle", "pg", "tf", "registry"]) expect(open.output.stdout).toContain(`${CANARY}-${what}`);
    const r = await runCommand(probe, { cwd: wt, timeoutMs: 30_000, sandbox: sb });
    expect(r.output.stdout).not.toContain(CANARY);
    expect(r.output.stdout).toContain("cargo-home-shown");
  });
});
