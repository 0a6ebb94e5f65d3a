import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { g, makeRepo, ROOT, tmpDir } from "../helpers/repo.js";

/**
 * The long-lived `git update-ref --stdin` of src/git/ref-writer.ts, in a Node process of its own with
 * nothing else to keep it alive (a script using the library, or the server after its stdin closed).
 */
function runScript(repo: string, body: string) {
  const file = path.join(tmpDir("trm-refw-"), "script.mjs");
  writeFileSync(file, `import { runRefTransaction } from ${JSON.stringify(path.join(ROOT, "dist", "git", "ref-writer.js"))};\n${body}\n`);
  return spawnSync(process.execPath, [file], { cwd: repo, encoding: "utf8", timeout: 30_000 });
}

describe("ref transactions through the long-lived update-ref", () => {
  it("finish when nothing else keeps the process alive, and the idle writer lets it exit", () => {
    const repo = makeRepo("js-stats");
    const head = g(repo, "rev-parse", "HEAD").trim();
    const r = runScript(
      repo,
      `await runRefTransaction(process.cwd(), [{ ref: "refs/trm/x/one", next: "${head}", expected: null }], "test");\nconsole.log("done");`,
    );
    // Before: the idle-unref'd process let Node leave in the middle of the transaction, exit 0, no "done".
    expect(r.stdout.trim()).toBe("done");
    expect(r.status).toBe(0);
    expect(g(repo, "rev-parse", "refs/trm/x/one").trim()).toBe(head);
  });

  it("refuses a compare-and-swap that does not hold, with git's message, and the next transaction works", () => {
    const repo = makeRepo("js-stats");
    const head = g(repo, "rev-parse", "HEAD").trim();
    const r = runScript(
      repo,
      [
        `const cwd = process.cwd();`,
        `const err = await runRefTransaction(cwd, [{ ref: "refs/trm/x/two", next: "${head}", expected: "${"1".repeat(40)}" }], "test").then(() => "no error", (e) => e.message);`,
        `console.log(JSON.stringify(err));`,
        `await runRefTransaction(cwd, [{ ref: "refs/trm/x/two", next: "${head}", expected: null }], "test");`,
        `console.log("done");`,
      ].join("\n"),
    );
    const [err, done] = r.stdout.trim().split("\n");
    expect(JSON.parse(err!)).toMatch(/refs\/trm\/x\/two/);
    expect(done).toBe("done");
    expect(g(repo, "rev-parse", "refs/trm/x/two").trim()).toBe(head);
  });
});
