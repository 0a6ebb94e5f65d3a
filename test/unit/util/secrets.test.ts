import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { commandEnv, runCommand } from "../../../src/exec/run.js";
import { isSecretName, redact, redactDeep, StreamRedactor, secretValues } from "../../../src/util/secrets.js";

const cwd = mkdtempSync(path.join(os.tmpdir(), "trm-secrets-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const CANARY = "ghp_canary0123456789abcdefABCDEF";
const set: string[] = [];
function env(k: string, v: string) {
  process.env[k] = v;
  set.push(k);
}
afterEach(() => {
  for (const k of set.splice(0)) delete process.env[k];
});

describe("credential names", () => {
  it("recognises the usual shapes and leaves ordinary variables alone", () => {
    for (const k of [
      "GITHUB_TOKEN",
      "GH_TOKEN",
      "NPM_TOKEN",
      "NODE_AUTH_TOKEN",
      "AWS_ACCESS_KEY_ID",
      "AWS_SECRET_ACCESS_KEY",
      "AWS_SESSION_TOKEN",
      "AWS_SHARED_CREDENTIALS_FILE",
      "OPENAI_API_KEY",
      "STRIPE_SECRET",
      "DB_PASSWORD",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "SIGNING_KEY",
      "my_token",
      "GITLAB_PAT",
    ]) {
      expect(isSecretName(k), k).toBe(true);
    }
    for (const k of [
      "PATH",
      "HOME",
      "SSH_AUTH_SOCK",
      "TOKENIZERS_PARALLELISM",
      "KEYBOARD",
      "NODE_ENV",
      "TRM_SESSION_ID",
      "CI",
      "LANG",
      "MANPATH",
      "AWS_REGION",
      "AWS_CA_BUNDLE",
    ]) {
      expect(isSecretName(k), k).toBe(false);
    }
  });
});

describe("redaction", () => {
  it("replaces every known value, its JSON form and its base64, but not values shorter than 8 characters", () => {
    const secrets = secretValues({ GITHUB_TOKEN: CANARY, DB_PASSWORD: "short", X_SECRET: 'a"b\\c-long-value' });
    const b64 = Buffer.from(CANARY).toString("base64").replace(/=+$/, "");
    const out = redact(`token=${CANARY} b64=${b64} short=short json=${JSON.stringify('a"b\\c-long-value')}`, secrets);
    expect(out).not.toContain(CANARY);
    expect(out).not.toContain(b64);
    expect(out).toContain("short=short");
    expect(out).not.toContain("long-value");
    expect(redactDeep({ a: [`x${'a"b\\c-long-value'}y`] }, secrets)).toEqual({ a: ["x[redacted]y"] });
  });

  it("catches a value split across stream chunks", () => {
    const r = new StreamRedactor([CANARY]);
    const text = `before ${CANARY} after ${CANARY}`;
    let out = "";
    for (let i = 0; i < text.length; i += 3) out += r.push(text.slice(i, i + 3));
    out += r.end();
    expect(out).toBe("before [redacted] after [redacted]");
  });
});

describe("the command environment", () => {
  it("has no credential unless passed, and the passed one is usable but never printed", async () => {
    env("GITHUB_TOKEN", CANARY);
    env("DEPLOY_TOKEN", `${CANARY}-deploy`);
    env("AWS_SECRET_ACCESS_KEY", `${CANARY}-aws`);
    const e = commandEnv({}, ["DEPLOY_TOKEN"]);
    expect(e.GITHUB_TOKEN).toBeUndefined();
    expect(e.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    expect(e.DEPLOY_TOKEN).toBe(`${CANARY}-deploy`);
    // Printed whole, in pieces with a pause between them, with colour codes inside, and base64-encoded.
    const r = await runCommand(
      `env; test "$DEPLOY_TOKEN" = '${CANARY}-deploy' && echo usable; printf '%s' "$DEPLOY_TOKEN" | head -c 9; sleep 0.2; printf '%s\\n' "$DEPLOY_TOKEN" | tail -c +10; printf 'ghp_\\033[0mcanary0123456789abcdefABCDEF\\n'; printf %s "$DEPLOY_TOKEN" | base64 -w0`,
      { cwd, timeoutMs: 10_000, passEnv: ["DEPLOY_TOKEN"] },
    );
    expect(r.output.all).toContain("usable");
    expect(r.output.all).not.toContain("canary0123456789");
    expect(r.output.all).not.toContain(Buffer.from(`${CANARY}-deploy`).toString("base64").slice(0, 40));
    expect(r.output.all).toContain("[redacted]");
  });

  it("kills a setsid daemon when its command ends", async () => {
    const pidFile = path.join(cwd, "daemon.pid");
    const r = await runCommand(`setsid sh -c 'echo $$ > ${pidFile}; exec sleep 300' < /dev/null > /dev/null 2>&1 & sleep 0.3; echo started`, {
      cwd,
      timeoutMs: 10_000,
    });
    expect(r.output.stdout).toContain("started");
    const pid = Number(readFileSync(pidFile, "utf8"));
    let alive = true;
    for (let i = 0; i < 20 && alive; i++) {
      try {
        alive = !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
      } catch {
        alive = false;
      }
      if (alive) await new Promise((res) => setTimeout(res, 50));
    }
    expect(alive).toBe(false);
  });
});
