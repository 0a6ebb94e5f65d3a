import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { assertSandboxAvailable } from "../../../src/exec/sandbox.js";
import { reviewPr } from "../../../src/review/review.js";
import { clone, evil } from "../../helpers/lint-attack.js";

/**
 * A change that modifies code the project's ESLint runs (a file its configuration imports, a committed
 * node_modules package) does not get that code run: the ESLint stand-in of fixtures/repos/eslint-stub
 * loads its configuration as ESLint does, and the change's code would write a marker file and fail the
 * run. With trustPr it runs. Both with bubblewrap (when this machine has it) and without (the sandbox
 * probe made to fail), where the marker shows it ran unconfined.
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

const bwrapHere = (() => {
  try {
    assertSandboxAvailable();
    return true;
  } catch {
    return false;
  }
})();

beforeEach(() => {
  sandbox.off = false;
});

const review = (dir: string, trustPr?: boolean) => reviewPr({ repoPath: dir, base: "main", head: "pr", ...(trustPr ? { trustPr } : {}) }, { env: {} });
const eslintFindings = (r: Awaited<ReturnType<typeof review>>) => r.comments.filter((c) => c.rule.startsWith("eslint/")).map((c) => [c.file, c.line, c.rule]);
const sandboxed = ", in the bubblewrap sandbox";

describe("ESLint runs only code the base already had", () => {
  it("a change to source files only: ESLint runs on the base's configuration and plugin", async () => {
    const { dir, marker } = clone(() => undefined);
    const r = await review(dir);
    expect(eslintFindings(r)).toEqual([["src/app.js", 3, "eslint/prefer-const"]]);
    expect((r.notes ?? []).filter((n) => /ESLint/.test(n) && !n.startsWith("Project tools:"))).toEqual(
      bwrapHere ? [] : [expect.stringMatching(/^The project's ESLint ran without a sandbox, on configuration and plugins the base already had/)],
    );
    expect((r.notes ?? []).find((n) => n.startsWith("Project tools:"))).toMatch(/^Project tools: ran ESLint;/);
    expect(existsSync(marker)).toBe(false);
  });

  it.each([
    [
      "a file the configuration imports",
      (dir: string, marker: string) => writeFileSync(path.join(dir, "tools", "rules.js"), evil(marker, true)),
      "tools/rules.js (loaded by eslint.config.js)",
    ],
    [
      "a committed node_modules package shadowing the installed plugin",
      (dir: string, marker: string) => {
        mkdirSync(path.join(dir, "node_modules", "eslint-plugin-local"), { recursive: true });
        writeFileSync(
          path.join(dir, "node_modules", "eslint-plugin-local", "package.json"),
          '{ "name": "eslint-plugin-local", "main": "index.js", "type": "commonjs" }\n',
        );
        writeFileSync(path.join(dir, "node_modules", "eslint-plugin-local", "index.js"), evil(marker, false));
      },
      "node_modules/eslint-plugin-local/index.js, node_modules/eslint-plugin-local/package.json (a package under node_modules, which ESLint would load instead of the installed one)",
    ],
  ])("%s: not run, the note says why; with trustPr it runs", async (_, attack, named) => {
    const { dir, marker } = clone(attack);
    const r = await review(dir);
    expect(existsSync(marker)).toBe(false);
    expect(eslintFindings(r)).toEqual([]);
    const refusal = (r.notes ?? []).find((n) => n.startsWith("ESLint was not run"));
    expect(refusal).toContain(`ESLint was not run: this change modifies code ESLint would run on this machine: ${named}`);
    expect(refusal).toContain(`Pass trustPr: true (code-trm review --trust-pr) to run it anyway${bwrapHere ? sandboxed : ", unconfined"}`);
    expect((r.notes ?? []).join("\n")).not.toMatch(/PR code ran/);
    // tsc and the review's own rules are not affected.
    expect(r.summary.filesChanged).toBeGreaterThan(0);

    const trusted = await review(dir, true);
    expect(trusted.notes).toContain(
      `ESLint ran this change's own code (${named}) because trustPr was passed${bwrapHere ? sandboxed : ", unconfined: bubblewrap is not available"}.`,
    );
    expect(trusted.notes).toContain("The project's ESLint failed to run (exit 2): PR code ran. Its diagnostics are missing.");
    // In the sandbox the marker went to its private /tmp; unconfined it is here.
    expect(existsSync(marker)).toBe(!bwrapHere);
  });

  it("without bubblewrap: refused unless trusted, and then it runs unconfined (the marker is written)", async () => {
    sandbox.off = true;
    const { dir, marker } = clone((d, m) => writeFileSync(path.join(d, "tools", "rules.js"), evil(m, true)));
    const r = await review(dir);
    expect(r.notes?.find((n) => n.startsWith("ESLint was not run"))).toMatch(/to run it anyway, unconfined: bubblewrap is not available/);
    expect(existsSync(marker)).toBe(false);
    const trusted = await review(dir, true);
    expect(trusted.notes).toContain(
      "ESLint ran this change's own code (tools/rules.js (loaded by eslint.config.js)) because trustPr was passed, unconfined: bubblewrap is not available.",
    );
    expect(existsSync(marker)).toBe(true);
  });
});
