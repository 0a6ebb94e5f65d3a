/**
 * The user's checkout is not the sandbox's to read: a session's step and a reviewed head's tests saw all
 * of it read-only, its ignored files (a `.env`, keys) and untracked ones too. Through the real server and
 * bubblewrap, each command below prints `leaked-<what>` when it reads one; only what the commands need of
 * the checkout is there (its node_modules, what linkPaths names), and a write to it still fails. The
 * checkouts lie outside /tmp and the home (the read-only root showed them whole) and in /tmp. A server run as
 * root says what the sandbox leaves its commands (every file root owns outside what it hides).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Any, hostileServer, outsideWorld } from "../helpers/hostile.js";
import { checkoutState, g, ROOT, tmpDir } from "../helpers/repo.js";

const hasBwrap = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0;
// In CI the sandbox tests must run: .ci/run installs bubblewrap, and a missing one is a failure there.
const sandboxTests = hasBwrap || process.env.CI === "true" ? describe : describe.skip;

const CANARY = `checkout-canary-${randomBytes(6).toString("hex")}`;
const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** Prints leaked-<what> for each of the user's files it reads, and what the commands may see. */
const probe = (top: string) =>
  [
    `grep -h ${CANARY} ${top}/.env ${top}/secrets/deploy.pem ${top}/notes.md 2>/dev/null | sed 's/.*${CANARY}-/leaked-/'`,
    `ls -A ${top} | tr '\\n' ' '; echo`,
    `grep -q linked ${top}/config.local.json && echo linked-shown`,
    `test -r ${top}/node_modules/dep/index.js && echo dep-shown`,
    `touch ${top}/PWNED 2>&1 | grep -o 'Read-only file system'`,
    "true",
  ].join("; ");

/** A checkout with a dependency installed, the user's secrets ignored, an untracked note and a linkPaths file. */
function checkout(where: "outside" | "tmp"): string {
  let parent: string;
  if (where === "outside") {
    mkdirSync(path.join(ROOT, ".tmp"), { recursive: true });
    parent = mkdtempSync(path.join(ROOT, ".tmp", "trm-checkout-"));
    made.push(parent);
  } else parent = tmpDir("trm-checkout-");
  const top = path.join(parent, "app");
  const files: Record<string, string> = {
    "package.json": '{ "name": "app", "type": "module" }\n',
    ".gitignore": ".env\nsecrets/\nnode_modules/\nconfig.local.json\n",
    "dep.test.js": 'import { test } from "node:test";\nimport assert from "node:assert";\nimport dep from "dep";\ntest("dep", () => assert.equal(dep, 42));\n',
  };
  // The repository's own code (a candidate's, a head's) does the reading: the commands only run it.
  files["probe.sh"] = `${probe(top)}\n`;
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(top, p)), { recursive: true });
    writeFileSync(path.join(top, p), c);
  }
  g(top, "init", "-q", "-b", "main");
  g(top, "add", "-A");
  g(top, "commit", "-q", "-m", "initial");
  // Ignored and untracked: the user's, never committed.
  writeFileSync(path.join(top, ".env"), `API_KEY=${CANARY}-dotenv\n`);
  mkdirSync(path.join(top, "secrets"));
  writeFileSync(path.join(top, "secrets", "deploy.pem"), `${CANARY}-pem\n`);
  writeFileSync(path.join(top, "notes.md"), `${CANARY}-untracked\n`);
  writeFileSync(path.join(top, "config.local.json"), '{ "linked": true }\n');
  mkdirSync(path.join(top, "node_modules", "dep"), { recursive: true });
  writeFileSync(path.join(top, "node_modules", "dep", "package.json"), '{ "name": "dep", "type": "module", "main": "index.js" }\n');
  writeFileSync(path.join(top, "node_modules", "dep", "index.js"), "export default 42;\n");
  return top;
}

sandboxTests("the sandbox shows of the user's checkout only what the commands need (bubblewrap)", () => {
  for (const where of ["outside", "tmp"] as const)
    it(`a session's step reads no ignored or untracked file of a checkout ${where === "tmp" ? "in /tmp" : "outside /tmp and the home"}`, async () => {
      const w = outsideWorld();
      const top = checkout(where);
      const before = checkoutState(top);
      const h = await hostileServer({ home: w.home });
      const cmd = "sh probe.sh; node --test";
      // Control: unconfined, the step reads every one of them.
      const open = await h.call("trm_start_session", { repoPath: top, testCmd: cmd, linkPaths: ["config.local.json"], preflight: true });
      const openLog = (await h.call("trm_read_log", { sessionId: open.sessionId, at: "baseline", command: "test" })).content as string;
      for (const what of ["dotenv", "pem", "untracked"]) expect(openLog).toContain(`leaked-${what}`);
      rmSync(path.join(top, "PWNED"), { force: true });

      const s = await h.call("trm_start_session", { repoPath: top, testCmd: cmd, linkPaths: ["config.local.json"], sandbox: true, preflight: true });
      expect(s.sandbox).toBe(true);
      // As root the commands still read what root owns outside the checkout (/etc/shadow): the start says so.
      const asRoot = (s.notes ?? []).filter((n: string) => /^sandbox: the server runs as root/.test(n));
      expect(asRoot).toHaveLength(process.getuid?.() === 0 ? 1 : 0);
      expect((open.notes ?? []).join("\n")).not.toMatch(/runs as root/);
      const log = (await h.call("trm_read_log", { sessionId: s.sessionId, at: "baseline", command: "test" })).content as string;
      expect(log).not.toContain("leaked-");
      expect(log).not.toContain(CANARY);
      // What the commands need is there: the dependency (the test imports it), the linked file, git's view.
      expect(log).toMatch(/^\.git config\.local\.json node_modules $/m);
      expect(log).toContain("linked-shown\ndep-shown\nRead-only file system\n");
      expect((s.preflight as Any).tests).toMatchObject({ passed: 1, failed: 0 });
      expect(existsSync(path.join(top, "PWNED"))).toBe(false);
      expect(checkoutState(top)).toEqual(before);
      await h.srv.close();
    });

  it("a command that names the checkout's own folder (`/app/`, `/app/.`, `/app/src/..`) shows none of it", async () => {
    const w = outsideWorld();
    const top = checkout("outside");
    const h = await hostileServer({ home: w.home });
    // The user's command names the checkout, as `cd /app/ && …` would: that is no path the commands need of it.
    const named = [`${top}/`, `${top}/.`, `${top}/node_modules/..`].map((p) => `test -d ${p}`).join(" && ");
    const s = await h.call("trm_start_session", { repoPath: top, testCmd: `${named}; sh probe.sh; node --test`, sandbox: true, preflight: true });
    const log = (await h.call("trm_read_log", { sessionId: s.sessionId, at: "baseline", command: "test" })).content as string;
    expect(log).not.toContain("leaked-");
    expect(log).toMatch(/^\.git node_modules $/m);
    expect((s.preflight as Any).tests).toMatchObject({ passed: 1, failed: 0 });
    await h.srv.close();
  });

  it("sandboxPaths of a folder that holds the checkout shows that folder, and of the checkout still only what the commands need", async () => {
    const w = outsideWorld();
    const top = checkout("outside");
    const parent = path.dirname(top);
    writeFileSync(path.join(parent, "shared.txt"), "shared-shown\n");
    const h = await hostileServer({ home: w.home });
    const s = await h.call("trm_start_session", {
      repoPath: top,
      testCmd: `cat ${parent}/shared.txt; sh probe.sh; node --test`,
      sandbox: true,
      sandboxPaths: [parent],
      preflight: true,
    });
    const log = (await h.call("trm_read_log", { sessionId: s.sessionId, at: "baseline", command: "test" })).content as string;
    expect(log).toContain("shared-shown\n");
    expect(log).not.toContain("leaked-");
    expect(log).toMatch(/^\.git node_modules $/m);
    expect((s.preflight as Any).tests).toMatchObject({ passed: 1, failed: 0 });
    await h.srv.close();
  });

  it("a session in a submodule's checkout reads none of its superproject: its .env, its config with a token", async () => {
    const w = outsideWorld();
    mkdirSync(path.join(ROOT, ".tmp"), { recursive: true });
    const parent = mkdtempSync(path.join(ROOT, ".tmp", "trm-checkout-"));
    made.push(parent);
    const lib = path.join(parent, "lib");
    mkdirSync(lib);
    writeFileSync(path.join(lib, "a.test.js"), 'require("node:test")("a", () => {});\n');
    g(lib, "init", "-q", "-b", "main");
    g(lib, "add", "-A");
    g(lib, "commit", "-q", "-m", "lib");
    const main = path.join(parent, "main");
    mkdirSync(main);
    writeFileSync(path.join(main, ".gitignore"), ".env\n");
    g(main, "init", "-q", "-b", "main");
    g(main, "add", "-A");
    g(main, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib");
    g(main, "commit", "-q", "-m", "main");
    g(main, "config", "remote.origin.url", `https://x:${CANARY}-token@example.com/main.git`);
    writeFileSync(path.join(main, ".env"), `API_KEY=${CANARY}-dotenv\n`);
    const top = path.join(main, "lib");
    const before = checkoutState(main);
    const h = await hostileServer({ home: w.home });
    const cmd = `cat ${main}/.env ${main}/.git/config 2>&1 | sed 's/.*${CANARY}-/leaked-/'; ls -A ${main} | tr '\\n' ' '; echo; node --test`;
    const s = await h.call("trm_start_session", { repoPath: top, testCmd: cmd, sandbox: true, preflight: true });
    const log = (await h.call("trm_read_log", { sessionId: s.sessionId, at: "baseline", command: "test" })).content as string;
    expect(log).not.toContain("leaked-");
    expect(log).not.toContain(CANARY);
    expect((s.preflight as Any).tests).toMatchObject({ passed: 1, failed: 0 });
    expect(checkoutState(main)).toEqual(before);
    await h.srv.close();
  });

  it("a reviewed head's tests read no ignored or untracked file of the checkout", async () => {
    const w = outsideWorld();
    const top = checkout("outside");
    // The head adds a test that fails for each of the user's files it can read.
    g(top, "checkout", "-q", "-b", "pr");
    writeFileSync(
      path.join(top, "probe.test.js"),
      `import { test } from "node:test";\nimport { execSync } from "node:child_process";\nconst out = execSync("sh probe.sh", { encoding: "utf8" });\nfor (const what of ["dotenv", "pem", "untracked"]) test(what, () => { if (out.includes("leaked-" + what)) throw new Error(what); });\ntest("node_modules shown", () => { if (!out.includes("dep-shown")) throw new Error(out); });\n`,
    );
    g(top, "add", "probe.test.js");
    g(top, "commit", "-q", "-m", "probe");
    // Control: unconfined, the head's tests read the three files.
    const control = spawnSync("node", ["--test", "probe.test.js"], { cwd: top, encoding: "utf8" });
    expect(control.stdout).toMatch(/# pass 1\n# fail 3\n/);
    g(top, "checkout", "-q", "main");
    const before = checkoutState(top);
    const h = await hostileServer({ home: w.home });
    const r = await h.call("trm_review_pr", { repoPath: top, base: "main", head: "pr", evaluate: true, testCmd: "node --test probe.test.js" });
    expect(r.notes).toContain("evaluate ran the commands of both sides in the bubblewrap sandbox: no network, their temporary checkout alone writable.");
    expect(r.evaluation).toMatchObject({ head: { tests: "4/4" }, newFailures: [] });
    expect((r.notes as string[]).filter((n) => /^sandbox: the server runs as root/.test(n))).toHaveLength(process.getuid?.() === 0 ? 1 : 0);
    expect(JSON.stringify(r)).not.toContain(CANARY);
    expect(checkoutState(top)).toEqual(before);
    await h.srv.close();
  });
});
