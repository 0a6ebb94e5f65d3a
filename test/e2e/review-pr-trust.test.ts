import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, tmpEnv } from "../helpers/client.js";
import { type HostileServer, json, notFound, prJson, startHostileServer } from "../helpers/hostile-github.js";
import { clone, evil } from "../helpers/lint-attack.js";
import { ROOT, tmpDir } from "../helpers/repo.js";

/**
 * A pull request that changes a file its repository's ESLint configuration imports (test/helpers/
 * lint-attack.ts), reviewed over MCP (prUrl + repoPath, the PR served by a local GitHub) and with
 * `code-trm review --repo`: the PR's code does not run and a note says why; with trustPr /
 * --trust-pr it runs (in the bubblewrap sandbox when this machine has it, so the proof it ran is its
 * own error in the notes; unconfined, the marker file too).
 */

type Any = Record<string, any>;
const PR = "https://github.com/acme/app/pull/3";

const FILES = [
  {
    filename: "src/app.js",
    status: "modified",
    additions: 4,
    deletions: 0,
    changes: 4,
    patch: "@@ -1 +1,5 @@\n export const app = 1;\n+export function f() {\n+  let x = 2;\n+  return x;\n+}",
  },
  {
    filename: "tools/rules.js",
    status: "modified",
    additions: 4,
    deletions: 1,
    changes: 5,
    patch: '@@ -1 +1,4 @@\n-export default {};\n+import fs from "node:fs";\n+try {} catch {}\n+throw new Error("PR code ran");\n+export default {};',
  },
];

let gh: HostileServer;
let srv: TestServer;
let attack: ReturnType<typeof clone>;

beforeAll(async () => {
  attack = clone((dir, marker) => writeFileSync(path.join(dir, "tools", "rules.js"), evil(marker, true)));
  gh = await startHostileServer((req: IncomingMessage, res: ServerResponse) => {
    // /api/v3 when the PR URL names this server itself (GitHub Enterprise layout).
    const p = new URL(req.url ?? "/", "http://x").pathname.replace(/^\/api\/v3\//, "/");
    // acme/lie says the head is its own base: nothing changed, so everything would be "the base's".
    const m = /^\/repos\/acme\/(app|lie)\/pulls\/3(\/files)?$/.exec(p);
    if (!m) return notFound(res);
    if (m[2]) return json(res, 200, FILES);
    json(res, 200, prJson(m[1]!, 3, FILES.length, { base: m[1] === "lie" ? attack.head : attack.base, head: attack.head }));
  });
  srv = await startServer({ env: { GITHUB_API_URL: gh.url } });
});

afterAll(async () => {
  await srv?.close();
  await gh?.close();
});

const refusal =
  "ESLint was not run: this change modifies code ESLint would run on this machine: tools/rules.js (loaded by eslint.config.js). Pass trustPr: true (code-trm review --trust-pr) to run it anyway";
const ran = "ESLint ran this change's own code (tools/rules.js (loaded by eslint.config.js)) because trustPr was passed";
const failed = "The project's ESLint failed to run (exit 2): PR code ran. Its diagnostics are missing.";

describe("a pull request's own lint code", () => {
  it("trm_review_pr does not run it, and says why; trustPr: true runs it", async () => {
    const r = await srv.call<Any>("trm_review_pr", { prUrl: PR, repoPath: attack.dir });
    expect(r.prInfo.headSha).toBe(attack.head);
    expect((r.notes as string[]).find((n) => n.startsWith("ESLint was not run"))).toMatch(new RegExp(`^${refusal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    expect(r.notes).not.toContain(failed);
    expect(existsSync(attack.marker)).toBe(false);

    const t = await srv.call<Any>("trm_review_pr", { prUrl: PR, repoPath: attack.dir, trustPr: true });
    expect((t.notes as string[]).some((n) => n.startsWith(ran))).toBe(true);
    expect(t.notes).toContain(failed);
  });

  it("a base commit from a host the model named is not believed (it could be the head itself)", async () => {
    const fromUrl = await startServer({ env: {} });
    try {
      const r = await fromUrl.call<Any>("trm_review_pr", { prUrl: `${gh.url}/acme/lie/pull/3`, repoPath: attack.dir });
      expect(r.prInfo.baseSha).toBe(attack.head);
      expect((r.notes as string[]).find((n) => n.startsWith("ESLint was not run"))).toMatch(
        new RegExp(
          `^ESLint was not run: the base commit comes from 127\\.0\\.0\\.1:${gh.port}, which is not a configured GitHub host, so whether this change modifies code ESLint would run is not known\\. Pass trustPr: true`,
        ),
      );
      expect(r.notes).not.toContain(failed);
    } finally {
      await fromUrl.close();
    }
    // Control: the configured API is believed, and its lie gets the head's code run.
    const lied = await srv.call<Any>("trm_review_pr", { prUrl: "https://github.com/acme/lie/pull/3", repoPath: attack.dir });
    expect(lied.notes).toContain(failed);
  });

  it("code-trm review --repo refuses it too, and --trust-pr runs it", async () => {
    const cwd = tmpDir("trm-trust-cli-");
    const cli = async (...extra: string[]) => {
      const child = spawn(process.execPath, [path.join(ROOT, "dist", "cli", "main.js"), "review", PR, "--repo", attack.dir, "--json", ...extra], {
        cwd,
        env: { ...tmpEnv(), PATH: process.env.PATH ?? "", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", GITHUB_API_URL: gh.url },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
      await new Promise((resolve) => child.on("close", resolve));
      return JSON.parse(out) as Any;
    };
    const plain = await cli();
    expect((plain.notes as string[]).some((n) => n.startsWith(refusal))).toBe(true);
    expect(existsSync(attack.marker)).toBe(false);
    const trusted = await cli("--trust-pr");
    expect((trusted.notes as string[]).some((n) => n.startsWith(ran))).toBe(true);
    expect(trusted.notes).toContain(failed);
  });
});
