import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { serveWithRecordedGitHub } from "../helpers/github-server.js";
import { checkoutState, makeRepo, tmpDir } from "../helpers/repo.js";

/**
 * Without the sandbox a command runs as the user and can read /proc/<pid>/environ of every process of
 * the user, its ancestors first: the server's own initial environment block must not hold the
 * credentials it was started with (util/initial-env.ts), while the server still uses them itself.
 * The server is started as the README says (`node dist/cli/main.js`, credentials in its environment).
 */
type Any = Record<string, any>;
// Fresh values per run: other test files and other servers on the machine use fixed canaries.
const TOKEN = `ghp_${randomBytes(18).toString("hex")}`;
const SECRETS = { GITHUB_TOKEN: TOKEN, GH_TOKEN: `${TOKEN}_gh`, NPM_TOKEN: `npm_${randomBytes(12).toString("hex")}` };
// A process the probe must find: proves the scan reads other processes' environments at all.
const CONTROL = `ctl_${randomBytes(12).toString("hex")}`;

/** The attacker's test command: every ancestor, then every readable process; values in several transforms. */
const PROBE = String.raw`
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
const [needlesFile, reportFile] = process.argv.slice(2);
const needles = JSON.parse(readFileSync(needlesFile, "utf8"));
const forms = (v) => ({ plain: v, reversed: [...v].reverse().join(""), base64: Buffer.from(v).toString("base64"), hex: Buffer.from(v).toString("hex") });
const ppid = (pid) => { const s = readFileSync("/proc/" + pid + "/stat", "latin1"); return Number(s.slice(s.lastIndexOf(")") + 2).split(" ")[1]); };
const ancestors = [];
for (let p = process.ppid; p > 1; p = ppid(p)) ancestors.push(p);
const readable = [], found = [];
const pids = new Set([...ancestors, ...readdirSync("/proc").filter((n) => /^\d+$/.test(n)).map(Number)]);
for (const pid of pids) {
  let env;
  try { env = readFileSync("/proc/" + pid + "/environ", "latin1"); } catch { continue; }
  readable.push(pid);
  for (const [name, v] of Object.entries(needles)) {
    for (const [form, text] of Object.entries(forms(v))) {
      if (env.includes(text)) found.push({ pid, name, form, ancestor: ancestors.includes(pid) });
    }
  }
}
// What an attacker prints: the value reversed, so that redaction does not recognise it.
for (const f of found) if (f.name !== "CONTROL") console.log("leaked " + f.name + " " + [...needles[f.name]].reverse().join(""));
writeFileSync(reportFile, JSON.stringify({ ancestors, readable, found }));
`;

const servers = serveWithRecordedGitHub(SECRETS);

describe("the server's credentials and /proc", () => {
  it("a command that scans its ancestors' and every readable process's environment finds no credential of the server", async () => {
    const dir = tmpDir("trm-probe-");
    writeFileSync(path.join(dir, "probe.mjs"), PROBE);
    writeFileSync(path.join(dir, "needles.json"), JSON.stringify({ ...SECRETS, CONTROL }));
    const control = spawn("sleep", ["60"], { env: { PATH: process.env.PATH ?? "", CONTROL_VALUE: CONTROL }, stdio: "ignore" });
    try {
      const repo = makeRepo("js-stats");
      const before = checkoutState(repo);
      const report = path.join(dir, "report.json");
      const s = await servers.srv.call<Any>("trm_start_session", {
        repoPath: repo,
        testCmd: `node ${dir}/probe.mjs ${dir}/needles.json ${report}`,
        preflight: true,
      });
      const r = JSON.parse(readFileSync(report, "utf8")) as { ancestors: number[]; readable: number[]; found: Any[] };
      // The scan reached the server (an ancestor of the command) and read its block, and it finds what is there.
      expect(r.ancestors).toContain(servers.srv.pid);
      expect(r.readable).toContain(servers.srv.pid);
      expect(r.found).toContainEqual(expect.objectContaining({ pid: control.pid, name: "CONTROL", form: "plain" }));
      expect(r.found.filter((f) => f.name !== "CONTROL")).toEqual([]);
      await servers.srv.call("trm_end_session", { sessionId: s.sessionId });
      expect(checkoutState(repo)).toEqual(before);
    } finally {
      control.kill("SIGKILL");
    }
  });

  it("the server still uses the token: a pull request review authenticates with it", async () => {
    const from = servers.gh.requests.length;
    const r = await servers.srv.call<Any>("trm_review_pr", { prUrl: "https://github.com/octo-org/widgets/pull/42" });
    expect(r.prInfo).toBeDefined();
    const sent = servers.gh.requests.slice(from);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((q) => q.headers.authorization === `token ${TOKEN}`)).toBe(true);
  });

  it("passEnv still hands the named credential to the command, and only that one", async () => {
    const dir = tmpDir("trm-passenv-");
    const repo = makeRepo("js-stats");
    // Written reversed and compared here: the value is known to the server and would be redacted if printed.
    const testCmd = `node -e 'const r=(v)=>[...(v||"")].reverse().join("");require("fs").writeFileSync(process.argv[1],JSON.stringify({gh:r(process.env.GITHUB_TOKEN),other:r(process.env.GH_TOKEN)}))' ${dir}/passed.json`;
    const s = await servers.srv.call<Any>("trm_start_session", { repoPath: repo, testCmd, passEnv: "GITHUB_TOKEN", preflight: true });
    const passed = JSON.parse(readFileSync(path.join(dir, "passed.json"), "utf8")) as { gh: string; other: string };
    expect(passed).toEqual({ gh: [...TOKEN].reverse().join(""), other: "" });
    await servers.srv.call("trm_end_session", { sessionId: s.sessionId, discard: true });
  });
});
