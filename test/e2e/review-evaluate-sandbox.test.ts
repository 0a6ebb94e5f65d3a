import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { type HostileServer, json, notFound, prJson, startHostileServer } from "../helpers/hostile-github.js";
import { checkoutState, g, repoFromFiles, tmpDir } from "../helpers/repo.js";

/**
 * `evaluate: true` runs a pull request's build and test commands: its own code. Over MCP, with the PR served
 * by a local GitHub and fetched from a local bare repository, the head's tests are probes that pass only
 * when an attack fails (reading the clone's config with a token in a remote URL, its hooks, the home;
 * writing the checkout; reaching the network; leaving a daemon). In the bubblewrap sandbox all pass; on a
 * machine without bubblewrap the evaluation is refused unless trustPr, and then runs unconfined (the probes
 * fail: the attacks work there) and says so.
 */

type Any = Record<string, any>;
const hasBwrap = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0;
const sandboxTests = hasBwrap || process.env.CI === "true" ? describe : describe.skip;
const PR = "https://github.com/acme/app/pull/5";
const TOKEN = `ghp_evalCanary${randomBytes(8).toString("hex")}`;
const DAEMON = `4${randomBytes(2).readUInt16BE()}`;
const PROBES = ["config", "git config", "GIT_DIR", "hooks", "home", "checkout write", "network"];

let gh: HostileServer;
let srv: TestServer;
let home: string;
let user: string;
let sha: { base: string; head: string };

/** The head's test file: each test passes only when its attack fails. */
function probeTests(common: string, top: string, home: string, port: number): string {
  return `import { test } from "node:test";
import assert from "node:assert";
import { execSync, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
const T = ${JSON.stringify(TOKEN.slice(0, 20))};
const read = (p) => { try { return readFileSync(p, "utf8"); } catch { return ""; } };
const sh = (c) => { try { return execSync(c, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }); } catch { return ""; } };
// A daemon: out of the process group, it would outlive the run.
spawn(process.execPath, ["-e", "setTimeout(() => {}, 600000)", ${JSON.stringify(DAEMON)}], { detached: true, stdio: "ignore" }).unref();
test("config", () => assert.ok(!read(${JSON.stringify(path.join(common, "config"))}).includes(T)));
test("git config", () => assert.ok(!sh("git config --list").includes(T)));
test("GIT_DIR", () => assert.ok(!sh("GIT_DIR=${common} git config --list").includes(T)));
test("hooks", () => assert.equal(read(${JSON.stringify(path.join(common, "hooks", "pre-push"))}), ""));
test("home", () => assert.equal(read(${JSON.stringify(path.join(home, "secret.txt"))}), ""));
test("checkout write", () => {
  let wrote = false;
  try { writeFileSync(${JSON.stringify(path.join(top, "PWNED"))}, "x"); wrote = true; } catch {}
  assert.ok(!wrote);
});
test("network", async () => {
  const reached = await new Promise((resolve) => {
    const c = net.connect(${port}, "127.0.0.1", () => { c.destroy(); resolve(true); });
    c.on("error", () => resolve(false));
  });
  assert.ok(!reached);
});
`;
}

/** Processes whose command line holds the daemon's marker argument. */
function daemons(): number[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").includes(DAEMON);
      } catch {
        return false;
      }
    })
    .map(Number);
}

beforeAll(async () => {
  gh = await startHostileServer((req, res) => {
    const p = new URL(req.url ?? "/", "http://x").pathname;
    const m = /^\/repos\/acme\/app\/pulls\/5(\/files)?$/.exec(p);
    if (!m) return notFound(res);
    const files = [{ filename: "probe.test.js", status: "added", additions: 1, deletions: 0, changes: 1, patch: "@@ -0,0 +1 @@\n+// probes" }];
    if (m[1]) return json(res, 200, files);
    json(res, 200, prJson("app", 5, files.length, sha));
  });
  home = tmpDir("trm-home-");
  writeFileSync(path.join(home, "secret.txt"), `home-${TOKEN}\n`);
  // Upstream: main with one test; the PR's head adds the probes, under refs/pull/5/head of a bare repository.
  const upstream = repoFromFiles({ "package.json": '{ "type": "module" }\n', "base.test.js": 'import { test } from "node:test";\ntest("base", () => {});\n' });
  const bare = path.join(tmpDir("trm-remote-"), "app.git");
  g(upstream, "clone", "-q", "--bare", upstream, bare);
  user = path.join(tmpDir("trm-user-"), "app");
  g(path.dirname(user), "clone", "-q", bare, user);
  g(user, "remote", "set-url", "origin", "https://github.com/acme/app.git");
  g(user, "config", `url.${bare}.insteadOf`, "https://github.com/acme/app.git");
  g(user, "remote", "add", "backup", `https://x-access-token:${TOKEN}@git.example.invalid/acme/app.git`);
  writeFileSync(path.join(user, ".git", "hooks", "pre-push"), `#!/bin/sh\n# ${TOKEN}\n`, { mode: 0o755 });
  g(upstream, "checkout", "-q", "-b", "pr");
  writeFileSync(path.join(upstream, "probe.test.js"), probeTests(path.join(user, ".git"), user, home, gh.port));
  g(upstream, "add", "-A");
  g(upstream, "commit", "-q", "-m", "probes");
  g(upstream, "push", "-q", bare, "HEAD:refs/pull/5/head");
  sha = { base: g(upstream, "rev-parse", "main").trim(), head: g(upstream, "rev-parse", "HEAD").trim() };
  srv = await startServer({ env: { GITHUB_API_URL: gh.url, HOME: home } });
});

afterAll(async () => {
  await srv?.close();
  await gh?.close();
});

const evaluateArgs = { prUrl: PR, evaluate: true, testCmd: "node --test" };

sandboxTests("evaluate runs the pull request's commands in the sandbox (bubblewrap)", () => {
  it("every attack of the head's tests fails, the evaluation still compares the sides, and the note says where it ran", async () => {
    const before = checkoutState(user);
    const r = await srv.call<Any>("trm_review_pr", { ...evaluateArgs, repoPath: user });
    expect(r.evaluation).toMatchObject({
      verdict: "same",
      newFailures: [],
      base: { tests: "1/1" },
      head: { tests: `${PROBES.length + 1}/${PROBES.length + 1}` },
    });
    expect(r.notes).toContain("evaluate ran the commands of both sides in the bubblewrap sandbox: no network, their temporary checkout alone writable.");
    expect(JSON.stringify(r)).not.toContain(TOKEN.slice(0, 20));
    expect(existsSync(path.join(user, "PWNED"))).toBe(false);
    expect(daemons()).toEqual([]);
    expect(checkoutState(user)).toEqual(before);
    expect(g(user, "worktree", "list")).not.toMatch(/trm-review/);
  });
});

describe("evaluate where bubblewrap is not available", () => {
  /** A server whose PATH has node and git but no bwrap. */
  async function withoutBwrap(): Promise<TestServer> {
    const bin = tmpDir("trm-bin-");
    mkdirSync(path.join(bin, "b"));
    for (const tool of ["node", "git"]) {
      const found = spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
      symlinkSync(found, path.join(bin, "b", tool));
    }
    return startServer({ env: { GITHUB_API_URL: gh.url, HOME: home, PATH: path.join(bin, "b") } });
  }

  it("is refused without trustPr, with what to do; with trustPr it runs unconfined and says so", async () => {
    const bare = await withoutBwrap();
    try {
      const r = await bare.call<Any>("trm_review_pr", { ...evaluateArgs, repoPath: user });
      expect(r.evaluation).toBeUndefined();
      expect(r.notes).toContainEqual(
        expect.stringMatching(
          /^evaluate was not run: it runs the head's build, test and lint commands, and bubblewrap, which would confine them, is not available \(apt-get .*\)\. Pass trustPr: true \(code-trm review --trust-pr\) to run them unconfined\.$/,
        ),
      );
      expect(existsSync(path.join(user, "PWNED"))).toBe(false);

      const t = await bare.call<Any>("trm_review_pr", { ...evaluateArgs, repoPath: user, trustPr: true });
      expect(t.notes).toContainEqual(expect.stringMatching(/^evaluate ran the commands of both sides without a sandbox because trustPr was passed/));
      // Unconfined, every attack works: the probes are real.
      expect([...t.evaluation.newFailures].sort()).toEqual([...PROBES].sort());
      expect(existsSync(path.join(user, "PWNED"))).toBe(true);
      // The daemon left the process group; the exec layer's run marker found it and killed it.
      expect(daemons()).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});
