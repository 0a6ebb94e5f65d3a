import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { reviewTestStrength } from "../../../src/review/test-strength.js";
import { g, repoFromFiles } from "../../helpers/repo.js";

/**
 * mutate runs the head's own tests: in the bubblewrap sandbox, or, when this machine cannot make one,
 * only when the caller trusts the change (trustPr), as the project's ESLint on a change of its code.
 */

const sandbox = vi.hoisted(() => ({ off: false }));
vi.mock("../../../src/exec/sandbox.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../src/exec/sandbox.js")>();
  return {
    ...real,
    assertSandboxAvailable: () => {
      if (sandbox.off) throw new Error("bwrap is not installed (test)");
      return real.assertSandboxAvailable();
    },
  };
});

beforeEach(() => {
  sandbox.off = false;
});

/** main, and a head whose test writes a marker file outside its checkout (into the user's checkout). */
function fixture(): { repo: string; head: string } {
  const repo = repoFromFiles({
    "package.json": '{"type":"module"}\n',
    "src/a.js": "export const f = (x) => x;\n",
    "a.test.js": 'import { test } from "node:test";\ntest("t", () => {});\n',
  });
  g(repo, "checkout", "-q", "-b", "topic");
  writeFileSync(path.join(repo, "src/a.js"), "export const f = (x) => x + 1;\n");
  writeFileSync(
    path.join(repo, "a.test.js"),
    `import { test } from "node:test";\nimport { writeFileSync } from "node:fs";\nimport { f } from "./src/a.js";\ntry { writeFileSync(${JSON.stringify(path.join(repo, "RAN"))}, "x"); } catch {}\ntest("t", () => { f(1); });\n`,
  );
  g(repo, "add", "-A");
  g(repo, "commit", "-q", "-m", "head");
  const head = g(repo, "rev-parse", "HEAD").trim();
  g(repo, "checkout", "-q", "main");
  return { repo, head };
}

const files = [{ path: "src/a.js", status: "modified" as const, added: [1], removed: [1], hunks: [] }] as never;

describe("mutate without a sandbox", () => {
  it("does not run a head's tests unconfined unless the caller trusts the change", async () => {
    sandbox.off = true;
    const { repo, head } = fixture();
    const r = await reviewTestStrength(repo, "main", head, files, { testCmd: "node --test", budgetSec: 30 });
    expect(existsSync(path.join(repo, "RAN"))).toBe(false);
    expect(r.comments).toEqual([]);
    expect(r.notes.join("\n")).toMatch(/trustPr/);
  }, 120_000);

  it("runs them unconfined with trustPr, and says so", async () => {
    sandbox.off = true;
    const { repo, head } = fixture();
    const r = await reviewTestStrength(repo, "main", head, files, { testCmd: "node --test", budgetSec: 30, trustPr: true });
    expect(existsSync(path.join(repo, "RAN"))).toBe(true);
    expect(r.notes.join("\n")).toMatch(/without a sandbox/);
  }, 120_000);
});
