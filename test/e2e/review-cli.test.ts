import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tmpEnv } from "../helpers/client.js";
import { checkoutState, g, ROOT, tmpDir } from "../helpers/repo.js";

/** `code-trm review` as CI runs it: the built command line, no terminal, exit codes and SARIF. */

const BIN = path.join(ROOT, "dist", "cli", "main.js");

function cli(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...tmpEnv(), PATH: process.env.PATH ?? "", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" },
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function repo(): string {
  const dir = path.join(tmpDir("trm-review-cli-"), "r");
  mkdirSync(path.join(dir, "test"), { recursive: true });
  g(path.dirname(dir), "init", "-q", "-b", "main", dir);
  writeFileSync(path.join(dir, "test/a.test.ts"), 'import { it } from "vitest";\nit("works", () => {});\n');
  g(dir, "add", "-A");
  g(dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base");
  g(dir, "switch", "-q", "-c", "focus");
  writeFileSync(path.join(dir, "test/a.test.ts"), 'import { it } from "vitest";\nit.only("works", () => {});\n');
  g(dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "focus a test");
  g(dir, "switch", "-q", "-c", "tidy", "main");
  writeFileSync(path.join(dir, "test/a.test.ts"), 'import { it } from "vitest";\nit("still works", () => {});\n');
  g(dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "rename a test");
  g(dir, "switch", "-q", "main");
  return dir;
}

describe("code-trm review", () => {
  it("exits 1 on needs-changes, writes SARIF, prints text without colour when not on a terminal", () => {
    const dir = repo();
    const before = checkoutState(dir);
    const r = cli(dir, "review", "main..focus", "--sarif", "out.sarif");
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^Assessment: needs-changes\./);
    expect(r.out).toContain("test/a.test.ts:2 [critical] testing: Focused test (`.only`)");
    expect(r.out).not.toContain("\u001b[");
    const sarif = JSON.parse(readFileSync(path.join(dir, "out.sarif"), "utf8"));
    expect(sarif.version).toBe("2.1.0");
    expect(sarif.runs[0].results).toEqual([expect.objectContaining({ ruleId: "test-only", level: "error" })]);
    // Only the SARIF file the user asked for is new in the checkout.
    const after = checkoutState(dir);
    expect(after.refs).toEqual(before.refs);
    expect(after.head).toEqual(before.head);
  });

  it("exits 0 with --json on a range without critical findings; usage errors exit 2", () => {
    const dir = repo();
    const r = cli(dir, "review", "main...tidy", "--json");
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.summary.assessment).toBe("approved");
    expect(j.sarif).toBeUndefined();
    expect(cli(dir, "review").code).toBe(2);
    const bad = cli(dir, "review", "main..nope");
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/head ref "nope" does not name a commit/);
  });
});
