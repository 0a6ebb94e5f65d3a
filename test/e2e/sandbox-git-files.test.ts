/**
 * The sandbox (issue 27): files of the repository's git directory that hold what its config would, seen
 * from a sandboxed command. Each ends with the checkout unchanged and the token in no tool output.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hostileServer, outsideWorld, repoOf } from "../helpers/hostile.js";
import { checkoutState, g } from "../helpers/repo.js";

const hasBwrap = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0;
const sandboxTests = hasBwrap || process.env.CI === "true" ? describe : describe.skip;

sandboxTests("the sandbox hides the repository's credentials (bubblewrap)", () => {
  it("files the repository's config includes are hidden like the config itself", async () => {
    const w = outsideWorld();
    const repo = repoOf();
    const token = "ghp_includedCanary7Qx2LmN0pRsTuVwXyZ0123";
    const creds = `[remote "origin"]\n\turl = https://x-access-token:${token}@git.example.invalid/o/r.git\n[http]\n\textraHeader = AUTHORIZATION: bearer ${token}\n`;
    writeFileSync(path.join(repo, ".git", "creds.cfg"), creds);
    writeFileSync(path.join(repo, ".git", "ci-creds.cfg"), creds);
    g(repo, "config", "include.path", "creds.cfg");
    g(repo, "config", `includeIf.gitdir:${path.dirname(repo)}/**.path`, path.join(repo, ".git", "ci-creds.cfg"));
    const before = checkoutState(repo);
    const cmd = [
      `grep -q ${token.slice(0, 12)} ${path.join(repo, ".git", "creds.cfg")} && echo leaked-include`,
      `grep -q ${token.slice(0, 12)} ${path.join(repo, ".git", "ci-creds.cfg")} && echo leaked-include-if`,
      "git status --short >/dev/null && echo git-works",
      "node --test",
    ].join(" ; ");
    const h = await hostileServer({ home: w.home });
    const s = await h.call("trm_start_session", { repoPath: repo, testCmd: cmd, sandbox: true, preflight: true });
    const log = (await h.call("trm_read_log", { sessionId: s.sessionId, at: "baseline", command: "test" })).content as string;
    expect(log).toContain("git-works");
    expect(log).toContain("tests 4");
    expect(log).not.toContain("leaked-");
    expect(h.seen.join("\n")).not.toContain(token);
    expect(checkoutState(repo)).toEqual(before);
    await h.srv.close();
  });
});
